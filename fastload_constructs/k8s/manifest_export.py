"""Plain-YAML copies of cdk8s charts, for review and GitOps, written next to the cloud assembly.

A chart applied with `cluster.add_cdk8s_chart` may carry CDK tokens (a
generated bucket name, the stack's region) that CloudFormation resolves at
deploy time. A YAML file cannot: every token must be mapped to a named
placeholder such as `${AWS_REGION}` (fill with `envsubst`), and a token left
unmapped fails `cdk synth` before anything is written.

Layout: `<cdk.out>/manifests/<NN>-<chart id>.yaml`, numbered in the order the
charts were given, so `kubectl apply -f cdk.out/manifests/` creates the
namespace before what lives in it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import cdk8s
import jsii
from constructs import Construct, IConstruct, IValidation

from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.tokens import CDK_TOKEN

DEFAULT_DIRECTORY = "manifests"
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
        charts: Sequence[cdk8s.Chart],
        placeholders: Mapping[str, str] | None = None,
        directory: str = DEFAULT_DIRECTORY,
    ) -> None:
        super().__init__(scope, id)
        require(len(charts) > 0, "charts", charts, "at least one cdk8s Chart")
        ids = [c.node.id for c in charts]
        require(len(set(ids)) == len(ids), "charts", ids, "charts with distinct ids (one file each)")
        require(
            bool(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", directory)), "directory", directory, "a single folder name"
        )
        self.charts = tuple(charts)
        self.placeholders = dict(placeholders or {})
        self.directory = directory
        self.node.add_validation(_TokensResolve(self))

    def file_names(self) -> list[str]:
        return [f"{i:02d}-{chart.node.id}.yaml" for i, chart in enumerate(self.charts, start=1)]

    def targets(self) -> list[str]:
        return [f"{self.directory}/{name}" for name in self.file_names()]

    def render(self) -> dict[str, str]:
        """{file name: YAML} for every chart."""
        names = self.file_names()
        return {name: render_chart(chart, self.placeholders) for name, chart in zip(names, self.charts, strict=True)}

    def write(self, assembly_dir: str | Path) -> list[Path]:
        folder = Path(assembly_dir) / self.directory
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for name, text in self.render().items():
            path = folder / name
            path.write_text(text)
            written.append(path)
        return written


def exports_in(root: IConstruct) -> list[ManifestExport]:
    return [c for c in root.node.find_all() if isinstance(c, ManifestExport)]


def synth_with_manifests(app: cdk.App) -> Any:
    """`app.synth()`, then every ManifestExport in the app writes its YAML into the assembly folder."""
    assembly = app.synth()  # validations (tokens, file clashes) run here, before anything is written
    for export in exports_in(app):
        export.write(assembly.directory)
    return assembly
