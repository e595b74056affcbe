"""The cluster and its nodes: Kubernetes versions and add-ons, GPU node specs, nodeadm user data, Karpenter."""
