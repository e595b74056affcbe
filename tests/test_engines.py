"""core/engines: the registry and the engine interface every engine fills in."""

from __future__ import annotations

import inspect
import typing

import pytest

from fastload_constructs.core.engines import DEFAULT_ENGINE, ENGINE_NAMES, ENGINES, engine_named
from fastload_constructs.core.engines.args import check_arg_shape, normalised_flag, prefixed_variables, without_flags
from fastload_constructs.core.engines.base import Engine, release_numbers
from fastload_constructs.core.engines.phases import EngineFigures
from fastload_constructs.core.engines.sglang import SGLANG
from fastload_constructs.core.engines.vllm import VLLM
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.images import image_repository, image_tag

ENGINE_LIST = sorted(ENGINES.values(), key=lambda e: e.name)


def test_the_registry_names_each_engine_once_and_vllm_is_the_default():
    assert ENGINE_NAMES == ("vllm", "sglang")
    assert all(ENGINES[name].name == name for name in ENGINE_NAMES)
    assert DEFAULT_ENGINE is VLLM and engine_named("sglang") is SGLANG
    with pytest.raises(TypeError):
        ENGINES["tgi"] = VLLM  # type: ignore[index]  # read-only: engines are added in the registry's source


@pytest.mark.parametrize("name", ["tgi", "", None, 1, " vllm"])
def test_an_unknown_engine_is_refused_naming_the_field_and_the_engines(name):
    with pytest.raises(FastloadConfigError) as caught:
        engine_named(name, "models[0].engine")
    assert caught.value.field == "models[0].engine" and caught.value.accepted == "one of vllm, sglang"


def test_an_engine_is_found_by_its_name_in_any_case():
    assert engine_named("VLLM") is VLLM and engine_named("SGLang") is SGLANG


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=lambda e: e.name)
def test_every_engine_sets_every_member_of_the_interface(engine):
    hints = typing.get_type_hints(Engine)
    for member in hints:
        assert hasattr(engine, member), f"{engine.name} lacks {member}"
        value = getattr(engine, member)
        if member != "api_key_env":  # the one member that may be None
            assert value is not None and value != "" and value != (), f"{engine.name}.{member}"
    assert not inspect.isabstract(type(engine))
    assert issubclass(engine.figures_type, EngineFigures) and engine.default_figures == engine.figures_type()


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=lambda e: e.name)
def test_engines_differ_where_the_pod_needs_them_to(engine):
    others = [e for e in ENGINE_LIST if e is not engine]
    for other in others:
        assert engine.container_name != other.container_name
        assert engine.stock_repository != other.stock_repository
        assert engine.cache_mount_path != other.cache_mount_path
    # Same metric keys, so a model's scalingMetric means the same thing for either engine.
    assert set(engine.scaling_metrics) == set(VLLM.scaling_metrics)
    # Its default image is pinned, from its own repository, tagged with its default release.
    assert image_tag(engine.default_image) == f"v{engine.default_release}"
    assert image_repository(engine.default_image) == engine.stock_repository
    engine.check_release(engine.default_release, "release")


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=lambda e: e.name)
def test_extra_args_name_the_engines_own_flags(engine):
    flag = engine.managed_flags[0]
    with pytest.raises(FastloadConfigError) as caught:
        engine.check_extra_args(["--enable-prefix-caching", f"{flag}=x"], "models[0].extraArgs")
    error = caught.value
    assert error.field == "models[0].extraArgs[1]" and error.value == f"{flag}=x"
    assert error.accepted.startswith(f"{engine.display_name} flags other than ")
    for own in engine.managed_flags:
        assert own in error.accepted
    for other in ENGINE_LIST:
        for foreign in set(other.managed_flags) - set(engine.managed_flags):
            assert foreign not in error.accepted.split(" or ")[0].split(", "), (engine.name, foreign)


def test_a_vllm_only_flag_is_refused_for_vllm_and_passes_for_sglang_and_the_reverse():
    assert "-tp" in VLLM.managed_flags and "--mem-fraction-static" in SGLANG.managed_flags
    with pytest.raises(FastloadConfigError, match="vLLM flags other than --model, "):
        VLLM.check_extra_args(["-tp", "2"])
    assert SGLANG.check_extra_args(["-tp", "2"]) == ("-tp", "2")  # not an SGLang flag: SGLang itself refuses it
    with pytest.raises(FastloadConfigError, match="SGLang flags other than --model-path, "):
        SGLANG.check_extra_args(["--mem-fraction-static", "0.5"])
    assert VLLM.check_extra_args(["--mem-fraction-static", "0.5"]) == ("--mem-fraction-static", "0.5")


def test_only_an_engine_whose_parser_takes_prefixes_refuses_them():
    assert SGLANG.sets_managed_flag("--tp") and SGLANG.sets_managed_flag("--mem_fraction=0.5")
    assert not SGLANG.sets_managed_flag("--t")  # too short to be taken as a prefix
    assert not VLLM.sets_managed_flag("--tensor-parallel")  # vLLM's parser: exact names only
    assert VLLM.sets_managed_flag("--tensor_parallel_size=2") and VLLM.sets_managed_flag("-q")


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=lambda e: e.name)
@pytest.mark.parametrize(
    ("value", "field"),
    [("--flag", "extra_args"), (["--ok", ""], "extra_args"), (["value-first"], "extra_args"), ([7], "extra_args")],
)
def test_the_shape_of_extra_args_is_the_same_for_every_engine(engine, value, field):
    with pytest.raises(FastloadConfigError) as caught:
        engine.check_extra_args(value)
    assert caught.value.field == field


def test_another_engines_figures_are_refused():
    with pytest.raises(FastloadConfigError) as caught:
        VLLM.figures(SGLANG.default_figures)
    assert caught.value.field == "assumptions.engine_figures.vllm" and caught.value.accepted == "VllmFigures"
    assert SGLANG.figures(SGLANG.default_figures) == SGLANG.default_figures


@pytest.mark.parametrize(
    ("version", "numbers"), [("0.34.0", (0, 34)), ("v0.8.5", (0, 8)), ("0.11.0rc1", (0, 11)), ("1.2", (1, 2))]
)
def test_release_numbers(version, numbers):
    assert release_numbers(version, "release", "a release") == numbers


@pytest.mark.parametrize("version", ["latest", "", "1", None, 0.5, "0.x"])
def test_what_is_no_release_is_refused(version):
    with pytest.raises(FastloadConfigError) as caught:
        SGLANG.check_release(version, "serving.engine_release")
    assert caught.value.field == "serving.engine_release" and "SGLang" in caught.value.accepted


def test_flags_are_read_as_the_parsers_read_them():
    assert normalised_flag("--max_num_seqs=64") == "--max-num-seqs"
    assert normalised_flag("-tp=2") == "-tp" and normalised_flag("-O3") == "-O3"
    assert check_arg_shape(["--a", "1"]) == ("--a", "1") and check_arg_shape(()) == ()


def test_without_flags_drops_each_flag_with_its_value_in_either_spelling():
    args = ["m", "--x", "1", "--drop", "v", "--drop=w", "--keep", "--dropped-not"]
    assert without_flags(args, ("--drop",)) == ["m", "--x", "1", "--keep", "--dropped-not"]
    env = {"VLLM_B": "2", "VLLM_A": "1", "VLLM_CACHE_ROOT": "/c", "AWS_REGION": "r"}
    assert list(prefixed_variables(env, "VLLM_", ("VLLM_CACHE_ROOT",)).items()) == [("VLLM_A", "1"), ("VLLM_B", "2")]


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=lambda e: e.name)
def test_serving_takes_the_engines_default_image_and_refuses_another_engines_stock_image(engine):
    from fastload_constructs.core.planning.serving import Serving

    serving = Serving(engine=engine.name)
    assert serving.image == engine.default_image and serving.engine_version == engine.default_release
    for other in ENGINE_LIST:
        if other is engine:
            continue
        with pytest.raises(FastloadConfigError) as caught:
            Serving(engine=engine.name, image=f"docker.io/{other.default_image}")
        assert caught.value.field == "image" and f"{other.stock_repository} is {other.display_name}'s" in (
            caught.value.accepted
        )


def test_what_is_derived_from_the_registry_names_every_engine():
    from fastload_constructs.core.scaling.autoscaling import SCALING_METRICS, Autoscaling
    from fastload_constructs.core.scaling.metrics import SERVER_APP_NAMES
    from fastload_constructs.core.serving.plan_record import PlanRecord

    assert SERVER_APP_NAMES.split("|") == list(ENGINE_NAMES)
    for engine in ENGINE_LIST:
        assert set(engine.scaling_metrics) == set(SCALING_METRICS)
        for metric in SCALING_METRICS:
            assert Autoscaling(metric=metric, engine=engine.name).prometheus_metric == engine.scaling_metrics[metric]
        record = PlanRecord("1.0", "g6e.2xlarge", 1, {}, {}, engine=engine.name)
        assert record.engine_name == engine.display_name
    # A record of an engine this version does not know keeps the name it was written with.
    assert PlanRecord("1.0", "g6e.2xlarge", 1, {}, {}, engine="tgi").engine_name == "tgi"


def test_a_third_engine_takes_its_launch_facts_from_its_launch_module():
    """Adding an engine is one module: its class names the module, and every launch constant arrives from it."""
    import types

    from fastload_constructs.core.engines.base import LAUNCH_CONSTANTS

    module = types.SimpleNamespace(**{constant: f"{constant} of tgi" for constant in LAUNCH_CONSTANTS.values()})

    class TgiEngine(type(VLLM), launch=module):  # type: ignore[misc]
        name = "tgi"

    tgi = TgiEngine()
    assert {a: getattr(tgi, a) for a in LAUNCH_CONSTANTS} == {a: f"{c} of tgi" for a, c in LAUNCH_CONSTANTS.items()}
    for engine in ENGINE_LIST:  # the registered engines read theirs the same way
        launch = inspect.getmodule(type(engine)).launch  # type: ignore[union-attr]
        assert all(getattr(engine, a) == getattr(launch, c) for a, c in LAUNCH_CONSTANTS.items())
    assert VLLM.port == 8000  # a subclass's module does not change its parent's
