"""The `fastload` command line: stage, inspect and report on models with boto3."""
