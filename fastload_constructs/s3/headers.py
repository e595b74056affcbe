"""Profile a model in S3 from its safetensors headers, with ranged GETs only.

A header is the first few KiB to MiB of a multi-GB shard. Each shard costs one
GET of its first `PREFETCH_BYTES` (which holds the length and usually the
whole header) and, for bigger headers, one more for the rest: never the
tensor data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelArchitecture, ModelProfile, ShardInfo, parse_header
from fastload_constructs.core.naming import STAGE_MANIFEST_NAME
from fastload_constructs.core.s3_uri import S3Location
from fastload_constructs.s3.errors import explained

PREFETCH_BYTES = 64 * 1024


class S3RangeReader:
    """`read(offset, length)` over one S3 object, for `model.parse_header`."""

    def __init__(self, client: Any, bucket: str, key: str, size: int, prefetch: int = PREFETCH_BYTES) -> None:
        self.client, self.bucket, self.key, self.size = client, bucket, key, size
        self.prefetch = prefetch
        self._start = 0
        self._buffer = b""

    def _get(self, offset: int, length: int) -> bytes:
        end = min(offset + length, self.size) - 1
        if end < offset:
            return b""
        response = self.client.get_object(Bucket=self.bucket, Key=self.key, Range=f"bytes={offset}-{end}")
        data: bytes = response["Body"].read()
        return data

    def __call__(self, offset: int, length: int) -> bytes:
        cached_end = self._start + len(self._buffer)
        if self._start <= offset and offset + length <= cached_end:
            return self._buffer[offset - self._start : offset - self._start + length]
        if offset < cached_end and offset >= self._start:  # partly cached: fetch only the rest
            head = self._buffer[offset - self._start :]
            return head + self._get(cached_end, length - len(head))
        self._start, self._buffer = offset, self._get(offset, max(length, self.prefetch))
        return self._buffer[:length]


@dataclass(frozen=True)
class RemoteObject:
    """One object under a model prefix: its name relative to the prefix, size and ETag (unquoted)."""

    name: str
    size: int
    etag: str = ""


def list_prefix(client: Any, location: S3Location) -> list[RemoteObject]:
    """Every object under `location` (recursively), names relative to the prefix."""
    base = location.key("") if location.prefix else ""
    found: list[RemoteObject] = []
    with explained(location.uri):
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=location.bucket, Prefix=base):
            for item in page.get("Contents", []):
                found.append(
                    RemoteObject(item["Key"][len(base) :], int(item["Size"]), str(item.get("ETag", "")).strip('"'))
                )
    return found


def shard_objects(objects: list[RemoteObject], location: S3Location) -> list[RemoteObject]:
    """The top-level *.safetensors objects (what vLLM's runai_streamer loads), or a clear error."""
    if not objects:
        raise FastloadConfigError("s3_uri", location.uri, "a prefix holding a model; no objects exist under it")
    shards = [o for o in objects if o.name.endswith(".safetensors") and "/" not in o.name]
    if not shards:
        sample = ", ".join(sorted(o.name for o in objects)[:5])
        raise FastloadConfigError(
            "s3_uri", location.uri, f"a prefix holding *.safetensors objects (found only: {sample})"
        )
    return sorted(shards, key=lambda o: o.name)


def read_s3_shard(client: Any, location: S3Location, shard: RemoteObject) -> ShardInfo:
    """Parse one shard's header through ranged GETs."""
    reader = S3RangeReader(client, location.bucket, location.key(shard.name), shard.size)
    with explained(f"s3://{location.bucket}/{location.key(shard.name)}"):
        return parse_header(reader, shard.size, shard.name)


@dataclass(frozen=True)
class S3Model:
    """What `inspect` learns about a prefix: the profile, and whether a stage finished there."""

    profile: ModelProfile
    has_manifest: bool
    architecture_note: str | None = None  # why a config.json found gave no architecture


# A config.json is a few KiB; a larger object under that name is not read.
MAX_CONFIG_BYTES = 1_000_000


def read_s3_architecture(client: Any, location: S3Location, objects: list[RemoteObject]) -> ModelArchitecture | None:
    """The architecture from the prefix's config.json (what `plan --config-json` reads), None if there is none.

    Raises FastloadConfigError for a config.json that is too large, not JSON, or lacks the figures.
    """
    config = next((o for o in objects if o.name == "config.json"), None)
    if config is None:
        return None
    uri = f"s3://{location.bucket}/{location.key(config.name)}"
    if config.size > MAX_CONFIG_BYTES:
        raise FastloadConfigError("config.json", uri, f"a config.json of at most {MAX_CONFIG_BYTES:,} bytes")
    with explained(uri):
        body = client.get_object(Bucket=location.bucket, Key=location.key(config.name))["Body"].read()
    try:
        parsed = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FastloadConfigError("config.json", uri, f"valid JSON ({exc})") from None
    return ModelArchitecture.from_config(parsed, field="config.json")


def inspect_s3(client: Any, location: S3Location, with_architecture: bool = False) -> S3Model:
    """Profile the model under `location` from its headers alone (and its config.json if asked)."""
    objects = list_prefix(client, location)
    shards = shard_objects(objects, location)
    infos = [read_s3_shard(client, location, s) for s in shards]
    name = location.prefix.rsplit("/", 1)[-1] or location.bucket
    profile = ModelProfile.from_shards(infos, name=name)
    note = None
    if with_architecture:
        try:
            profile = profile.with_architecture(read_s3_architecture(client, location, objects))
        except FastloadConfigError as exc:  # a config.json without an LLM's figures: a weights-only fit
            note = str(exc)
    has_manifest = any(o.name == STAGE_MANIFEST_NAME for o in objects)
    return S3Model(profile=profile, has_manifest=has_manifest, architecture_note=note)
