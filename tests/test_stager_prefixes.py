"""Stager grants of many models: coarser folders one level at a time, never the compile cache or the bucket."""

from __future__ import annotations

from fastload_constructs.core.access.stager_prefixes import coarser, outermost


def test_outermost_keeps_first_seen_order_and_drops_repeats_and_nested_prefixes():
    assert outermost(["models/b", "models/a/x", "models/b", "models/a", "models/ab"]) == (
        "models/b",
        "models/a",
        "models/ab",
    )


def test_coarser_lifts_the_deepest_prefixes_one_folder_at_a_time():
    prefixes = ("models/meta/llama-8b", "models/meta/llama-70b", "models/qwen", "other/m")
    first = coarser(prefixes)
    assert first == ("models/meta", "models/qwen", "other/m")
    assert coarser(first) == ("models", "other")  # type: ignore[arg-type]
    assert coarser(("models", "other")) is None  # the next level is the whole bucket


def test_a_folder_holding_the_compile_cache_is_never_granted():
    assert coarser(("models/a", "models/b"), apart_from=("models/cache",)) is None
    assert coarser(("shared/a/x",), apart_from=("shared",)) is None  # the cache's own folder or one inside it
    assert coarser(("models/a", "models/b"), apart_from=("compile-cache",)) == ("models",)
