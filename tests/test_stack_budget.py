"""Served models packed into stacks: each model's footprint bounds what it adds, and packing keeps every stack
within its room, in order."""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

import pytest

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.infra.stack_budget import Footprint, pack, served_model_footprint
from stacks.config import parse_model
from tests.split_models import CDK_JSON, EVERY_FEATURE, model_entry

MODEL = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16")
ROOM = Footprint(20, 100)


def _names(n: int) -> list[str]:
    return [f"fastload:models[{i}]" for i in range(n)]


def test_packing_fills_each_stack_in_order_and_starts_the_next_when_one_is_full():
    sizes = [Footprint(1, 40)] * 7
    assert pack(sizes, first=Footprint(20, 50), then=ROOM, names=_names(7)) == [
        range(0, 1),
        range(1, 3),
        range(3, 5),
        range(5, 7),
    ]
    # Resources bind as well as bytes.
    assert pack([Footprint(8, 1)] * 5, first=ROOM, then=ROOM, names=_names(5)) == [
        range(0, 2),
        range(2, 4),
        range(4, 5),
    ]


def test_a_model_added_at_the_end_never_moves_one_before_it():
    sizes = [Footprint(1, s) for s in (30, 50, 10, 70, 20, 40, 60)]
    before = pack(sizes, first=ROOM, then=ROOM, names=_names(7))
    after = pack([*sizes, Footprint(1, 90)], first=ROOM, then=ROOM, names=_names(8))
    assert after[: len(before) - 1] == before[:-1] and after[len(before) - 1].start == before[-1].start


def test_the_first_stack_may_hold_none_and_a_model_no_stack_holds_is_refused_named():
    assert pack([Footprint(1, 80)], first=Footprint(20, 50), then=ROOM, names=_names(1)) == [range(0, 0), range(0, 1)]
    with pytest.raises(FastloadConfigError) as refused:
        pack([Footprint(1, 10), Footprint(1, 101)], first=ROOM, then=ROOM, names=_names(2))
    assert refused.value.field == "fastload:models[1]" and "\n" not in str(refused.value)


def test_a_footprint_grows_with_what_the_model_applies():
    def footprint(**serving: object) -> Footprint:
        return served_model_footprint(
            plan(MODEL, "g6e.2xlarge", TuningOptions(serving=Serving(**serving))),  # type: ignore[arg-type]
            name="m",
            autoscaled=False,
        )

    plain, spares = footprint(), footprint(warm_spares=1)
    standbys = footprint(standbys=1, model_cache="node-local")
    assert plain.template_bytes < spares.template_bytes < standbys.template_bytes
    assert spares.resources == plain.resources + 1
    p = plan(MODEL, "g6e.2xlarge")
    short = served_model_footprint(p, name="m", autoscaled=True)
    assert short.resources == plain.resources + 1
    longer = served_model_footprint(p, name="m" * 40, autoscaled=True, extra_args=("--tokenizer-mode", "x" * 500))
    assert longer.template_bytes > short.template_bytes + 40 * 50 + 500


# --- each footprint bounds what the reference app measures --------------------------------------------------

PROFILES = {
    "plain": {},
    "both caches": dict(sharedCompileCache=True, nodeLocalModelCache=True),
    "autoscaled with warm spares and both caches": EVERY_FEATURE,
    "SGLang, autoscaled with warm spares and both caches": dict(EVERY_FEATURE, engine="sglang"),
    "a long name and long extra arguments": dict(
        EVERY_FEATURE, name="m" * 48, extraArgs=["--tokenizer-mode", "a" * 1000]
    ),
    "standby engines": dict(standbys=2, minReplicas=1, maxReplicas=3, nodeLocalModelCache=True),
    "capacity buffer": dict(EVERY_FEATURE, bufferedNodes=2),
}


def _base_stack(models: list[dict[str, object]]) -> tuple[int, int]:
    from app import build_app

    ctx = {**copy.deepcopy(CDK_JSON), "fastload:models": models}
    stack = build_app(ctx, outdir=tempfile.mkdtemp()).synth().get_stack_by_name("FastloadReference")
    return len(stack.template["Resources"]), Path(stack.template_full_path).stat().st_size


@pytest.mark.slow
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_models_footprint_bounds_what_it_adds_to_the_reference_stack_with_little_room_to_spare(profile):
    """The stack with the model, less the stack without it; the first model turns on every shared object (KEDA,
    the PriorityClasses, FMA) so that only the model's own are measured."""
    first = model_entry("first", minReplicas=1, maxReplicas=2, warmSpares=1)
    standing = model_entry("standing", standbys=1, nodeLocalModelCache=True)
    keys = dict(PROFILES[profile])
    name = str(keys.pop("name", "abcd"))
    measured_model = model_entry(name, **keys)
    without = _base_stack([first, standing])
    with_model = _base_stack([first, standing, measured_model])
    measured = Footprint(with_model[0] - without[0], with_model[1] - without[1])
    spec = parse_model(measured_model, 2)
    bound = served_model_footprint(
        spec.serving_plan(), name=name, autoscaled=spec.autoscaled, extra_args=spec.extra_args
    )
    assert measured.resources <= bound.resources <= measured.resources + 1, (measured, bound)
    assert measured.template_bytes <= bound.template_bytes <= 1.7 * measured.template_bytes, (measured, bound)
