"""Which prefixes the stagers of many models are granted: each model's own, or fewer, coarser folders.

A stager granted a model prefix adds its own statements to the model bucket's policy, and S3 refuses a
bucket policy over 20 KB: one stager fits about eleven model prefixes. A hundred models are granted
their common folders instead (`models/a/x`, `models/a/y` and `models/b/z` become `models/a` and `models/b`,
then `models`), one folder level at a time, only as far as the policy needs. Stagers already stage
every one of those models, so the folders add only keys no model reads yet; never a folder that holds the
compile cache (pods load what is there: a stager must not write it) and never the whole bucket.
"""

from __future__ import annotations

from collections.abc import Sequence

from fastload_constructs.core.validation import check_key_prefix


def _inside(prefix: str, folder: str) -> bool:
    return prefix == folder or prefix.startswith(folder + "/")


def outermost(prefixes: Sequence[str]) -> tuple[str, ...]:
    """The distinct prefixes that lie in no other one, in first-seen order."""
    unique = tuple(dict.fromkeys(check_key_prefix(p) for p in prefixes))
    return tuple(p for p in unique if not any(o != p and _inside(p, o) for o in unique))


def coarser(prefixes: Sequence[str], *, apart_from: Sequence[str] = ()) -> tuple[str, ...] | None:
    """`prefixes` one folder level coarser: the deepest replaced by their parent folders, those then inside
    another dropped. None when no coarser grant is allowed: a deepest prefix is a top-level folder (its parent
    is the whole bucket), or a parent would hold or lie inside one of `apart_from`."""
    deepest = max(p.count("/") for p in prefixes)
    if deepest == 0:
        return None
    lifted = [p.rsplit("/", 1)[0] if p.count("/") == deepest else p for p in prefixes]
    if any(_inside(a, p) or _inside(p, a) for p in lifted for a in apart_from):
        return None
    return outermost(lifted)
