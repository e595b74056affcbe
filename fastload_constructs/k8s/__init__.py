"""cdk8s charts: Kubernetes manifests built from a ServingPlan."""
