"""Each setting is declared once (core.settings) and errors name what the user typed, when raised."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from fastload_constructs.core.catalog import INSTANCE_TYPE
from fastload_constructs.core.errors import MISSING, FastloadConfigError, example, mention, spelled_as
from fastload_constructs.core.model import MODEL_BYTES, MODEL_DTYPE, MODEL_PARAMETERS
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.scaling.autoscaling import Autoscaling
from fastload_constructs.core.serving.server_pod import ServerOptions
from fastload_constructs.core.settings import (
    SETTING,
    Flag,
    Key,
    flag_spelling,
    key_spelling,
    renamed,
    settings_of,
)

OPTIONS = (TuningOptions, Serving, ServerOptions, Autoscaling)
EVERY = (
    INSTANCE_TYPE,
    MODEL_PARAMETERS,
    MODEL_BYTES,
    MODEL_DTYPE,
    *(s for cls in OPTIONS for s in settings_of(cls)),
)


@pytest.mark.parametrize("cls", OPTIONS, ids=lambda c: c.__name__)
def test_every_field_of_the_options_is_a_setting(cls):
    assert all(SETTING in f.metadata for f in dataclasses.fields(cls)), cls.__name__


def test_each_key_and_flag_names_one_setting_and_a_front_end_setting_says_what_it_does():
    keys = [s.key.name for s in EVERY if s.key] + [s.key.former for s in EVERY if s.key and s.key.former]
    flags = [s.flag.option for s in EVERY if s.flag] + [s.flag.former for s in EVERY if s.flag and s.flag.former]
    assert len(keys) == len(set(keys)) and len(flags) == len(set(flags))
    assert len({s.path for s in EVERY}) == len(EVERY)
    for s in EVERY:
        if s.key or s.flag:
            assert s.doc and s.accepted, s.name


def test_every_default_passes_its_own_check():
    for cls in OPTIONS:
        for s in settings_of(cls):
            field = next(f for f in dataclasses.fields(cls) if f.name == s.name)
            default = field.default_factory() if field.default is dataclasses.MISSING else field.default  # type: ignore[misc]
            assert s.check(default, s.path) == default, s.name


def test_a_setting_reads_each_front_ends_value_and_names_the_name_given():
    (cache,) = (s for s in settings_of(Serving) if s.name == "model_cache")
    assert cache.read_key(True, "k") == "node-local" and cache.read_key(False, "k") == "s3"
    assert cache.read_text("LOCAL", "--source") == "node-local"
    with pytest.raises(FastloadConfigError) as err:
        cache.read_key("yes", "fastload:models[0].nodeLocalModelCache")
    assert err.value.field == "fastload:models[0].nodeLocalModelCache"
    (spares,) = (s for s in settings_of(Serving) if s.name == "warm_spares")
    assert spares.read_text("3", "--warm-spares") == 3
    with pytest.raises(FastloadConfigError) as err:
        spares.read_text("x", "--warm-spares")
    assert (err.value.field, err.value.value) == ("--warm-spares", "x")


def test_an_options_error_names_the_field_as_the_active_front_end_writes_it():
    settings = settings_of(Serving)
    sglang_image = "lmsysorg/sglang:v0.5.23"
    for spelling, field, words in (
        (None, "image", "use engine='sglang'"),
        (key_spelling(settings, "fastload:models[2]"), "fastload:models[2].image", 'use "engine": "sglang"'),
        (flag_spelling(settings), "--image", "use --engine sglang"),
    ):
        with pytest.raises(FastloadConfigError) as err:
            if spelling is None:
                Serving(image=sglang_image)
            else:
                with spelled_as(spelling):
                    Serving(image=sglang_image)
        assert err.value.field == field and words in err.value.accepted
    with spelled_as(flag_spelling(settings)), pytest.raises(FastloadConfigError) as err:
        Serving(standbys=1, warm_spares=1)
    assert err.value.field == "--standbys" and err.value.accepted.startswith("0 with --warm-spares")


def test_a_former_name_typed_is_the_name_errors_give():
    settings = settings_of(Serving)
    spelling = key_spelling(settings, "m", {"serving.engine_release": "vllmVersion"})
    with spelled_as(spelling), pytest.raises(FastloadConfigError) as err:
        Serving(image="vllm/vllm-openai:v0.8.5", engine_release="0.9.0")
    assert err.value.field == "m.vllmVersion"


def test_the_spelling_ends_with_the_build_and_stays_in_its_thread():
    with spelled_as(renamed({"x": "--x"}, "flag")):
        assert FastloadConfigError("x", 1, "a").field == "--x" and mention("x") == "--x"
        assert example("x", 2) == "--x 2" and FastloadConfigError("y", 1, "a").field == "y"
        seen = []
        thread = threading.Thread(target=lambda: seen.append(FastloadConfigError("x", 1, "a").field))
        thread.start()
        thread.join()
        assert seen == ["x"]
    assert FastloadConfigError("x", 1, "a").field == "x" and mention("a.b") == "b" and example("a.b", 1) == "b=1"


def test_a_value_nobody_gave_is_missing_not_none():
    err = FastloadConfigError("fastload:models[0].name", MISSING, "a DNS-1123 label")
    assert str(err) == "fastload:models[0].name: missing; accepted: a DNS-1123 label"
    assert str(FastloadConfigError("f", None, "x")) == "f: got None; accepted: x"


def test_booleans_are_written_as_the_front_end_writes_them():
    with pytest.raises(FastloadConfigError, match=r"accepted: True or False$"):
        Serving(shared_compile_cache="yes")  # type: ignore[arg-type]
    with spelled_as(key_spelling(settings_of(Serving), "m")), pytest.raises(FastloadConfigError) as err:
        Serving(shared_compile_cache="yes")  # type: ignore[arg-type]
    assert (err.value.field, err.value.accepted) == ("m.sharedCompileCache", "true or false")


def test_key_and_flag_records_say_how_each_front_end_writes_the_setting():
    assert Flag("--fast-image-pull/--no-fast-image-pull").option == "--fast-image-pull"
    assert Key("engineRelease", former="vllmVersion").former == "vllmVersion"
    (release,) = (s for s in settings_of(Serving) if s.name == "engine_release")
    assert (release.key.name, release.key.former) == ("engineRelease", "vllmVersion")  # type: ignore[union-attr]
    assert (release.flag.option, release.flag.former) == ("--engine-release", "--vllm-version")  # type: ignore[union-attr]
