"""One GPU node in a temporary folder: runs a pod's steps as the kubelet would, and opens files as its server would.

The steps are the ones the charts render: each container's command, run as the pod runs it (the
shipped scripts, standalone, as subprocesses), with its volume mounts mapped onto the node's host
paths: the model cache and the keyed compile-cache folder the hostPath volumes name, the ConfigMap
folder, and one in-memory revision volume per pod.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path, PurePosixPath

from fastload_constructs.core.serving.cache_sharing import (
    COMPILE_CACHE_VOLUME,
    MODEL_CACHE_VOLUME,
    MODEL_MOUNT_PATH,
    REVISION_MOUNT_PATH,
    REVISION_VOLUME,
    SCRIPT_VOLUME,
    SyncContainer,
)
from fastload_constructs.core.serving.runtime_scripts import runtime_scripts
from fastload_constructs.core.serving.server_pod import ServerSpec
from tests.s3_server import TEST_ENV


class Node:
    """One GPU node's host paths; runs a pod's init containers the way kubelet would, in order."""

    def __init__(self, root: Path, spec: ServerSpec, endpoint: str) -> None:
        self.root = root
        self.pods = 0
        self.scripts = root / "configmap"
        self.scripts.mkdir(parents=True)
        for name, text in runtime_scripts().items():
            (self.scripts / name).write_text(text)
        assert spec.model_host_path is not None
        self.host = {
            MODEL_CACHE_VOLUME: root / spec.model_host_path.lstrip("/"),
            SCRIPT_VOLUME: self.scripts,
        }
        if spec.cache_host_path is not None:
            self.host[COMPILE_CACHE_VOLUME] = root / spec.cache_host_path.lstrip("/")
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **TEST_ENV, "AWS_ENDPOINT_URL": endpoint}
        # Where the steps mount each volume: a path a step wrote into a link names the folder as the step saw it.
        self.step_mounts: dict[str, str] = {}

    def _map(self, step: SyncContainer, value: str) -> str:
        for volume, mount in step.mounts:
            if value == mount or value.startswith(mount + "/"):
                return str(self.host[volume]) + value[len(mount) :]
        return value

    def run(self, steps: tuple[SyncContainer, ...]) -> dict[str, str]:
        """{container name: its log}; every step must exit 0, as an init container must.

        One call is one pod (numbered from 1): its in-memory revision volume starts empty."""
        self.pods += 1
        self.host[REVISION_VOLUME] = self.revision_volume(self.pods)
        logs = {}
        for step in steps:
            self.step_mounts.update(step.mounts)
            python, *rest = step.command
            assert python == "python3"
            argv = [sys.executable, *(self._map(step, part) for part in rest)]
            done = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=120, cwd=self.root)
            assert done.returncode == 0, (step.name, done.stderr)
            logs[step.name] = done.stderr
        return logs

    def revision_volume(self, pod: int) -> Path:
        return self.root / f"pod-{pod}-revision"

    def server_file(self, spec: ServerSpec, pod: int, path: str) -> Path:
        """The host file the server container of `pod` opens at `path` when that container (re)starts now.

        Its mounts: the model's own folder of the node's cache (a subPath, which the kubelet resolves on the
        host when the container starts) and the pod's revision volume. Links inside are followed as the
        container sees them."""
        mounts = {REVISION_MOUNT_PATH: self.revision_volume(pod)}
        if spec.model_sub_path is not None:
            mounts[f"{MODEL_MOUNT_PATH}/{spec.model_sub_path}"] = (
                self.host[MODEL_CACHE_VOLUME] / spec.model_sub_path
            ).resolve()
        as_steps_saw = {
            str(self.host[volume]): mount for volume, mount in self.step_mounts.items() if volume in self.host
        }
        return _follow(mounts, path, as_steps_saw)


def _host(mounts: dict[str, Path], path: PurePosixPath) -> Path | None:
    for mount, host in sorted(mounts.items(), key=lambda m: -len(m[0])):
        if str(path) == mount or str(path).startswith(mount + "/"):
            return host / str(path)[len(mount) :].lstrip("/")
    return None


def _container_path(target: str, as_steps_saw: dict[str, str]) -> str:
    """A link a step wrote names a folder as the step's container saw it; the harness ran it on host paths."""
    for host, mount in as_steps_saw.items():
        if target == host or target.startswith(host + "/"):
            return mount + target[len(host) :]
    return target


def _follow(mounts: dict[str, Path], path: str, as_steps_saw: dict[str, str]) -> Path:
    """`path` in a container with `mounts` (container folder -> host folder), every link followed in the container."""
    current, rest, hops = PurePosixPath("/"), list(PurePosixPath(path).parts[1:]), 0
    while rest:
        part = rest.pop(0)
        current = current.parent if part == ".." else current / part
        host = _host(mounts, current)
        if host is not None and host.is_symlink():
            hops += 1
            assert hops < 40, f"{path}: too many links"
            target = PurePosixPath(_container_path(os.readlink(host), as_steps_saw))
            current = PurePosixPath("/") if target.is_absolute() else current.parent
            rest = [*target.parts[1:], *rest] if target.is_absolute() else [*target.parts, *rest]
    found = _host(mounts, current)
    assert found is not None, f"{path} leads to {current}, which the container does not mount"
    return found
