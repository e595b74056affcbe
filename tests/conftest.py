"""Shared test set-up: a supported Node.js for jsii, and small fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fastload_constructs.node_runtime import use_packaged_node  # noqa: E402

use_packaged_node()
