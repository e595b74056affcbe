"""The shared naming rules: what each accepts and refuses, and that the field is named."""

from __future__ import annotations

import pytest

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.validation import (
    check_bucket_name,
    check_dns1035_label,
    check_dns_label,
    check_dns_subdomain,
    check_key_prefix,
    check_role_arn,
)

CASES = [
    (check_dns_label, ["a", "9lives", "llama-3-1-8b", "a" * 63], ["", "A", "-a", "a-", "a.b", "a" * 64, 7, None]),
    (check_dns1035_label, ["a", "llama-3-1-8b"], ["9lives", "", "a-", "a_b", "a" * 64, True]),
    (
        check_dns_subdomain,
        ["a", "a.b-c", "default-vllm", ".".join(["a" * 63] * 3)],
        ["", "a..b", ".a", "A.b", "a_b", ".".join(["a" * 63] * 4 + ["a"]), []],
    ),
    (
        check_role_arn,
        [
            "arn:aws:iam::123456789012:role/x",
            "arn:aws-cn:iam::123456789012:role/path/to/name+=,.@-",
            "arn:aws-us-gov:iam::123456789012:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Admin_0123",
        ],
        [
            "arn:aws:iam::12345678901:role/x",
            "arn:aws:iam::123456789012:user/x",
            "arn:aws:iam::123456789012:role/",
            "arn:aws:iam::123456789012:role/" + "a" * 65,
            "arn:aws:iam::123456789012:role/" + "p/" * 300 + "x",
            "arn:aws:iam::123456789012:role/x*",
            "arn:awsx:iam::123456789012:role/x",
            None,
        ],
    ),
    (
        check_bucket_name,
        ["abc", "my.model-bucket", "a" * 63],
        ["ab", "a" * 64, "Abc", "a..b", "192.168.1.1", "xn--abc", "abc-s3alias", "abc--ol-s3", "-abc", 3],
    ),
    (
        check_key_prefix,
        ["models/llama", "a", "models/llama/", "models/meta-llama/Llama-3.1-8B-Instruct", "m/it's_(v2)!", "a" * 512],
        [
            *("", " ", "/models", "a//b", "a/../b", "./a", "a\\b", 1, None, ["models"], "a" * 513),
            # IAM wildcards and policy variables would widen a grant beyond the model.
            *("models/*", "models/ll?ma", "models/${aws:username}", "models/[ab]", "models/{x}", "models/a$"),
            # Characters S3 or a node-local copy may not round-trip.
            *("models/a b", "models/a\nb", "models/\x00", "models/caf\u00e9", "models/a%2Fb", "models/a#b"),
        ],
    ),
]


@pytest.mark.parametrize(("check", "good", "bad"), CASES, ids=[c[0].__name__ for c in CASES])
def test_rule_accepts_and_refuses(check, good, bad):
    for value in good:
        assert check(value, "the_field") == value.rstrip("/")
    for value in bad:
        with pytest.raises(FastloadConfigError) as err:
            check(value, "the_field")
        assert err.value.field == "the_field" and err.value.value == value
