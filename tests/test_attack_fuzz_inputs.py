"""Property-based fuzzing of everything a user can type: cdk.json context values and CLI options.

Property: hostile input (NaN, infinities, 1e309, huge integers, bools where numbers
are meant, lists and dicts where strings are meant, lone surrogates, non-UTF-8
bytes on stdin) never produces a traceback. The context parser raises only
`FastloadConfigError`, naming the key it came from, in one line; every CLI
command exits 2 with one `fastload:` line on stderr naming the option (or 1 with
one line where the input was valid and S3 is unreachable, or 0 where it was valid).

Seeded (`derandomize=True`) and bounded (`max_examples`) so CI stays fast and
a failure reproduces.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import sys
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fastload_constructs.cli.main import main  # noqa: E402
from fastload_constructs.core.errors import FastloadConfigError  # noqa: E402
from fastload_constructs.core.planning.assumptions_file import FORMAT  # noqa: E402
from fastload_constructs.core.planning.figure_bounds import FIGURE_RANGES  # noqa: E402
from stacks.config import parse_reference_config  # noqa: E402
from tests.hf_model_factory import write_hf_model  # noqa: E402
from tests.s3_server import TEST_ENV  # noqa: E402

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]
FUZZ = settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# The values a careless user, a template engine or an attacker puts into JSON.
NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), 1e309, -1e309, 10**400, -(10**400), 2**64, 2**63]),
    st.integers(min_value=-(2**80), max_value=2**80),
)
SCALARS = st.one_of(
    NUMBERS,
    st.booleans(),
    st.none(),
    st.text(max_size=40),
    st.sampled_from(["", " ", "\udcff", "\x00", "1e309", "NaN", "true", "models/*", "${aws:username}", "é"]),
)
HOSTILE = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=6,
)
MODEL_KEYS = [
    "name",
    "s3Prefix",
    "instanceType",
    "replicas",
    "parameterCount",
    "totalBytes",
    "dtype",
    "tensorParallelSize",
    "gpuMemoryUtilization",
    "sharedCompileCache",
    "nodeLocalModelCache",
    "engine",
    # Every other number a model takes.
    "minReplicas",
    "maxReplicas",
    "targetWaitingRequests",
    "scalingTarget",
    "warmSpares",
    "standbys",
    "maxModelLen",
    "maxNumSeqs",
    "cudaGraphCaptureSizes",
]
TOP_KEYS = ["kubernetesVersion", "models", "stagerRoleArns", "modelBucketName", "compileCachePrefix"]
# Errors the serving plan raises after parsing (a model that does not fit), named by the key they come from.
PLAN_FIELDS = {"fastload:models[0].tensorParallelSize", "fastload:models[0].parameterCount"}
# The figures of an assumptions file (`fastload calibrate` writes them; `plan --assumptions` and
# `fastload:assumptions` read them).
FIGURES = sorted(FIGURE_RANGES)


def assert_parses_or_names(ctx: dict, key: str) -> None:
    try:
        parse_reference_config(ctx)
    except FastloadConfigError as exc:
        message = str(exc)
        assert "\n" not in message and "\r" not in message, message
        assert key in exc.field or exc.field in PLAN_FIELDS, (key, exc.field)


@FUZZ
@given(key=st.sampled_from(MODEL_KEYS), value=HOSTILE)
def test_every_model_key_answers_hostile_values_with_one_named_error(key, value):
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:models"][0][key] = value
    assert_parses_or_names(ctx, f"fastload:models[0].{key}" if key != "s3Prefix" else "s3Prefix")


@FUZZ
@given(key=st.sampled_from(TOP_KEYS), value=HOSTILE)
def test_every_context_key_answers_hostile_values_with_one_named_error(key, value):
    ctx = copy.deepcopy(CDK_JSON)
    ctx[f"fastload:{key}"] = value
    assert_parses_or_names(ctx, "fastload:")


@FUZZ
@given(models=st.lists(HOSTILE, min_size=1, max_size=3), arns=HOSTILE)
def test_whole_lists_of_hostile_models_and_stagers(models, arns):
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:models"] = models
    ctx["fastload:stagerRoleArns"] = arns
    assert_parses_or_names(ctx, "fastload:")


def _assumptions_file(folder: Path, key: str, value: object) -> Path:
    """An assumptions file holding `value` for `key`, as JSON text (NaN and Infinity as Python's json writes them)."""
    path = folder / "assumptions.json"
    path.write_text(json.dumps({"format": FORMAT, "assumptions": {key: value}}))
    return path


@FUZZ
@given(key=st.sampled_from(FIGURES), value=st.one_of(NUMBERS, SCALARS, st.sampled_from([0, 0.0, -0.0, 1e-300])))
def test_every_assumptions_figure_answers_hostile_numbers_with_one_named_error(tmp_path_factory, key, value):
    path = _assumptions_file(tmp_path_factory.mktemp("figures"), key, value)
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:assumptions"] = str(path)
    assert_parses_or_names(ctx, f"fastload:assumptions.assumptions.{key}")
    argv = ["plan", "--instance", "g6e.2xlarge", "--params", "8e9", "--assumptions", str(path)]
    assert_one_line(*run_cli(argv), names=(f"--assumptions.assumptions.{key}",))


def test_nested_and_overlapping_model_prefixes_are_refused():
    base = CDK_JSON["fastload:models"][0]
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:models"] = [
        dict(base, name="outer", s3Prefix="models/a"),
        dict(base, name="inner", s3Prefix="models/a/b"),
    ]
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(ctx)
    assert err.value.field == "fastload:models[1].s3Prefix" and "'outer'" in err.value.accepted
    # Siblings that only share a name stem are separate models.
    ctx["fastload:models"][1]["s3Prefix"] = "models/a-b"
    parse_reference_config(ctx)


@pytest.mark.parametrize("prefix", ["models/*", "models/ll?ma", "models/${aws:username}", "models/[a]", "m/a b"])
def test_model_and_cache_prefixes_with_iam_special_characters_are_refused(prefix):
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:models"][0]["s3Prefix"] = prefix
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(ctx)
    assert err.value.field == "fastload:models[0].s3Prefix"
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:compileCachePrefix"] = prefix
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(ctx)
    assert err.value.field == "fastload:compileCachePrefix"


# --- the CLI -----------------------------------------------------------------------------------

OPTION_TEXT = st.one_of(
    st.sampled_from(
        ["nan", "NaN", "inf", "-inf", "Infinity", "1e309", "-1e309", "9" * 400, "-1", "0", "true", "[]", "{}", "0x10"]
    ),
    st.text(max_size=30),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@pytest.fixture(scope="module")
def cli_env(tmp_path_factory):
    model = tmp_path_factory.mktemp("model")
    write_hf_model(model)
    saved = {k: os.environ.get(k) for k in TEST_ENV}
    os.environ.update(TEST_ENV)
    yield model
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def run_cli(argv: list[str], stdin: bytes = b"") -> tuple[int, list[str]]:
    err = io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = main(argv)
    finally:
        sys.stdin = saved
    return rc, err.getvalue().splitlines()


def assert_one_line(rc: int, lines: list[str], names: tuple[str, ...]) -> None:
    assert rc in (0, 1, 2), (rc, lines)
    if rc == 0:
        return
    assert len(lines) == 1 and lines[0].startswith("fastload: "), lines
    assert "unexpected error" not in lines[0], lines
    if rc == 2:
        assert any(n in lines[0] for n in names), (names, lines)


PLAN_OPTIONS = {
    "--params": ("--params", "parameter_count", "total_bytes"),
    "--bytes": ("--bytes", "total_bytes"),
    "--tp": ("--tp", "tensor_parallel_size"),
    "--instance": ("instance_type", "--instance"),
    "--dtype": ("--dtype",),
    "--source": ("--source",),
    "--image": ("--image", "--engine-release"),
    "--engine-release": ("--engine-release",),
    "--vllm-version": ("--vllm-version", "--engine-release"),  # the hidden former name of --engine-release
    "--warm-spares": ("--warm-spares",),
    "--standbys": ("--standbys",),
    "--max-model-len": ("--max-model-len",),
    "--max-num-seqs": ("--max-num-seqs",),
    "--kv-sequences": ("--kv-sequences",),
    "--capture-sizes": ("--capture-sizes",),
    "--gpu-memory-utilization": ("--gpu-memory-utilization",),
    "--concurrency": ("--concurrency",),
    "--memory-limit": ("--memory-limit",),
    "--image-gb": ("--image-gb",),
}


@FUZZ
@given(option=st.sampled_from(sorted(PLAN_OPTIONS)), value=OPTION_TEXT)
def test_plan_options(option, value):
    argv = ["plan", "--instance", "g6e.2xlarge", "--params", "8e9", option, value]
    assert_one_line(*run_cli(argv), names=PLAN_OPTIONS[option])


@FUZZ
@given(option=st.sampled_from(["--params", "--bytes", "--tp", "--started-at"]), value=OPTION_TEXT)
def test_coldstart_options(option, value):
    log = str(Path(__file__).parent / "fixtures" / "vllm_logs" / "cold_v0.34_s3_tp1.log")
    argv = ["coldstart", log, "--instance", "g6e.2xlarge", "--params", "8e9", option, value]
    names = (*PLAN_OPTIONS.get(option, ()), "--started-at", "started_at")
    assert_one_line(*run_cli(argv), names=names)


@FUZZ
@given(data=st.binary(max_size=300))
def test_coldstart_reads_any_bytes_on_stdin(data):
    rc, lines = run_cli(["coldstart", "-"], stdin=b"\xff\xfe" + data)
    assert_one_line(rc, lines, names=("log",))
    assert rc in (1, 2)


@FUZZ
@given(option=st.sampled_from(["--concurrency", "--chunk-size-mib"]), value=OPTION_TEXT)
def test_stage_options(cli_env, option, value):
    argv = ["stage", str(cli_env), "s3://fuzz-bucket/models/x", "--no-progress", "--endpoint-url", "http://127.0.0.1:9"]
    names = (option, option.lstrip("-").replace("-", "_"))
    assert_one_line(*run_cli([*argv, option, value]), names=names)


@FUZZ
@given(uri=st.one_of(OPTION_TEXT, st.text(max_size=40).map(lambda t: "s3://" + t)))
def test_stage_and_inspect_uris(cli_env, uri):
    # A value starting with '-' reads as an option: click names it ("No such option '-i'").
    names = ("s3_uri", "model.path", "model_dir", "option")
    for argv in (
        ["stage", str(cli_env), uri, "--no-progress", "--endpoint-url", "http://127.0.0.1:9"],
        ["inspect", uri, "--endpoint-url", "http://127.0.0.1:9"],
    ):
        assert_one_line(*run_cli(argv), names=names)


@FUZZ
@given(local=st.one_of(OPTION_TEXT, st.sampled_from(["a\x00b", "9" * 400, "/dev/null", "/proc/self", "/etc/passwd"])))
def test_stage_local_folder(local):
    argv = ["stage", local, "s3://fuzz-bucket/models/x", "--no-progress", "--endpoint-url", "http://127.0.0.1:9"]
    assert_one_line(*run_cli(argv), names=("model_dir", "option"))
