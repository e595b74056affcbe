"""`fastload image-cache`: the commands that build the image-cache snapshot (core.cluster.image_cache).

Prints what the builder instance runs (format the volume, pull the images into containerd's `k8s.io`
namespace on it, unmount); docs/gpu-nodes.md "Image cache snapshot" gives the whole job around it (launch, run,
snapshot, Fast Snapshot Restore, `fastload:imageCacheSnapshotId`). With `--node-script`, prints the
user-data part a node runs instead (what the EC2NodeClass and the launch template carry).
"""

from __future__ import annotations

import click

from fastload_constructs.core.cluster.image_cache import builder_script, mount_script
from fastload_constructs.core.errors import FastloadConfigError, spelled_as
from fastload_constructs.core.settings import renamed


@click.command("image-cache")
@click.option("--image", "images", multiple=True, help="An image to cache (repeatable), e.g. vllm/vllm-openai:v0.34.0.")
@click.option("--platform", default="linux/amd64", show_default=True, help="Image platform to pull.")
@click.option("--node-script", is_flag=True, help="Print the node's mount script instead of the builder's commands.")
def image_cache_command(images: tuple[str, ...], platform: str, node_script: bool) -> None:
    """Print the builder commands for an EBS snapshot holding the vLLM image (or the node's mount script)."""
    if node_script:
        click.echo(mount_script(), nl=False)
        return
    if not images:
        raise FastloadConfigError("--image", "none", "one or more --image references, e.g. vllm/vllm-openai:v0.34.0")
    with spelled_as(renamed({"images": "--image", "platform": "--platform"}, "flag")):
        script = builder_script(list(images), platform=platform)
    click.echo(script, nl=False)
