"""core.serving.standby_primer: the Job that primes a model's standbys, before any rendering."""

from __future__ import annotations

import pytest

from fastload_constructs.core.serving.server_pod import ServerOptions, server_spec
from fastload_constructs.core.serving.standby import standby_spec
from fastload_constructs.core.serving.standby_primer import KUBECTL, PRIMER_AT_REST, primer_digest, primer_job
from tests.serving_plans import planned
from tests.test_standby_manifests import LLAMA_8B


def spec(bucket="models-bucket", standbys=2, **options):
    p = planned(LLAMA_8B, "g6e.2xlarge", model_cache="node-local", standbys=standbys)
    server = server_spec(
        p,
        model_name="llama",
        model_uri=f"s3://{bucket}/models/llama",
        region="us-east-1",
        options=ServerOptions(replicas=None, **options),
    )
    return standby_spec(p, server, standbys=standbys)


def test_the_steps_raise_wait_and_lower_the_primer_in_that_order():
    job = primer_job(spec(standbys=3))
    pod = job.template.spec
    steps = [*pod.init_containers, *pod.containers]
    assert [s.name for s in steps] == ["scale-up", "wait-ready", "scale-down"]
    assert all(s.command is not None and s.command[0] == KUBECTL for s in steps)
    assert [s.command[1] for s in steps if s.command] == ["scale", "wait", "scale"]
    assert "--replicas=3" in (pod.init_containers[0].command or ())
    assert f"--replicas={PRIMER_AT_REST}" in (pod.containers[0].command or ())
    assert job.deployment == "llama-standby" and job.standbys == 3


def test_a_deploy_time_bucket_names_the_same_job_whatever_its_token_number():
    """Token numbering moves between syntheses: a Job renamed on every synth would prime on every deploy."""
    one, other = spec(bucket="${Token[TOKEN.812]}"), spec(bucket="${Token[TOKEN.977]}")
    assert one.launcher_config != other.launcher_config  # the copy step reads the bucket
    assert primer_digest(one) == primer_digest(other)
    assert primer_digest(one) != primer_digest(spec())


@pytest.mark.parametrize("name", ["m", "m" * 40, "m" * 55])
def test_the_job_name_is_a_dns_label_that_keeps_its_digest(name):
    s = spec(name=name)
    job = primer_job(s)
    assert len(job.name) <= 63 and job.name.endswith(primer_digest(s))
    assert job.name[0].isalnum() and "--" not in job.name.replace("-prime-", "")
