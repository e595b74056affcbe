"""A pod resolves the model's published revision once and reads only that revision to its end."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import cdk8s
import pytest

from fastload_constructs.core.access.revisions import (
    POINTER_NAME,
    Pointer,
    first_pointer,
    parse_pointer,
)
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.core.serving.cache_sharing import (
    LAUNCH_SCRIPT,
    MODEL_URI_PLACEHOLDER,
    REVISION_MOUNT_PATH,
    REVISION_SCRIPT,
    REVISION_URI_FILE,
    REVISION_VOLUME,
)
from fastload_constructs.core.serving.server_pod import ServerOptions, server_spec
from fastload_constructs.k8s.server_chart import ServerChart
from fastload_constructs.runtime import revision as pod_revision
from fastload_constructs.s3 import revisions
from fastload_constructs.s3.client import s3_client
from fastload_constructs.s3.staging import validate_model_folder
from fastload_constructs.s3.uploader import transfer_config
from tests.hf_model_factory import SHARD_1, write_hf_model
from tests.serving_plans import planned

URI = "s3://fastload-test-models/models/llama"
LLAMA = ModelProfile.from_numbers(parameter_count=8_030_261_248)


def spec(model_cache="s3", shared_compile_cache=True, **options):
    p = planned(LLAMA, "g6e.2xlarge", model_cache=model_cache, shared_compile_cache=shared_compile_cache)
    return server_spec(p, model_name="llama", model_uri=URI, region="us-east-1", options=ServerOptions(**options))


# --- the pod's shape ---------------------------------------------------------------------------------


@pytest.mark.parametrize("model_cache", ["s3", "node-local"])
def test_every_step_reads_the_revision_resolved_first(model_cache):
    s = spec(model_cache)
    resolve, *later = s.init_containers
    assert resolve.name == "resolve-revision" and resolve.script == REVISION_SCRIPT
    assert resolve.args[resolve.args.index("--prefix") + 1] == "models/llama"
    for step in (*later, *s.sidecars):
        assert step.args[step.args.index("--revision-dir") + 1] == REVISION_MOUNT_PATH, step.name
        assert (REVISION_VOLUME, REVISION_MOUNT_PATH) in step.mounts, step.name
    # The compile-cache key is the synth-time key; the pod appends its revision (compile_cache --revision-dir).
    assert any(step.name == "restore-compile-cache" for step in later)


def test_an_s3_model_is_handed_to_the_server_from_the_resolved_revision():
    s = spec("s3")
    assert s.model_from_revision and s.args[0] == URI  # the engine's own arguments stay as planned
    assert s.container_command == ("/bin/sh", "-c", LAUNCH_SCRIPT, "fastload-launch")
    assert s.container_args == ("vllm", "serve", MODEL_URI_PLACEHOLDER, *s.args[1:])
    node_local = spec("node-local")  # a stable local path: the copy step resolves, the server does not
    assert not node_local.model_from_revision and node_local.container_command == ("vllm", "serve")


def test_the_chart_mounts_the_revision_read_only_and_in_memory():
    p = planned(LLAMA, "g6e.2xlarge")
    chart = ServerChart(cdk8s.Testing.app(), "llama", plan=p, model_name="llama", model_uri=URI, region="us-east-1")
    (deployment,) = [d for d in cdk8s.Testing.synth(chart) if d["kind"] == "Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes[REVISION_VOLUME]["emptyDir"] == {"medium": "Memory", "sizeLimit": "1Mi"}
    server = pod["containers"][0]
    (mount,) = [m for m in server["volumeMounts"] if m["name"] == REVISION_VOLUME]
    assert mount == {"mountPath": REVISION_MOUNT_PATH, "name": REVISION_VOLUME, "readOnly": True}
    assert pod["initContainers"][0]["name"] == "resolve-revision"


def test_follow_revisions_off_reads_the_uri_as_given():
    s = spec("s3", shared_compile_cache=False, follow_revisions=False)
    assert s.init_containers == () and s.container_args == s.args and s.args[0] == URI
    with pytest.raises(FastloadConfigError) as err:
        ServerOptions(follow_revisions="yes")
    assert err.value.field == "follow_revisions"


@pytest.mark.parametrize(
    "model_uri, expected",
    [
        ("s3://b/models/m/revisions/20261203T101500Z-1a2b3c4d", "s3://b/models/m/revisions/20261203T101500Z-1a2b3c4d"),
        ("s3://b/with space/m", "s3://b/with space/m"),
        ("s3://b/$(HOME)/m", "s3://b/$(HOME)/m"),
    ],
)
def test_the_launcher_hands_the_engine_exactly_the_resolved_uri(tmp_path, model_uri, expected):
    """The launch script, run by a real /bin/sh: the placeholder becomes the file's URI, nothing else moves."""
    uri_file = tmp_path / "model-uri"
    uri_file.write_text(model_uri)
    script = LAUNCH_SCRIPT.replace(REVISION_URI_FILE, str(uri_file))
    argv = ["printf", "%s\\n", "serve", MODEL_URI_PLACEHOLDER, "--x", "a b", "", "--y"]
    done = subprocess.run(["/bin/sh", "-c", script, "fastload-launch", *argv], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:-1] == ["serve", expected, "--x", "a b", "", "--y"]
    uri_file.unlink()
    missing = subprocess.run(["/bin/sh", "-c", script, "fastload-launch", *argv], capture_output=True, text=True)
    assert missing.returncode != 0 and "serve" not in missing.stdout  # no model, no server
    uri_file.write_text("")
    empty = subprocess.run(["/bin/sh", "-c", script, "fastload-launch", *argv], capture_output=True, text=True)
    assert empty.returncode == 1 and empty.stdout == ""


# --- the pointer, read the same way by the CLI and by the pod ------------------------------------------

T0 = datetime(2026, 12, 3, 10, 0, tzinfo=timezone.utc)
GOOD = first_pointer("20261203T100000Z-0a1b2c3d", T0).to_json()
BODIES = {
    "good": GOOD,
    "switched": first_pointer("20261203T100000Z-0a1b2c3d", T0)
    .switched_to("20261203T110000Z-0a1b2c3e", T0, pinned=True)
    .to_json(),
    "not json": b"{",
    "a list": b"[]",
    "other version": json.dumps({**json.loads(GOOD), "fastload_pointer_version": 2}).encode(),
    "traversal": json.dumps({**json.loads(GOOD), "revision": "../../other-model"}).encode(),
    "no revision": json.dumps({k: v for k, v in json.loads(GOOD).items() if k != "revision"}).encode(),
}


@pytest.mark.parametrize("case", sorted(BODIES))
def test_the_pod_and_the_cli_accept_and_refuse_the_same_pointers(case):
    body = BODIES[case]
    try:
        cli: str | None = parse_pointer(body).revision
    except FastloadConfigError:
        cli = None
    try:
        pod: str | None = pod_revision.pointer_revision(body)
    except ValueError:
        pod = None
    assert cli == pod
    assert (cli is not None) == (case in ("good", "switched"))


def test_the_pointer_keeps_its_history_for_rollback():
    p = first_pointer("20261203T100000Z-0a1b2c3d", T0)
    later = p.switched_to("20261203T110000Z-0a1b2c3e", T0.replace(hour=11), pinned=False)
    assert later.previous() == p.revision
    assert later.stopped_being_current() == {p.revision: T0.replace(hour=11)}
    assert parse_pointer(later.to_json()) == later
    assert isinstance(later, Pointer) and later.switched_to(later.revision, T0, pinned=True).history == later.history


# --- resolve-revision against a real S3 server ----------------------------------------------------------


def _loc(bucket):
    return parse_s3_uri(f"s3://{bucket}/models/tiny")


def _stage(server, folder, bucket, **kwargs):
    client = s3_client(endpoint_url=server.url)
    model = validate_model_folder(folder)
    return revisions.stage_revision(client, model, _loc(bucket), config=transfer_config(chunk_size_mib=5), **kwargs)


def _resolve_in_pod(server, bucket, prefix, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,  # the script as the pod runs it: standalone, stdlib and boto3 only
            str(Path(pod_revision.__file__)),
            "--bucket",
            bucket,
            "--prefix",
            prefix,
            "--revision-dir",
            str(out),
            "--endpoint-url",
            server.url,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_pod_keeps_the_revision_it_resolved_while_another_is_published(s3_server, tmp_path):
    bucket = s3_server.new_bucket()
    write_hf_model(tmp_path / "v1")
    first = _stage(s3_server, tmp_path / "v1", bucket)
    pod = tmp_path / "pod"
    done = _resolve_in_pod(s3_server, bucket, "models/tiny", pod)
    assert done.returncode == 0, done.stderr
    assert (pod / "model-uri").read_text() == f"s3://{bucket}/models/tiny/revisions/{first.revision}"

    write_hf_model(tmp_path / "v2")
    data = bytearray((tmp_path / "v2" / SHARD_1).read_bytes())
    data[-1] ^= 1
    (tmp_path / "v2" / SHARD_1).write_bytes(bytes(data))
    second = _stage(s3_server, tmp_path / "v2", bucket)
    # The running pod's resolution stands; what it reads there is still exactly the first revision's bytes.
    resolved_bucket, prefix, revision = pod_revision.read_resolved(pod)
    assert revision == first.revision != second.revision
    body = s3_server.client().get_object(Bucket=resolved_bucket, Key=f"{prefix}/{SHARD_1}")["Body"].read()
    assert body == (tmp_path / "v1" / SHARD_1).read_bytes()
    # Its compile-cache archive is keyed by its revision; a new pod resolves (and keys) the new one.
    assert pod_revision.revision_cache_key("abc", revision) == f"abc-{first.revision}"
    assert _resolve_in_pod(s3_server, bucket, "models/tiny", tmp_path / "pod2").returncode == 0
    assert pod_revision.read_resolved(tmp_path / "pod2")[2] == second.revision


def test_a_flat_stage_and_a_named_revision_are_read_as_they_are(s3_server, tmp_path):
    from fastload_constructs.s3.uploader import upload_model

    bucket = s3_server.new_bucket()
    write_hf_model(tmp_path / "m")
    client = s3_client(endpoint_url=s3_server.url)
    upload_model(client, validate_model_folder(tmp_path / "m"), _loc(bucket), config=transfer_config(chunk_size_mib=5))
    assert pod_revision.resolve_revision(client, bucket=bucket, prefix="models/tiny") == (
        "models/tiny",
        pod_revision.UNVERSIONED,
    )
    assert pod_revision.revision_cache_key("abc", pod_revision.UNVERSIONED) == "abc"  # flat keys are unchanged

    staged = _stage(s3_server, tmp_path / "m", bucket)
    named = f"models/tiny/revisions/{staged.revision}"
    assert pod_revision.resolve_revision(client, bucket=bucket, prefix=named) == (named, staged.revision)


def test_nothing_staged_or_a_collected_revision_fails_the_pod_with_the_reason(s3_server, tmp_path):
    bucket = s3_server.new_bucket()
    done = _resolve_in_pod(s3_server, bucket, "models/none", tmp_path / "pod")
    assert done.returncode == 1 and "no staged model" in done.stderr
    assert not (tmp_path / "pod" / "model-uri").exists()

    write_hf_model(tmp_path / "m")
    staged = _stage(s3_server, tmp_path / "m", bucket)
    client = s3_server.client()
    client.delete_object(Bucket=bucket, Key=f"models/tiny/revisions/{staged.revision}/fastload-manifest.json")
    done = _resolve_in_pod(s3_server, bucket, "models/tiny", tmp_path / "pod")
    assert done.returncode == 1 and "collected or unfinished" in done.stderr

    client.put_object(Bucket=bucket, Key=f"models/tiny/{POINTER_NAME}", Body=BODIES["traversal"])
    done = _resolve_in_pod(s3_server, bucket, "models/tiny", tmp_path / "pod")
    assert done.returncode == 1 and "no valid revision" in done.stderr
