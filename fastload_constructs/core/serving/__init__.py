"""What a serving pod runs, decided from a plan: the pod around the engine's container, its caches,
who may reach it, its warm spares, standbys and the image mirror."""
