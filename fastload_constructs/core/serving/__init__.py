"""What a serving pod runs, decided from a plan: the vLLM command line and environment, its caches,
who may reach it, its warm spares and the image mirror."""
