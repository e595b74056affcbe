"""Plain-YAML copies of cdk8s charts, for review and GitOps, written next to the cloud assembly.

A chart applied with `cluster.add_cdk8s_chart` may carry CDK tokens (a
generated bucket name, the stack's region) that CloudFormation resolves at
deploy time. A YAML file cannot: every token must be mapped to a named
placeholder such as `${AWS_REGION}` (fill with `envsubst`), and a token left
unmapped fails `cdk synth` before anything is written.

Layout: `<cdk.out>/manifests/<NN>-<chart id>.yaml`, numbered in apply order,
so `kubectl apply -f cdk.out/manifests/` creates the namespace before what
lives in it. Without `charts=`, the export holds every chart its stack applies
through `infra.AppliedChart` (and `infra.ServedModel`), ordered by their
dependencies. The folder is replaced as a whole on every synth: written
beside it, then renamed into place, so a model removed from the app leaves no
stale file and a failed write leaves the previous export as it was.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import cdk8s
import jsii
from constructs import Construct, IConstruct, IValidation

from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.tokens import CDK_TOKEN
from fastload_constructs.infra.applied_chart import AppliedChart
from fastload_constructs.infra.serving_registry import raise_config_error

DEFAULT_DIRECTORY = "manifests"


def applied_charts(scope: IConstruct) -> list[cdk8s.Chart]:
    """Every chart applied under `scope`, in an order that respects the manifests' dependencies.

    Kahn's algorithm over `node.dependencies` (a dependency on anything inside
    another application counts as one on it), ties kept in construct order.
    """
    found = [c for c in scope.node.find_all() if isinstance(c, AppliedChart)]
    paths = [c.node.path for c in found]

    def owner(dep: IConstruct) -> int | None:
        path = dep.node.path
        for i, prefix in enumerate(paths):
            if path == prefix or path.startswith(prefix + "/"):
                return i
        return None

    needs: list[set[int]] = []
    for i, app in enumerate(found):
        deps = [*app.node.dependencies, *app.manifest.node.dependencies]
        needs.append({o for d in deps if (o := owner(d)) is not None and o != i})
    order: list[int] = []
    while len(order) < len(found):
        ready = [i for i in range(len(found)) if i not in order and needs[i] <= set(order)]
        if not ready:  # a cycle: CDK refuses it at synth anyway; keep construct order
            ready = [i for i in range(len(found)) if i not in order]
        order.append(ready[0])
    return [found[i].chart for i in order]


_PLACEHOLDER = re.compile(r"^\$\{[A-Z][A-Z0-9_]*\}$")


def substitute_tokens(docs: Sequence[Any], placeholders: Mapping[str, str], where: str = "chart") -> list[Any]:
    """`docs` with each mapped token replaced by its placeholder; raises if any token remains.

    Keys of `placeholders` are token strings (e.g. `stack.region`), values
    `${NAME}` placeholders. Pure: works on the JSON a chart renders.
    """
    for token, placeholder in placeholders.items():
        require(
            isinstance(token, str) and CDK_TOKEN.fullmatch(token) is not None,
            "placeholders",
            token,
            "keys that are CDK string tokens (e.g. Stack.of(self).region)",
        )
        require(
            isinstance(placeholder, str) and bool(_PLACEHOLDER.match(placeholder)),
            f"placeholders[{token}]",
            placeholder,
            "a placeholder such as '${AWS_REGION}'",
        )

    def walk(value: Any, path: str) -> Any:
        if isinstance(value, dict):
            return {k: walk(v, f"{path}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, f"{path}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, str):
            for token, placeholder in placeholders.items():
                value = value.replace(token, placeholder)
            left = CDK_TOKEN.search(value)
            if left:
                raise FastloadConfigError(
                    path,
                    left.group(0),
                    "a concrete value, or a token mapped to a ${NAME} placeholder in ManifestExport(placeholders=...)",
                )
        return value

    return [walk(doc, f"{where}/{doc.get('kind', '?')}/{doc.get('metadata', {}).get('name', '?')}") for doc in docs]


def render_chart(chart: cdk8s.Chart, placeholders: Mapping[str, str]) -> str:
    """One chart as multi-document YAML, tokens substituted."""
    docs = substitute_tokens(json.loads(json.dumps(chart.to_json())), placeholders, chart.node.id)
    return cdk8s.Yaml.stringify(*docs)


@jsii.implements(IValidation)
class _TokensResolve:
    def __init__(self, export: ManifestExport) -> None:
        self._export = export

    def validate(self) -> list[str]:
        errors = []
        try:
            self._export.render()
        except FastloadConfigError as exc:
            errors.append(f"manifest export: {exc}")
        if self._export._charts is None:
            self._export.warn_unexported()
        targets = [t for e in exports_in(self._export.node.root) for t in e.targets()]
        clashes = sorted({t for t in targets if targets.count(t) > 1} & set(self._export.targets()))
        if clashes:
            errors.append(
                f"manifest export: {clashes[0]} is written by more than one ManifestExport; give each its own directory"
            )
        return errors


class ManifestExport(Construct):
    """Declares charts to write as YAML under `<assembly>/<directory>/` when the app is synthesised.

    CDK has no Python hook into file synthesis, so writing is done by
    `synth_with_manifests(app)` (the reference app's `main` uses it) after
    `app.synth()`; the token check runs as a construct validation, so an
    unmapped token fails synthesis before the assembly is written.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        charts: Sequence[cdk8s.Chart] | None = None,
        placeholders: Mapping[str, str] | None = None,
        directory: str = DEFAULT_DIRECTORY,
    ) -> None:
        """`charts`: the charts to write, in this order. Default: every chart the
        stack applies through an `AppliedChart`, found at synth, in apply order."""
        super().__init__(scope, id)
        if charts is not None:
            require(len(charts) > 0, "charts", charts, "at least one cdk8s Chart")
            _check_distinct(charts)
        require(
            bool(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", directory)), "directory", directory, "a single folder name"
        )
        self._charts = tuple(charts) if charts is not None else None
        self.placeholders = dict(placeholders or {})
        self.directory = directory
        self.node.add_validation(_TokensResolve(self))

    @property
    def charts(self) -> tuple[cdk8s.Chart, ...]:
        if self._charts is not None:
            return self._charts
        found = tuple(applied_charts(cdk.Stack.of(self)))
        _check_distinct(found)
        return found

    def warn_unexported(self) -> None:
        """A synth warning for each manifest of the stack applied without an AppliedChart (not exported)."""
        stack = cdk.Stack.of(self)
        applied = [c.manifest.node.path for c in stack.node.find_all() if isinstance(c, AppliedChart)]
        for c in stack.node.find_all():
            if c.node.path in applied or type(c).__name__ != "KubernetesManifest":
                continue
            cdk.Annotations.of(self).add_warning_v2(
                "fastload:manifestNotExported",
                f"{c.node.path} is applied to the cluster but not exported to YAML: apply its chart with "
                "infra.AppliedChart (or ServedModel.add_chart) to have it in the export",
            )

    def file_names(self) -> list[str]:
        return [f"{i:02d}-{chart.node.id}.yaml" for i, chart in enumerate(self.charts, start=1)]

    def targets(self) -> list[str]:
        return [f"{self.directory}/{name}" for name in self.file_names()]

    def render(self) -> dict[str, str]:
        """{file name: YAML} for every chart."""
        names = self.file_names()
        return {name: render_chart(chart, self.placeholders) for name, chart in zip(names, self.charts, strict=True)}

    def write(self, assembly_dir: str | Path) -> list[Path]:
        """Replace `<assembly_dir>/<directory>` with exactly this export's files.

        Rendered first, written into a temporary folder beside the target, then
        swapped in by renames: a render or write error leaves the previous
        folder untouched, and files of charts no longer exported disappear.
        """
        folder = Path(assembly_dir) / self.directory
        files = self.render()
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{self.directory}-", dir=folder.parent))
        old: Path | None = None
        try:
            for name, text in files.items():
                (staging / name).write_text(text)
            if folder.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{self.directory}-old-", dir=folder.parent))
                os.replace(folder, old / self.directory)
            os.replace(staging, folder)
        except BaseException:
            if old is not None and not folder.exists():  # put the previous export back
                os.replace(old / self.directory, folder)
            shutil.rmtree(staging, ignore_errors=True)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return [folder / name for name in files]


def _check_distinct(charts: Sequence[cdk8s.Chart]) -> None:
    ids = [c.node.id for c in charts]
    require(len(set(ids)) == len(ids), "charts", ids, "charts with distinct ids (one file each)")


def exports_in(root: IConstruct) -> list[ManifestExport]:
    return [c for c in root.node.find_all() if isinstance(c, ManifestExport)]


def synth_with_manifests(app: cdk.App) -> Any:
    """`app.synth()`, then every ManifestExport in the app writes its YAML into the assembly folder."""
    try:
        assembly = app.synth()  # validations (tokens, file clashes, served-model clashes) run here, before writing
    except RuntimeError:
        raise_config_error(app)  # a clash among the served models: its own one line, as any bad input
        raise
    for export in exports_in(app):
        export.write(assembly.directory)
    return assembly
