"""`fastload stage` (revision layout) and `fastload revisions` end to end, and the collection rules."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.access.revisions import (
    POINTER_NAME,
    RevisionInfo,
    choose_collection,
    first_pointer,
    new_revision_id,
)
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.runtime import revision as pod_revision
from tests.hf_model_factory import write_hf_model

T0 = datetime(2026, 12, 3, 10, 0, tzinfo=timezone.utc)
HOUR = timedelta(hours=1)


def rev(hour: int, complete: bool = True) -> RevisionInfo:
    return RevisionInfo(new_revision_id(T0 + hour * HOUR, f"{hour:08x}"), complete, T0 + hour * HOUR)


def test_collection_never_takes_the_current_pinned_newest_or_recent():
    a, b, c, d, e = rev(0), rev(1), rev(2), rev(3, complete=False), rev(4)
    pointer = first_pointer(b.revision, T0 + HOUR, pinned=True).switched_to(b.revision, T0, pinned=True)
    now = T0 + 100 * HOUR
    chosen = choose_collection([a, b, c, d, e], pointer, now, keep=1, grace_s=3600)
    assert chosen.keep == {b.revision: "pinned, current", e.revision: "the newest besides the current one (--keep 1)"}
    assert chosen.delete == (a.revision, c.revision, d.revision)  # oldest first; the incomplete one too
    # Within the grace period everything written recently stays, whatever `keep` says.
    assert choose_collection([a, b, c, d, e], pointer, e.last_written, keep=0, grace_s=3600).delete == (
        a.revision,
        c.revision,
        d.revision,
    )
    recent = choose_collection([a, b, c, d, e], pointer, T0 + 4.5 * HOUR, keep=0, grace_s=2 * 3600)
    assert d.revision in recent.keep and e.revision in recent.keep and recent.delete == (a.revision, c.revision)


def test_a_revision_that_stopped_being_current_waits_out_the_grace():
    a, b = rev(0), rev(1)
    pointer = first_pointer(a.revision, T0).switched_to(b.revision, T0 + 50 * HOUR, pinned=False)
    chosen = choose_collection([a, b], pointer, T0 + 50.5 * HOUR, keep=0, grace_s=3600)
    assert "pods may still be loading it" in chosen.keep[a.revision] and chosen.delete == ()
    assert choose_collection([a, b], pointer, T0 + 52 * HOUR, keep=0, grace_s=3600).delete == (a.revision,)


@pytest.mark.parametrize("keep, grace", [(-1, 0), (True, 0), (1, -5), (1, "1h")])
def test_collection_settings_are_checked(keep, grace):
    with pytest.raises(FastloadConfigError):
        choose_collection([], None, T0, keep=keep, grace_s=grace)


def test_a_revision_folder_in_a_uri_is_recognised():
    rid = new_revision_id(T0, "0123abcd")
    assert rid == "20261203T100000Z-0123abcd"
    # The pods read a configuration pinned to a revision folder as that revision; other prefixes name none.
    assert pod_revision.revision_of_prefix(f"models/m/revisions/{rid}") == rid
    assert pod_revision.revision_of_prefix("models/m") == pod_revision.UNVERSIONED
    assert pod_revision.revision_of_prefix("revisions/x") == pod_revision.UNVERSIONED
    with pytest.raises(FastloadConfigError):
        new_revision_id(T0, "xyz")


def _run(server, *argv):
    return main([*argv, "--endpoint-url", server.url])


def _out(capsys):
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_stage_then_list_pin_rollback_and_gc_from_the_command_line(s3_server, tmp_path, capsys):
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/models/tiny"
    model = tmp_path / "tiny"
    write_hf_model(model)
    assert _run(s3_server, "stage", str(model), uri, "--no-progress") == 0
    out = _out(capsys)
    assert "uploaded 5 files" in out and "published: pods that start from now on load" in out
    first = out.split("revision: ")[1].split()[0]

    (model / "tokenizer.json").write_text('{"v": 2}')
    assert _run(s3_server, "stage", str(model), uri, "--no-progress", "--no-publish") == 0
    out = _out(capsys)
    assert "copied 4 unchanged files server-side" in out and "not published (--no-publish)" in out
    second = out.split("revision: ")[1].split()[0]
    assert _run(s3_server, "revisions", "list", uri) == 0
    lines = {line.split()[0]: line for line in _out(capsys).splitlines()[1:]}
    assert lines[first].split()[1] == "complete" and lines[first].endswith("CURRENT")
    assert lines[second].split()[1] == "complete" and "CURRENT" not in lines[second]

    assert _run(s3_server, "revisions", "publish", uri, second) == 0
    assert f"current: {second}" in _out(capsys)
    assert _run(s3_server, "revisions", "rollback", uri) == 0
    assert f"current: {first} (pinned" in _out(capsys)
    pointer = json.loads(s3_server.client().get_object(Bucket=bucket, Key=f"models/tiny/{POINTER_NAME}")["Body"].read())
    assert pointer["revision"] == first and pointer["pinned"] is True

    assert _run(s3_server, "stage", str(model), uri, "--no-progress") == 0  # pinned: staged, not switched
    assert f"not published: the model is pinned to {first}" in _out(capsys)
    assert _run(s3_server, "revisions", "unpin", uri) == 0
    assert "pinned" not in _out(capsys)

    assert _run(s3_server, "revisions", "gc", uri, "--keep", "0", "--grace-hours", "0") == 0
    dry = _out(capsys)
    assert f"would delete {second}" in dry and "add --yes" in dry
    assert _run(s3_server, "revisions", "gc", uri, "--keep", "0", "--grace-hours", "0", "--yes") == 0
    assert f"deleted {second}" in _out(capsys)
    assert _run(s3_server, "revisions", "list", uri) == 0
    assert second not in _out(capsys)


@pytest.mark.parametrize(
    "argv, field",
    [
        (["revisions", "publish", "URI", "../x"], "revision"),
        (["revisions", "gc", "URI", "--keep", "-1"], "--keep"),
        (["revisions", "gc", "URI", "--grace-hours", "-1"], "--grace-hours"),
        (["revisions", "rollback", "URI"], "s3_uri"),
        (["stage", "DIR", "URI", "--delete-stale"], "--delete-stale"),
        (["stage", "DIR", "URI", "--layout", "flat", "--no-publish"], "--no-publish"),
    ],
)
def test_bad_revision_commands_are_one_line(s3_server, tmp_path, capsys, argv, field):
    bucket = s3_server.new_bucket()
    write_hf_model(tmp_path / "m")
    argv = [a.replace("URI", f"s3://{bucket}/m").replace("DIR", str(tmp_path / "m")) for a in argv]
    assert _run(s3_server, *argv, *(["--no-progress"] if argv[0] == "stage" else [])) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fastload: {field}: ") and err.count("\n") == 1 and "Traceback" not in err


def test_a_flat_stage_over_published_revisions_is_refused(s3_server, tmp_path, capsys):
    bucket = s3_server.new_bucket()
    write_hf_model(tmp_path / "m")
    uri = f"s3://{bucket}/m"
    assert _run(s3_server, "stage", str(tmp_path / "m"), uri, "--no-progress") == 0
    capsys.readouterr()
    assert _run(s3_server, "stage", str(tmp_path / "m"), uri, "--no-progress", "--layout", "flat") == 2
    assert "never be read" in capsys.readouterr().err
