"""Where the rehearsal deploys: account, region, partition, stack name, and deterministic "random" parts.

CloudFormation generates physical names and AWS generates IDs at deploy time; the
rehearsal must pick values of the same shape and length, not placeholders, so that
rules about names and label values apply to what the services will really see.
The random parts are derived from the logical ID (sha256), so a run is repeatable.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits


@dataclass(frozen=True)
class Environment:
    """The deploy target. Defaults: a realistic 12-digit account in us-west-2, commercial partition."""

    stack_name: str
    account: str = "210987654321"
    region: str = "us-west-2"
    partition: str = "aws"
    url_suffix: str = "amazonaws.com"

    @property
    def stack_id(self) -> str:
        """`AWS::StackId`: arn:<partition>:cloudformation:<region>:<account>:stack/<name>/<uuid>."""
        return (
            f"arn:{self.partition}:cloudformation:{self.region}:{self.account}:stack/{self.stack_name}/"
            f"{uuid_for(self.stack_name)}"
        )

    @property
    def availability_zones(self) -> list[str]:
        """`Fn::GetAZs`: the region's zones (us-west-2 has a, b, c, d; three are enough for any template)."""
        return [f"{self.region}{z}" for z in "abc"]


def _digest(seed: str) -> bytes:
    return hashlib.sha256(seed.encode()).digest() * 4


def random_chars(seed: str, length: int, alphabet: str = ALNUM) -> str:
    """`length` characters of `alphabet`, the same for the same seed."""
    return "".join(alphabet[b % len(alphabet)] for b in _digest(seed)[:length])


def hex_id(prefix: str, seed: str, length: int = 17) -> str:
    """An EC2-style ID: `vpc-0123456789abcdef0` is a prefix and 17 hex digits (EC2 User Guide, "Resource IDs")."""
    return f"{prefix}-{random_chars(seed, length, '0123456789abcdef')}"


def uuid_for(seed: str) -> str:
    h = random_chars(seed, 32, "0123456789abcdef")
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def generated_name(env: Environment, logical_id: str, max_length: int, *, lowercase: bool = False) -> str:
    """The name CloudFormation gives a resource whose name property is left out.

    CloudFormation documents that it "generates a unique physical ID" from the stack name,
    the logical ID and a random string (CloudFormation Template Reference, "Name type",
    https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-name.html);
    observed names read `<stack>-<logicalId>-<12 random>`, each part cut so the whole fits the
    type's limit (for example `MyStack-MyFunctionServiceRole3C357FF2-vXbXVNkPHGvL`). S3 bucket
    names are lower-cased.
    """
    suffix = random_chars(env.stack_name + "/" + logical_id, 12)
    stack, logical = env.stack_name, logical_id
    budget = max_length - len(suffix) - 2
    if len(stack) + len(logical) > budget:
        stack = stack[: max(budget // 2, budget - len(logical))]
        logical = logical[: budget - len(stack)]
    name = f"{stack}-{logical}-{suffix}"
    return name.lower() if lowercase else name
