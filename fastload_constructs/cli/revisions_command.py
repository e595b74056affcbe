"""`fastload revisions`: list, publish, pin, roll back and collect a staged model's immutable revisions."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import click

from fastload_constructs.cli.s3_options import s3_options
from fastload_constructs.core.access.revisions import DEFAULT_GRACE_S, DEFAULT_KEEP, check_revision_id
from fastload_constructs.core.errors import require
from fastload_constructs.core.s3_uri import S3Location, parse_s3_uri

if TYPE_CHECKING:
    from fastload_constructs.core.access.revisions import Pointer


def _client(endpoint_url: str | None, region: str | None) -> Any:
    from fastload_constructs.s3.client import s3_client

    return s3_client(endpoint_url=endpoint_url, region=region)


def _said(pointer: Pointer) -> str:
    return f"current: {pointer.revision}" + (" (pinned: stages do not switch it)" if pointer.pinned else "")


@click.group("revisions")
def revisions_command() -> None:
    """List, publish, pin, roll back and collect the revisions of a model staged to S3_URI."""


@revisions_command.command("list")
@click.argument("s3_uri")
@s3_options
def list_command(s3_uri: str, endpoint_url: str | None, region: str | None) -> None:
    """Every revision, oldest first: complete or not, size, and which one pods load."""
    from fastload_constructs.s3.revisions import list_revisions, read_pointer

    location = parse_s3_uri(s3_uri)
    client = _client(endpoint_url, region)
    pointer, _ = read_pointer(client, location)
    found = list_revisions(client, location)
    if not found:
        click.echo(f"{location.uri}: no revisions (stage one with `fastload stage LOCAL_DIR {location.uri}`)")
        return
    stopped = pointer.stopped_being_current() if pointer else {}
    click.echo(f"{'revision':<26} {'state':<11} {'objects':>7} {'bytes':>15}  last written          note")
    for r in found:
        note = ""
        if pointer and r.revision == pointer.revision:
            note = "CURRENT" + (", pinned" if pointer.pinned else "")
        elif r.revision in stopped:
            note = f"current until {stopped[r.revision]:%Y-%m-%d %H:%M}Z"
        state = "complete" if r.complete else "incomplete"
        click.echo(
            f"{r.revision:<26} {state:<11} {r.objects:>7} {r.bytes:>15,}  {r.last_written:%Y-%m-%d %H:%M:%S}Z  {note}"
        )
    if pointer is None:
        click.echo("no revision is published (`fastload revisions publish S3_URI REVISION`)")


@revisions_command.command("publish")
@click.argument("s3_uri")
@click.argument("revision")
@click.option("--pin", is_flag=True, help="Also pin it: later stages write revisions but do not switch to them.")
@s3_options
def publish_command(s3_uri: str, revision: str, pin: bool, endpoint_url: str | None, region: str | None) -> None:
    """Make REVISION the one pods load from now on (pods already started keep theirs)."""
    from fastload_constructs.s3.revisions import publish

    location = parse_s3_uri(s3_uri)
    check_revision_id(revision)
    click.echo(_said(publish(_client(endpoint_url, region), location, revision, pinned=pin)))


@revisions_command.command("pin")
@click.argument("s3_uri")
@click.argument("revision", required=False)
@s3_options
def pin_command(s3_uri: str, revision: str | None, endpoint_url: str | None, region: str | None) -> None:
    """Hold the current revision (or publish REVISION and hold it): stages then leave the pointer alone."""
    from fastload_constructs.s3.revisions import set_pinned

    location = parse_s3_uri(s3_uri)
    if revision is not None:
        check_revision_id(revision)
    click.echo(_said(set_pinned(_client(endpoint_url, region), location, True, revision)))


@revisions_command.command("unpin")
@click.argument("s3_uri")
@s3_options
def unpin_command(s3_uri: str, endpoint_url: str | None, region: str | None) -> None:
    """Let the next stage publish its revision again."""
    from fastload_constructs.s3.revisions import set_pinned

    click.echo(_said(set_pinned(_client(endpoint_url, region), parse_s3_uri(s3_uri), False)))


@revisions_command.command("rollback")
@click.argument("s3_uri")
@s3_options
def rollback_command(s3_uri: str, endpoint_url: str | None, region: str | None) -> None:
    """Publish the revision that was current before this one, pinned (`unpin` when the fix is staged)."""
    from fastload_constructs.s3.revisions import rollback

    click.echo(_said(rollback(_client(endpoint_url, region), parse_s3_uri(s3_uri))))


@revisions_command.command("gc")
@click.argument("s3_uri")
@click.option(
    "--keep",
    type=int,
    default=DEFAULT_KEEP,
    show_default=True,
    help="Complete revisions kept besides the current one, newest first (rollback targets).",
)
@click.option(
    "--grace-hours",
    type=float,
    default=DEFAULT_GRACE_S / 3600,
    show_default=True,
    help="Keep a revision this long after it stopped being current or was last written: longer than your "
    "pods' start-up budget (`fastload plan` prints it), so a pod that resolved it can finish loading.",
)
@click.option("--yes", is_flag=True, help="Delete; without it, only print what would be deleted.")
@s3_options
def gc_command(
    s3_uri: str, keep: int, grace_hours: float, yes: bool, endpoint_url: str | None, region: str | None
) -> None:
    """Delete the revisions no pod can still be using, beyond the KEEP newest (a dry run without --yes)."""
    from fastload_constructs.s3.revisions import collect

    location: S3Location = parse_s3_uri(s3_uri)
    require(keep >= 0, "--keep", keep, "a whole number >= 0")
    require(0 <= grace_hours <= 24 * 365, "--grace-hours", grace_hours, "hours from 0 to 8760")
    chosen = collect(
        _client(endpoint_url, region),
        location,
        keep=keep,
        grace_s=grace_hours * 3600,
        delete=yes,
        now=datetime.now(timezone.utc),
    )
    for revision, why in sorted(chosen.keep.items()):
        click.echo(f"keep    {revision}: {why}")
    verb = "deleted" if yes else "would delete"
    for revision in chosen.delete:
        click.echo(f"{verb} {revision}")
    if chosen.delete and not yes:
        click.echo(f"dry run: {len(chosen.delete)} revisions; add --yes to delete them")
