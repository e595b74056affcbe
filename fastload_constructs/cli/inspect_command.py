"""`fastload inspect`: a model's profile from its safetensors headers, locally or in S3."""

from __future__ import annotations

import json
from pathlib import Path

import click

from fastload_constructs.cli.output import echo_yaml
from fastload_constructs.cli.plan_command import plan_as_dict
from fastload_constructs.cli.s3_options import s3_options
from fastload_constructs.core.catalog import lookup
from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.model import ModelArchitecture, ModelProfile
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.s3_uri import misspelt_s3_uri, parse_s3_uri


class DoesNotFit(click.ClickException):
    """The model does not fit the instance type asked about: exit status 3, after the report."""

    exit_code = 3

    def show(self, file=None) -> None:  # type: ignore[no-untyped-def]
        click.echo(f"fastload: {self.format_message()}", err=True, file=file)


def profile_as_dict(profile: ModelProfile) -> dict[str, object]:
    """A JSON-ready view of a ModelProfile."""
    return {
        "name": profile.name,
        "total_bytes": profile.total_bytes,
        "total_gib": round(profile.total_gib, 3),
        "dtype": profile.dtype,
        "parameter_count": profile.parameter_count,
        "largest_tensor_bytes": profile.largest_tensor_bytes,
        "shard_count": profile.shard_count,
        "shards": [
            {"name": s.name, "size_bytes": s.size_bytes, "tensors": s.tensor_count, "parameters": s.parameter_count}
            for s in profile.shards
        ],
    }


def fit_verdict(profile: ModelProfile, instance_type: str) -> dict[str, object]:
    """The plan and 'fits', or the reason it does not; an unknown instance type stays an error.

    The planner's own check, as `fastload plan` makes it: with the architecture of config.json
    on the profile, the KV cache for the model's context must fit too.
    """
    lookup(instance_type, field="--instance")
    try:
        return {"fits": True, "verdict": f"fits on {instance_type}", "plan": plan_as_dict(plan(profile, instance_type))}
    except FastloadConfigError as exc:
        return {"fits": False, "verdict": f"does not fit on {instance_type}: {exc}", "plan": None}


@click.command("inspect")
@click.argument("source")
@click.option("--instance", "instance_type", help="Add the ServingPlan and fit verdict for this instance type.")
@click.option(
    "--config-json",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="config.json for the KV-aware fit (default: the one beside the weights, if any).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@s3_options
def inspect_command(
    source: str,
    instance_type: str | None,
    config_json: Path | None,
    as_json: bool,
    endpoint_url: str | None,
    region: str | None,
) -> None:
    """Profile SOURCE (s3://bucket/prefix or a local folder) from its safetensors headers only.

    With --instance, the verdict is `fastload plan`'s: the folder's (or prefix's) config.json,
    when there is one, makes the fit KV-aware. Exits 3 when the model does not fit.
    """
    if instance_type:
        lookup(instance_type, field="--instance")
    # config.json is read only for a verdict, and --config-json replaces the source's own.
    from_source = instance_type is not None and config_json is None
    note = None
    accepted = "an s3://bucket/prefix URI (s3: then two slashes) or a local folder"
    require(not misspelt_s3_uri(source), "source", source, accepted)
    if source.startswith("s3://"):
        from fastload_constructs.s3.client import s3_client
        from fastload_constructs.s3.headers import inspect_s3
        from fastload_constructs.s3.revisions import current_location

        client = s3_client(endpoint_url=endpoint_url, region=region)
        # A model staged in revisions is read where pods read it: the published revision.
        location, revision = current_location(client, parse_s3_uri(source))
        found = inspect_s3(client, location, with_architecture=from_source)
        view: dict[str, object] = {
            "source": source,
            **({"revision": revision} if revision else {}),
            "staged_manifest": found.has_manifest,
            "model": profile_as_dict(found.profile),
        }
        profile, note = found.profile, found.architecture_note
    else:
        profile = ModelProfile.from_directory(source)
        view = {"source": source, "model": profile_as_dict(profile)}
        if from_source and (Path(source) / "config.json").is_file():
            try:
                profile = profile.with_architecture(ModelArchitecture.from_file(source))
            except FastloadConfigError as exc:
                note = str(exc)
    if config_json is not None:
        profile = profile.with_architecture(ModelArchitecture.from_file(config_json))
    if instance_type:
        # Whether config.json made the fit KV-aware (as `plan --config-json`), and why not if it was unusable.
        view["kv_aware_fit"] = profile.architecture is not None
        if note is not None:
            view["kv_aware_fit_skipped"] = f"config.json without the architecture: {note}"
        view.update(fit_verdict(profile, instance_type))
    if as_json:
        click.echo(json.dumps(view, indent=2))
    else:
        echo_yaml(view)
    if view.get("fits") is False:
        raise DoesNotFit(str(view["verdict"]))
