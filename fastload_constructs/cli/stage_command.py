"""`fastload stage`: validate a model folder, upload what is missing, write the manifest last."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

import click

from fastload_constructs.cli.s3_options import s3_options
from fastload_constructs.cli.signals import terminate_as_interrupt
from fastload_constructs.core.errors import require
from fastload_constructs.core.s3_uri import parse_s3_uri

if TYPE_CHECKING:
    from fastload_constructs.s3.staging import UploadPlan


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
    "--delete-stale",
    is_flag=True,
    help="Delete objects under the prefix that are not in LOCAL_DIR (vLLM would load old shards).",
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
    uploaded; hashes each file while it uploads; skips objects already there with
    the same size and SHA-256 (without reading files a local record already
    hashed, unless --verify); writes fastload-manifest.json only after every
    upload succeeded. Re-run to resume.
    """
    from fastload_constructs.cli.progress import progress_bar
    from fastload_constructs.s3.client import upload_clients
    from fastload_constructs.s3.staging import validate_model_folder
    from fastload_constructs.s3.uploader import transfer_config, upload_model

    location = parse_s3_uri(s3_uri)
    _require_directory(local_dir)
    config = transfer_config(concurrency=concurrency, chunk_size_mib=chunk_size_mib)
    model = validate_model_folder(local_dir, allow_bin=allow_bin, follow_symlinks=follow_symlinks)
    client, bodies = upload_clients(endpoint_url=endpoint_url, region=region, max_connections=concurrency)
    hashing = progress_bar("hashing", enabled=progress, leave=False)
    bar = progress_bar("uploading", enabled=progress)

    def show_plan(plan: UploadPlan) -> None:
        hashing.close()
        bar.reset(total=plan.upload_bytes)
        for name in plan.stale:
            if delete_stale:
                verb = "deleting" if yes else "would delete"
                click.echo(f"{verb} {location.key(name)}: not in {local_dir}", err=True)
            else:
                click.echo(
                    f"warning: {location.key(name)} is under the prefix but not in {local_dir} "
                    "(--delete-stale removes it)",
                    err=True,
                )

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
    click.echo(
        f"model: {model.profile.shard_count} shards, {model.profile.total_bytes} bytes, "
        f"{model.profile.dtype}, {model.profile.parameter_count} parameters"
    )
    click.echo(f"manifest: {result.manifest_uri}")
    if result.aborted_uploads:
        click.echo(f"aborted {result.aborted_uploads} multipart uploads an earlier, interrupted stage left open")


def _require_directory(local_dir: str) -> None:
    """A path the OS refuses to stat (too long, a NUL byte, no permission) is bad input, not a crash."""
    try:
        is_dir = stat.S_ISDIR(os.stat(local_dir).st_mode)
    except (OSError, ValueError):
        is_dir = False
    require(is_dir, "model_dir", local_dir, "an existing directory")
