"""Decide what staging a Hugging Face model folder to S3 means, before any upload.

Validation runs first and in full (config, shards, headers, index, no pickles),
so a folder that vLLM could not load never reaches the bucket. It reads only
headers: file contents are hashed later, while they upload, or not at all when
a local record already knows a file's hash. The upload plan and the manifest
are pure functions of the local files and what S3 already holds, which is what
makes a re-run resume instead of starting over.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from fastload_constructs.core.access.revisions import POINTER_NAME, REVISION_ID, REVISIONS_FOLDER
from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.model import ModelProfile, read_local_shard
from fastload_constructs.core.naming import STAGE_MANIFEST_NAME

# Formats that unpickle on load: they can run code, and vLLM's streamer cannot read them.
PICKLED_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
INDEX_SUFFIX = ".safetensors.index.json"
MANIFEST_VERSION = 1
_HASH_BLOCK = 8 * 1024 * 1024


@dataclass(frozen=True)
class LocalFile:
    """One file to stage: its key name relative to the prefix, where it is, its size, and its SHA-256.

    `sha256` is None until known (read from the local record, hashed, or computed while
    uploading); `mtime_ns` and `inode` tell whether a recorded hash still describes the file.
    """

    name: str
    path: Path
    size: int
    sha256: str | None = None
    mtime_ns: int = 0
    inode: int = 0

    def with_sha256(self, sha256: str) -> LocalFile:
        return replace(self, sha256=sha256)


@dataclass(frozen=True)
class LocalModel:
    """A validated model folder: every file to stage and the profile of its weights."""

    root: Path
    files: tuple[LocalFile, ...]
    profile: ModelProfile

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    def with_files(self, files: tuple[LocalFile, ...]) -> LocalModel:
        return replace(self, files=files)


def sha256_of(path: Path, on_bytes: Callable[[int], None] | None = None) -> str:
    """Hex SHA-256 of a file, read in blocks (reports progress through `on_bytes`)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_HASH_BLOCK):
            digest.update(block)
            if on_bytes:
                on_bytes(len(block))
    return digest.hexdigest()


# S3 keys are UTF-8 up to 1024 bytes; the node copy and vLLM need names a POSIX path round-trips.
MAX_KEY_BYTES = 1024


def check_name(relative: str, prefix_bytes: int = 0) -> None:
    """Refuse a file name that S3 or the node-local copy cannot round-trip, before anything is uploaded."""
    try:
        encoded = relative.encode("utf-8")
    except UnicodeEncodeError:  # os.walk hands undecodable bytes back as lone surrogates
        raise FastloadConfigError(
            "model_dir", relative.encode("utf-8", "surrogateescape"), "file names that are valid UTF-8"
        ) from None
    bad = sorted({c for c in relative if ord(c) < 32 or ord(c) == 127 or c == "\\"})
    require(not bad, "model_dir", relative, "file names without control characters or backslashes")
    require(
        len(encoded) + prefix_bytes <= MAX_KEY_BYTES,
        "model_dir",
        relative,
        f"file names whose S3 key (prefix included) is at most {MAX_KEY_BYTES} bytes",
    )


def _hf_blobs(root: Path) -> Path | None:
    """The Hugging Face cache's blobs/ folder when `root` is one of its snapshots/<revision> folders."""
    resolved = root.resolve()
    if resolved.parent.name == "snapshots" and (resolved.parent.parent / "blobs").is_dir():
        return resolved.parent.parent / "blobs"
    return None


def _link_target(root: Path, path: Path, follow_symlinks: bool, blobs: Path | None) -> None:
    """A symlink is staged as the file it points at if that stays inside the model (or its HF blobs)."""
    target = path.resolve()
    relative = path.relative_to(root).as_posix()
    require(target.exists(), "model_dir", relative, "symlinks that point at an existing file (this one dangles)")
    inside = target.is_relative_to(root.resolve()) or (blobs is not None and target.is_relative_to(blobs))
    require(
        inside or follow_symlinks,
        "model_dir",
        f"{relative} -> {target}",
        "symlinks inside the model folder or into the Hugging Face cache's blobs/ (or pass --follow-symlinks)",
    )


def _files_to_stage(root: Path, follow_symlinks: bool = False) -> list[tuple[str, Path]]:
    """Every regular file under `root` by relative POSIX name, skipping hidden entries and old manifests.

    Symlinks are read through when they stay in the folder, or point into the Hugging Face
    cache's `blobs/` from a `snapshots/<revision>` folder (its normal layout); anything else
    needs `follow_symlinks`. A linked directory is descended only with `follow_symlinks`.
    """
    found = []
    blobs = _hf_blobs(root)
    seen_dirs: set[Path] = set()
    for directory, subdirs, names in os.walk(root, followlinks=follow_symlinks):
        real = Path(directory).resolve()
        if real in seen_dirs:  # a link loop, followed
            subdirs[:] = []
            continue
        seen_dirs.add(real)
        kept = []
        for d in sorted(subdirs):
            if d.startswith("."):
                continue
            link = Path(directory, d)
            if link.is_symlink():
                require(
                    follow_symlinks,
                    "model_dir",
                    f"{link.relative_to(root).as_posix()} -> {link.resolve()}",
                    "real directories (a linked directory needs --follow-symlinks)",
                )
            kept.append(d)
        subdirs[:] = kept
        for name in sorted(names):
            path = Path(directory, name)
            relative = path.relative_to(root).as_posix()
            if name.startswith(".") or relative == STAGE_MANIFEST_NAME:
                continue
            if path.is_symlink():
                _link_target(root, path, follow_symlinks, blobs)
            if not path.is_file():
                continue
            check_name(relative)
            found.append((relative, path))
    return found


def _tensor_names(path: Path) -> set[str]:
    """The tensor names a (header-validated) safetensors file declares."""
    with path.open("rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(length))
    return {name for name in header if name != "__metadata__"}


def check_index(index_path: Path, shards: list[Path]) -> None:
    """The index's weight_map must name exactly the shards present, each tensor in the shard declaring it."""
    field = f"model.index[{index_path.name}]"
    try:
        index = json.loads(index_path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FastloadConfigError(field, str(exc), "a JSON object with a weight_map") from exc
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    require(
        isinstance(weight_map, dict)
        and bool(weight_map)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in weight_map.items()),
        field + ".weight_map",
        weight_map,
        "a non-empty object mapping tensor names to shard file names",
    )
    assert isinstance(weight_map, dict)
    present = {p.name: p for p in shards}
    referenced = set(weight_map.values())
    missing = sorted(referenced - present.keys())
    require(not missing, field + ".weight_map", missing, "shard files present in the folder")
    unreferenced = sorted(present.keys() - referenced)
    require(
        not unreferenced,
        field + ".weight_map",
        unreferenced,
        "every *.safetensors file in the folder listed in the index (vLLM loads them all)",
    )
    for shard_name, path in sorted(present.items()):
        declared = _tensor_names(path)
        expected = {t for t, f in weight_map.items() if f == shard_name}
        absent = sorted(expected - declared)
        require(not absent, f"{field}.weight_map", absent[:5], f"tensors that {shard_name} declares")
        unlisted = sorted(declared - expected)
        require(not unlisted, f"{field}.weight_map", unlisted[:5], f"entries mapping these tensors to {shard_name}")


def validate_model_folder(
    path: str | os.PathLike[str],
    *,
    allow_bin: bool = False,
    on_hash_bytes: Callable[[int], None] | None = None,
    hash_files: bool = False,
    follow_symlinks: bool = False,
) -> LocalModel:
    """Check a Hugging Face style folder; raises FastloadConfigError on the first problem.

    Only headers, config.json and the index are read. `hash_files` also hashes every file
    (reporting progress through `on_hash_bytes`); `fastload stage` does not, it hashes while uploading.
    """
    root = Path(path)
    require(root.is_dir(), "model_dir", str(path), "an existing directory")
    config = root / "config.json"
    require(config.is_file(), "model_dir", str(path), "a Hugging Face model folder with config.json")
    try:
        parsed = json.loads(config.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FastloadConfigError("model.config.json", str(exc), "a JSON object") from exc
    require(isinstance(parsed, dict), "model.config.json", type(parsed).__name__, "a JSON object")

    entries = _files_to_stage(root, follow_symlinks)
    pickled = [name for name, _ in entries if name.endswith(PICKLED_SUFFIXES)]
    require(
        allow_bin or not pickled,
        "model_dir",
        pickled[:5],
        "safetensors weights only; pickled files (.bin, .pt, .pth, .ckpt, .pkl) need --allow-bin",
    )
    shards = [p for name, p in entries if name.endswith(".safetensors") and "/" not in name]
    require(bool(shards), "model_dir", str(path), "a folder holding *.safetensors shards at its top level")
    profile = ModelProfile.from_shards([read_local_shard(p) for p in shards], name=root.resolve().name)
    indexes = [p for name, p in entries if name.endswith(INDEX_SUFFIX) and "/" not in name]
    for index in indexes:
        check_index(index, shards)

    files = []
    for name, p in entries:
        st = p.stat()
        sha = sha256_of(p, on_hash_bytes) if hash_files else None
        files.append(LocalFile(name, p, st.st_size, sha, st.st_mtime_ns, st.st_ino))
    return LocalModel(root=root, files=tuple(files), profile=profile)


@dataclass(frozen=True)
class RemoteState:
    """An object already under the prefix: its size, the SHA-256 fastload recorded (None if unknown), its ETag."""

    size: int
    sha256: str | None
    etag: str = ""


@dataclass(frozen=True)
class UploadPlan:
    """Which files to upload, which are already in place, and stale objects no local file explains."""

    upload: tuple[LocalFile, ...]
    skip: tuple[LocalFile, ...]
    stale: tuple[str, ...]

    @property
    def upload_bytes(self) -> int:
        return sum(f.size for f in self.upload)


def plan_upload(model: LocalModel, remote: dict[str, RemoteState]) -> UploadPlan:
    """Skip a file only when S3 holds the same size and the same recorded SHA-256."""
    upload: list[LocalFile] = []
    skip: list[LocalFile] = []
    for f in model.files:
        there = remote.get(f.name)
        same = there is not None and f.sha256 is not None and there.size == f.size and there.sha256 == f.sha256
        (skip if same else upload).append(f)
    local = {f.name for f in model.files} | {STAGE_MANIFEST_NAME, POINTER_NAME}
    # A sub-prefix with a manifest of its own is another staged model (models/x/v2/...): never stale.
    nested = {n[: -len(STAGE_MANIFEST_NAME)] for n in remote if n.endswith("/" + STAGE_MANIFEST_NAME)}
    stale = tuple(
        sorted(
            name
            for name in remote
            if name not in local and not any(name.startswith(d) for d in nested) and not _in_a_revision(name)
        )
    )
    return UploadPlan(tuple(upload), tuple(skip), stale)


def _in_a_revision(name: str) -> bool:
    """`revisions/<id>/...`: a revision's object, complete or still being written; never stale."""
    folder, _, rest = name.partition("/")
    revision, _, inner = rest.partition("/")
    return folder == REVISIONS_FOLDER and REVISION_ID.fullmatch(revision) is not None and inner != ""


def build_manifest(model: LocalModel, uri: str, etags: dict[str, str] | None = None) -> dict[str, object]:
    """The manifest object: what was staged, so readers can check it without touching the weights.

    Each file carries its SHA-256 and, when known, the ETag S3 gave the object: a re-run
    whose listing shows the same ETag knows the object's hash without reading anything.
    """
    missing = [f.name for f in model.files if f.sha256 is None]
    if missing:
        raise ValueError(f"manifest needs every file's sha256; unknown for {missing[:5]}")
    etags = etags or {}
    p = model.profile
    return {
        "fastload_manifest_version": MANIFEST_VERSION,
        "model_uri": uri,
        "name": p.name,
        "dtype": p.dtype,
        "parameter_count": p.parameter_count,
        "weights_bytes": p.total_bytes,
        "largest_tensor_bytes": p.largest_tensor_bytes,
        "shards": [s.name for s in p.shards],
        "files": [
            {"name": f.name, "size": f.size, "sha256": f.sha256, **({"etag": etags[f.name]} if f.name in etags else {})}
            for f in model.files
        ],
    }
