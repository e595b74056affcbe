"""Reference stacks composed from fastload_constructs."""
