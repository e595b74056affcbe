"""Code that runs inside the pods (shipped in ConfigMaps): standard library and boto3 only."""
