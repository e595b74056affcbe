"""Priming a model's standbys with no hand step: a Job raises the primer to N requesters, waits until every one is
Ready, and lowers it to 0 again.

Why a primer at all: FMA v0.6.4 starts an engine only for a requester bound to a launcher, and puts an engine to
sleep only when its requester goes (llm-d-incubation/llm-d-fast-model-actuation@v0.6.4
pkg/controller/dual-pods/inference-server.go: a requester absent or being deleted -> `ensureUnbound` -> POST
`/sleep`, retried until it succeeds); a LauncherPopulationPolicy makes launchers, never engines. So N requesters
must hold the standby GPUs until their engines are awake, then go: FMA's own tests do it with `kubectl scale
rs --replicas=0` (test/e2e/test-cases.sh, "Scale requester to 0 to create sleeping instances").

How: the primer Deployment `<model>-standby` rests at 0 replicas in the manifest (a re-applied manifest never
leaves requesters holding woken standbys). The Job's three steps, kubectl alone each (the image has no shell),
in order: scale the primer to N, wait until N of its requesters are Ready (FMA relays Ready only while the
bound engine is awake), scale it to 0. A failed step fails the pod and the Job retries from the start (both
scales are idempotent). The Job is named by a hash of what the standbys are made of (the
InferenceServerConfig, the LauncherConfig, the population policy, the primer's template and N): re-applied
unchanged it is left alone, finished; changed (FMA then deletes the obsolete sleepers) it is a new Job that
primes again, and the old one, gone from the manifest, is pruned by the cluster's `kubectl apply --prune`.
Pure: no cdk8s; `k8s/standby.py` renders it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from fastload_constructs.core.serving.pod_template import (
    Container,
    EmptyDir,
    Mount,
    PodSpec,
    PodTemplate,
    Resources,
    SecurityContext,
)
from fastload_constructs.core.serving.standby import StandbySpec
from fastload_constructs.core.tokens import stable

# registry.k8s.io/kubectl is published with each Kubernetes release (CHANGELOG/CHANGELOG-1.35.md of
# kubernetes/kubernetes, "Container Images": registry.k8s.io/kubectl:v1.35.0); the binary is /bin/kubectl
# and there is no shell. 1.35 is the stack's default cluster version: kubectl supports one minor either way.
KUBECTL_VERSION = "v1.35.0"
KUBECTL_IMAGE = f"registry.k8s.io/kubectl:{KUBECTL_VERSION}"
KUBECTL = "/bin/kubectl"
# A first prime launches a standby node, pulls FMA's launcher image (vLLM) and loads and compiles the model:
# the plan's fresh-node path, minutes. An hour per try leaves room for a slow pull; then the Job retries.
PRIME_TIMEOUT_S = 3600
PRIME_RETRIES = 3
# kubectl's own footprint (a Go binary watching one object); a user with no home: its cache goes to an emptyDir.
KUBECTL_CPU_MILLIS = 50
KUBECTL_MEMORY_MIB = 128
KUBECTL_UID = 65532
KUBECTL_HOME = "/home/kubectl"
HOME_VOLUME = "kubectl-home"
HOME_MIB = 16
# The primer Deployment's replicas in the manifest: none hold a GPU but while the Job primes.
PRIMER_AT_REST = 0
DIGEST_CHARS = 10
MAX_NAME = 63  # the Job's name is a label value on its pods


@dataclass(frozen=True)
class PrimerJob:
    """The Job that primes `deployment` (the primer) to `standbys` and back to 0, as `service_account_name`."""

    name: str
    deployment: str
    standbys: int
    service_account_name: str
    role_name: str
    retries: int
    template: PodTemplate


def primer_digest(spec: StandbySpec) -> str:
    """A hash of what the standbys are made of; deploy-time values (tokens) count as a fixed marker."""
    parts = (spec.isc, spec.launcher_config, spec.population_policy, spec.primer_template, spec.standbys)
    return hashlib.sha256(stable(repr(parts)).encode()).hexdigest()[:DIGEST_CHARS]


def _kubectl(name: str, spec: StandbySpec, *args: str) -> Container:
    memory = f"{KUBECTL_MEMORY_MIB}Mi"
    return Container(
        name=name,
        image=KUBECTL_IMAGE,
        command=(KUBECTL, *args, f"deployment/{spec.primer_name}", f"--namespace={spec.namespace}"),
        env={"HOME": KUBECTL_HOME},
        resources=Resources(requests={"cpu": f"{KUBECTL_CPU_MILLIS}m", "memory": memory}, limits={"memory": memory}),
        mounts=(Mount(HOME_VOLUME, KUBECTL_HOME),),
        security=SecurityContext(read_only_root_filesystem=True, run_as_user=KUBECTL_UID),
    )


def primer_job(spec: StandbySpec) -> PrimerJob:
    """The Job that primes `spec`'s standbys."""
    suffix = f"-prime-{primer_digest(spec)}"
    name = f"{spec.primer_name[: MAX_NAME - len(suffix)].rstrip('-')}{suffix}"
    account = f"{spec.name}-standby-primer"
    n = spec.standbys
    pod = PodSpec(
        service_account_name=account,
        automount_service_account_token=True,  # kubectl calls the API as this account
        init_containers=(
            _kubectl("scale-up", spec, "scale", f"--replicas={n}"),
            _kubectl(
                "wait-ready",
                spec,
                "wait",
                f"--for=jsonpath={{.status.readyReplicas}}={n}",
                f"--timeout={PRIME_TIMEOUT_S}s",
            ),
        ),
        containers=(_kubectl("scale-down", spec, "scale", "--replicas=0"),),
        volumes=(EmptyDir(HOME_VOLUME, size_limit=f"{HOME_MIB}Mi"),),
    )
    labels = {**spec.labels, "app.kubernetes.io/component": "standby-primer-job"}
    return PrimerJob(
        name=name,
        deployment=spec.primer_name,
        standbys=n,
        service_account_name=account,
        role_name=account,
        retries=PRIME_RETRIES,
        template=PodTemplate(labels=labels, annotations={}, spec=pod),
    )
