"""After a failed `make deploy` / `make diff`: say so when the failure is missing AWS credentials.

The CDK CLI's own message ("Unable to resolve AWS account to use", "Need to
perform AWS calls for account ... but no credentials have been configured")
does not say where to start. This looks for credentials the way the AWS SDKs
do (environment, shared files, SSO, container and instance metadata) without
calling AWS, and prints one hint pointing at the README's day-1 section.
"""

from __future__ import annotations

import sys

import boto3
from botocore.exceptions import BotoCoreError

HINT = (
    "fastload: no AWS credentials found. Configure them (aws configure, aws sso login, or AWS_PROFILE) "
    'and bootstrap the account once: see README.md, "Day 1: from zero to a first request".'
)


def credentials_found() -> bool:
    """True when boto3's credential chain resolves to credentials; nothing is sent to AWS."""
    try:
        return boto3.Session().get_credentials() is not None
    except BotoCoreError:  # a broken profile or SSO cache is as good as none
        return False


def main() -> int:
    if not credentials_found():
        print(HINT, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
