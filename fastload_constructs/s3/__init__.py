"""S3 tooling (boto3): stage a model folder (manifest last), read safetensors headers by range.

from fastload_constructs.s3 import s3_client, inspect_s3, upload_model
"""

from fastload_constructs.s3.client import s3_client
from fastload_constructs.s3.errors import S3AccessError
from fastload_constructs.s3.headers import S3Model, inspect_s3
from fastload_constructs.s3.staging import LocalModel, UploadPlan, plan_upload, validate_model_folder
from fastload_constructs.s3.uploader import StageResult, stage_model, transfer_config

__all__ = [
    "LocalModel",
    "S3AccessError",
    "S3Model",
    "StageResult",
    "UploadPlan",
    "inspect_s3",
    "plan_upload",
    "s3_client",
    "stage_model",
    "transfer_config",
    "validate_model_folder",
]
