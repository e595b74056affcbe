"""CDK constructs: thin wrappers that apply the decisions in fastload_constructs.tuning."""
