"""Clean-up after stages that were killed: the multipart uploads they left open.

A stage interrupted by SIGINT or SIGTERM aborts its uploads itself. One killed outright
(SIGKILL, a lost machine) cannot: its uploads stay open, invisible in listings, billed
for their parts. Every upload a stage starts is saved in the local stage record before
its first part, and forgotten once completed or aborted; a later successful stage of the
same folder to the same URI aborts whatever is still recorded. Listing the bucket's
uploads would find them from any machine, but ListBucketMultipartUploads cannot be
confined to one prefix (no `s3:prefix` condition key), so the stager role does not get
it; uploads started elsewhere are left to the bucket's lifecycle rule
(AbortIncompleteMultipartUpload, `infra/model_bucket.py`).
"""

from __future__ import annotations

from typing import Any

from fastload_constructs.core.s3_uri import S3Location
from fastload_constructs.s3.errors import error_code
from fastload_constructs.s3.stage_record import StageRecord

# Answers meaning the upload is gone already (completed, aborted, or expired by a lifecycle rule).
_GONE = {"NoSuchUpload", "404", "NotFound"}


def abort_recorded_uploads(client: Any, location: S3Location, record: StageRecord) -> int:
    """Abort every upload under `location` the record still holds; returns how many were aborted.

    Called after the manifest is written, when none of this run's own uploads is open. A
    failure here never fails the stage (the model is staged); the upload stays recorded
    for the next run.
    """
    aborted = 0
    for upload_id, key in sorted(record.pending_for(location.uri).items()):
        try:
            client.abort_multipart_upload(Bucket=location.bucket, Key=key, UploadId=upload_id)
            aborted += 1
        except Exception as exc:
            if error_code(exc) not in _GONE:
                continue
        record.forget_pending(location.uri, upload_id)
    record.save()
    return aborted
