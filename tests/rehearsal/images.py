"""Each container's command against what its image provides: a program or module the image lacks fails the pod.

`PROVIDES` is the vendored table: per image repository, what its build files install, each
claim with its source and how it was read. `needs` reads a container's command and arguments
the way the pod will run them: the program (through `sh -c` wrappers), the Python module or
script, and what that script imports (our in-pod scripts need boto3); an engine told to stream
with `--load-format runai_streamer` needs the Run:ai streamer, and its S3 backend
(`runai_model_streamer_s3`, which brings boto3) when the model is an `s3://` URI or the URI
the launcher reads from the resolved revision.

A claim read from build files at another commit than the pinned tag says so (`at`): the
rehearsal takes it, and docs/serving.md names what is not verified at the tag.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Claim:
    provides: frozenset[str]
    source: str  # the build file or metadata the claim was read in
    at: str  # which version of it: "the pinned tag", or the commit and date it was read at


_SHELLS = {"/bin/sh": "sh", "sh": "sh", "/bin/bash": "bash", "bash": "bash"}
# Our in-pod scripts (fastload_constructs/runtime/, mounted under /opt/fastload): the standard library and boto3
# (runtime/_s3.py), whichever step runs.
_OUR_SCRIPTS_DIR = "/opt/fastload/"
# The wrapper's placeholder for the model URI read from the resolved revision (an s3:// URI).
_REVISION_URI = "@fastload-model-uri@"

PROVIDES: dict[str, Claim] = {
    "vllm/vllm-openai": Claim(
        frozenset({"sh", "sleep", "python3", "vllm", "boto3", "runai_model_streamer", "runai_model_streamer_s3"}),
        "https://github.com/vllm-project/vllm/blob/main/docker/Dockerfile (vllm-openai stage: "
        "`uv pip install --system ... boto3 runai-model-streamer runai-model-streamer[s3]`; ENTRYPOINT vllm serve)",
        "the stored main, not the pinned tag",
    ),
    "lmsysorg/sglang": Claim(
        frozenset({"sh", "python3", "sglang", "boto3", "runai_model_streamer", "runai_model_streamer_s3"}),
        "https://github.com/sgl-project/sglang/blob/8905cbd42f4a27dbecad6487cd3904278756fef8/docker/Dockerfile "
        '(framework stage: `"runai-model-streamer[s3,gcs,azure]>=0.15.7"`, added by e15401ee "Add '
        'runai-model-streamer into Python packages installed in Dockerfile" #22537, 2026-04-14); the [s3] extra '
        "is runai-model-streamer-s3, whose setup.py has install_requires=['boto3'] "
        "(https://github.com/run-ai/runai-model-streamer/blob/0.15.9/py/runai_model_streamer_s3/setup.py)",
        "main of 2026-07-20 (8905cbd4), before the v0.5.20-v0.5.23 tags; the Dockerfile at v0.5.23 was not read",
    ),
    "ghcr.io/llm-d-incubation/llm-d-fast-model-actuation/launcher": Claim(
        frozenset({"sh", "python3", "boto3", "launcher", "vllm", "runai_model_streamer", "runai_model_streamer_s3"}),
        "https://github.com/llm-d-incubation/llm-d-fast-model-actuation/tree/v0.6.4 (the launcher image: "
        "FROM vllm/vllm-openai:v0.26.0 plus /app/launcher.py, mode 100755)",
        "the pinned tag",
    ),
    "ghcr.io/llm-d-incubation/llm-d-fast-model-actuation/requester": Claim(
        frozenset(),
        "https://github.com/llm-d-incubation/llm-d-fast-model-actuation/tree/v0.6.4/cmd/requester "
        "(a Go binary run by the image's entrypoint: no command is given)",
        "the pinned tag",
    ),
    "nginx": Claim(
        frozenset({"sh", "nginx"}),
        "https://github.com/nginx/docker-nginx/blob/master/mainline/alpine-slim/Dockerfile (the official image: "
        "nginx in /usr/sbin on PATH, Alpine's busybox sh)",
        "the image's current build file",
    ),
    "registry.k8s.io/kubectl": Claim(
        frozenset({"kubectl"}),
        "https://github.com/kubernetes/kubernetes/blob/master/CHANGELOG/CHANGELOG-1.35.md (the kubectl image among "
        "v1.35.0's container images) and https://github.com/kubernetes/kubernetes/blob/master/build/server-image/"
        "kubectl/Dockerfile (`COPY ${BINARY} /bin/`, ENTRYPOINT /bin/kubectl); no shell in the v1.35 image",
        "the build file on master; the binary's path, /bin/kubectl, as images built from v1.35 tags are copied from",
    ),
    "registry.k8s.io/sig-storage/local-volume-provisioner": Claim(
        frozenset({"sh", "bash", "mount", "mountpoint"}),
        "https://github.com/kubernetes-sigs/sig-storage-local-static-provisioner/blob/"
        "12ed4903a1ff76dc2e9c5d2dddcecb93f1b60286/deployment/docker/Dockerfile (debian-base plus "
        "`clean-install util-linux e2fsprogs bash`)",
        "commit 12ed4903 of the repository",
    ),
}


def repository(image: str, table: Mapping[str, Claim] = PROVIDES) -> str:
    """`repo[:tag][@digest]` -> repo; an ECR pull-through mirror's path keeps the upstream repository."""
    name = image.split("@", 1)[0]
    head, _, tail = name.rpartition(":")
    name = head if head and "/" not in tail else name
    for known in table:
        if name == known or name.endswith("/" + known):
            return known
    return name


def _program(argv: Sequence[str]) -> Iterator[str]:
    """What running `argv` needs: the program, then what a shell wrapper or Python goes on to run."""
    if not argv:
        return
    first = argv[0]
    if first in _SHELLS:
        yield _SHELLS[first]
        if len(argv) >= 3 and argv[1] == "-c":
            rest = list(argv[3:])  # $0, then the positional arguments the script execs ("$@")
            if rest and rest[0] == "fastload-launch":
                rest = rest[1:]
            yield from _program(rest)
        return
    if first in ("python3", "python"):
        yield "python3"
        if len(argv) > 2 and argv[1] == "-m":
            yield argv[2].split(".")[0]
        elif len(argv) > 1 and argv[1].startswith(_OUR_SCRIPTS_DIR) and argv[1].endswith(".py"):
            yield "boto3"
        return
    if first == "/app/launcher.py":
        yield "launcher"
        return
    yield first.rsplit("/", 1)[-1]


def needs(container: Mapping[str, Any]) -> set[str]:
    """Everything `container` runs needs from its image (nothing when it runs the image's own entrypoint)."""
    argv = [*container.get("command", []), *container.get("args", [])]
    found = set(_program(argv))
    if "runai_streamer" in argv:
        found.add("runai_model_streamer")
        if any(a.startswith("s3://") or a == _REVISION_URI for a in argv):
            found.add("runai_model_streamer_s3")
    return found


def problems(containers: Sequence[tuple[str, Mapping[str, Any]]], table: Mapping[str, Claim] = PROVIDES) -> list[str]:
    """`containers`: (where, container) of every init and app container the stack runs."""
    found = []
    for where, container in containers:
        wanted = needs(container)
        if not wanted:
            continue
        repo = repository(str(container.get("image", "")), table)
        claim = table.get(repo)
        if claim is None:
            found.append(f"{where}: image {container.get('image')} has no entry in tests/rehearsal/images.PROVIDES")
            continue
        missing = sorted(wanted - claim.provides)
        if missing:
            found.append(
                f"{where}: runs {missing} that image {container.get('image')} is not known to provide "
                f"({claim.source}, {claim.at})"
            )
    return found
