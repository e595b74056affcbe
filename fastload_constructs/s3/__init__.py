"""S3 tooling (boto3): stage a model folder (manifest last), read safetensors headers by range.

from fastload_constructs.s3 import s3_client, inspect_s3, upload_model

Names are imported on first use (PEP 562), so importing one light submodule
(`s3.errors`) does not pull in boto3.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "s3_client": "client",
    "metadata_value": "client",
    "S3AccessError": "errors",
    "S3Model": "headers",
    "inspect_s3": "headers",
    "LocalModel": "staging",
    "UploadPlan": "staging",
    "plan_upload": "staging",
    "validate_model_folder": "staging",
    "StageRecord": "stage_record",
    "StageResult": "uploader",
    "upload_model": "uploader",
    "transfer_config": "uploader",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
