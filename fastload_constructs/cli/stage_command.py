"""`fastload stage`: validate a model folder and stage it as a new immutable revision (or, flat, in place)."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

import click

from fastload_constructs.cli.s3_options import s3_options
from fastload_constructs.cli.signals import terminate_as_interrupt
from fastload_constructs.core.access.revisions import require_model_prefix
from fastload_constructs.core.errors import require, spelled_as
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.core.settings import renamed

if TYPE_CHECKING:
    from fastload_constructs.s3.revisions import RevisionStage
    from fastload_constructs.s3.staging import LocalModel, UploadPlan


@click.command("stage")
@click.argument("local_dir")  # checked by _require_directory: click.Path raises ValueError on a NUL byte
@click.argument("s3_uri")
@click.option("--allow-bin", is_flag=True, help="Also upload pickled weights (.bin, .pt, .pth, ...).")
@click.option("--concurrency", type=int, default=16, show_default=True, help="Parts uploaded in parallel.")
@click.option(
    "--chunk-size-mib",
    type=int,
    default=64,
    show_default=True,
    help="Multipart threshold and part size, MiB (5..5120).",
)
@click.option(
    "--layout",
    type=click.Choice(["revisions", "flat"]),
    default="revisions",
    show_default=True,
    help="revisions: a new immutable revision under S3_URI/revisions/, published by switching "
    "S3_URI/fastload-current.json (what fastload's pods read). flat: the files at S3_URI itself, "
    "overwritten in place (for readers that do not follow the pointer).",
)
@click.option(
    "--publish/--no-publish",
    default=True,
    show_default=True,
    help="Make the new revision the one pods load (`fastload revisions publish` does it later).",
)
@click.option(
    "--delete-stale",
    is_flag=True,
    help="With --layout flat: delete objects under the prefix that are not in LOCAL_DIR (vLLM would load "
    "old shards). A revision holds LOCAL_DIR's files only.",
)
@click.option("--yes", is_flag=True, help="Confirm --delete-stale deletions without asking.")
@click.option(
    "--follow-symlinks",
    is_flag=True,
    help="Stage files behind symlinks that leave LOCAL_DIR (links into a Hugging Face cache's blobs/ need not).",
)
@click.option(
    "--verify",
    is_flag=True,
    help="Re-hash every local file instead of trusting the local record of sizes, mtimes and hashes.",
)
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show progress bars.")
@s3_options
def stage_command(
    local_dir: str,
    s3_uri: str,
    allow_bin: bool,
    concurrency: int,
    chunk_size_mib: int,
    layout: str,
    publish: bool,
    delete_stale: bool,
    yes: bool,
    follow_symlinks: bool,
    verify: bool,
    progress: bool,
    endpoint_url: str | None,
    region: str | None,
) -> None:
    """Stage LOCAL_DIR (a Hugging Face model folder) to S3_URI (s3://bucket/prefix).

    Checks config.json, the safetensors headers and the index before anything is
    uploaded. By default writes a new revision that is never modified afterwards:
    files the current revision already holds are copied server-side, the rest
    uploaded (hashed while they upload), fastload-manifest.json written last, and
    then the revision is published with one conditional write of
    fastload-current.json. Pods resolve the pointer once when they start, so a
    restage never changes bytes under a running or starting pod. Re-run to resume;
    `fastload revisions` lists, pins, rolls back and collects revisions.
    """
    from fastload_constructs.cli.progress import progress_bar
    from fastload_constructs.s3.client import upload_clients
    from fastload_constructs.s3.revisions import stage_revision
    from fastload_constructs.s3.staging import validate_model_folder
    from fastload_constructs.s3.uploader import transfer_config, upload_model

    location = parse_s3_uri(s3_uri)
    require_model_prefix(location.prefix, location.uri)
    require(
        not (delete_stale and layout == "revisions"),
        "--delete-stale",
        "with --layout revisions",
        "--layout flat only (a revision holds exactly LOCAL_DIR's files: nothing is stale)",
    )
    require(
        publish or layout == "revisions",
        "--no-publish",
        "with --layout flat",
        "--layout revisions only (a flat stage is read as soon as its manifest is written)",
    )
    _require_directory(local_dir)
    with spelled_as(renamed({"concurrency": "--concurrency", "chunk_size_mib": "--chunk-size-mib"}, "flag")):
        config = transfer_config(concurrency=concurrency, chunk_size_mib=chunk_size_mib)
    model = validate_model_folder(local_dir, allow_bin=allow_bin, follow_symlinks=follow_symlinks)
    client, bodies = upload_clients(endpoint_url=endpoint_url, region=region, max_connections=concurrency)
    hashing = progress_bar("hashing", enabled=progress, leave=False)
    bar = progress_bar("uploading", enabled=progress)

    def show_plan(plan: UploadPlan) -> None:
        hashing.close()
        bar.reset(total=plan.upload_bytes)
        for name in plan.stale if layout == "flat" else ():
            if delete_stale:
                verb = "deleting" if yes else "would delete"
                click.echo(f"{verb} {location.key(name)}: not in {local_dir}", err=True)
            else:
                click.echo(
                    f"warning: {location.key(name)} is under the prefix but not in {local_dir} "
                    "(--delete-stale removes it)",
                    err=True,
                )

    if layout == "flat":
        from fastload_constructs.s3.errors import explained
        from fastload_constructs.s3.revisions import read_pointer

        with explained(location.uri):  # a missing bucket or credentials named at the URI typed
            client.head_bucket(Bucket=location.bucket)
        require(
            read_pointer(client, location)[0] is None,
            "--layout",
            "flat",
            f"revisions for {location.uri}: it has published revisions (fastload-current.json), which is "
            "what pods load; flat files there would never be read",
        )
    if layout == "revisions":
        copying = progress_bar("copying unchanged files server-side", enabled=progress, leave=False)
        with terminate_as_interrupt(), bar, copying:
            staged = stage_revision(
                client,
                model,
                location,
                body_client=bodies,
                config=config,
                on_bytes=bar.update,
                on_plan=show_plan,
                on_hash_bytes=hashing.update,
                on_copy=lambda _name, size: copying.update(size),
                verify=verify,
                publish_it=publish,
            )
        _report_revision(staged, model, location.uri)
        return
    with terminate_as_interrupt(), bar:  # SIGTERM aborts the open uploads, as Ctrl-C does
        result = upload_model(
            client,
            model,
            location,
            body_client=bodies,
            config=config,
            on_bytes=bar.update,
            on_plan=show_plan,
            on_hash_bytes=hashing.update,
            delete_stale=delete_stale,
            verify=verify,
            confirm_delete=lambda _names: yes,
        )
    plan = result.plan
    click.echo(
        f"uploaded {len(plan.upload)} files ({plan.upload_bytes} bytes); "
        f"skipped {len(plan.skip)} already present with the same size and sha256"
    )
    _describe(model)
    click.echo(f"manifest: {result.manifest_uri}")
    if result.aborted_uploads:
        click.echo(f"aborted {result.aborted_uploads} multipart uploads an earlier, interrupted stage left open")


def _describe(model: LocalModel) -> None:
    click.echo(
        f"model: {model.profile.shard_count} shards, {model.profile.total_bytes} bytes, "
        f"{model.profile.dtype}, {model.profile.parameter_count} parameters"
    )


def _report_revision(staged: RevisionStage, model: LocalModel, uri: str) -> None:
    if staged.unchanged:
        click.echo(f"unchanged: revision {staged.revision} (current) already holds these files; nothing written")
        _describe(model)
        return
    if staged.result is None:
        click.echo("complete already: an earlier run of this stage wrote these files; nothing written")
        _describe(model)
        click.echo(f"revision: {staged.revision} ({staged.revision_uri})")
    else:
        plan = staged.result.plan
        uploaded = len(plan.upload)
        click.echo(
            f"uploaded {uploaded} files ({plan.upload_bytes} bytes); copied {len(staged.copied)} unchanged files "
            f"server-side ({staged.copied_bytes} bytes); skipped {len(plan.skip) - len(staged.copied)} "
            "already in this revision"
        )
        _describe(model)
        click.echo(f"revision: {staged.revision} ({staged.revision_uri})")
        click.echo(f"manifest: {staged.result.manifest_uri}")
    if staged.published:
        click.echo(f"published: pods that start from now on load {staged.revision}")
    elif staged.pinned_elsewhere:
        click.echo(
            f"not published: the model is pinned to {staged.pinned_elsewhere}; "
            f"`fastload revisions publish {uri} {staged.revision}` "
            "switches to this one"
        )
    else:
        click.echo(
            f"not published (--no-publish); `fastload revisions publish {uri} {staged.revision}` makes it current"
        )
    if staged.result is not None and staged.result.aborted_uploads:
        click.echo(f"aborted {staged.result.aborted_uploads} multipart uploads an earlier, interrupted stage left open")


def _require_directory(local_dir: str) -> None:
    """A path the OS refuses to stat (too long, a NUL byte, no permission) is bad input, not a crash."""
    try:
        is_dir = stat.S_ISDIR(os.stat(local_dir).st_mode)
    except (OSError, ValueError):
        is_dir = False
    require(is_dir, "model_dir", local_dir, "an existing directory")
