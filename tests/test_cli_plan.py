import json
import re

import pytest
import yaml

from fastload_constructs.cli.main import main


def test_plan_prints_json(capsys):
    assert main(["plan", "--instance", "g6e.12xlarge", "--params", "70.6e9", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["tensor_parallel_size"] == 4
    assert view["model_loader_extra_config"]["distributed"] is True
    assert view["startup_probe"]["budget_seconds"] >= 2 * view["predicted_seconds"]["total"]


def test_plan_misfit_names_the_option_typed_never_an_internal_field(capsys):
    assert main(["plan", "--instance", "g5.xlarge", "--params", "70e9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fastload: --params: got 70000000000;") and err.count("\n") == 1
    assert "--gpu-memory-utilization 0.9" in err  # the explanation names options too
    assert "model.total_bytes" not in err and "gpu_memory_utilization" not in err
    assert main(["plan", "--instance", "g5.xlarge", "--bytes", "140e9"]) == 2
    assert capsys.readouterr().err.startswith("fastload: --bytes: got 140000000000;")


def test_plan_unknown_instance_exits_2(capsys):
    assert main(["plan", "--instance", "g9.huge", "--params", "1e9"]) == 2
    assert capsys.readouterr().err.startswith("fastload: --instance: got 'g9.huge'")


def test_plan_without_size_is_a_usage_error(capsys):
    assert main(["plan", "--instance", "g5.xlarge"]) == 2
    assert "--params or --bytes" in capsys.readouterr().err


def test_plan_takes_every_option_and_prints_throughput_and_paths(tmp_path, capsys):
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "num_hidden_layers": 32,
                "hidden_size": 4096,
                "num_attention_heads": 32,
                "num_key_value_heads": 8,
                "max_position_embeddings": 131072,
            }
        )
    )
    args = ["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", "--config-json", str(config)]
    args += ["--concurrency", "8", "--memory-limit", str(8 * 2**30), "--gpu-memory-utilization", "0.85"]
    args += ["--max-model-len", "16384", "--kv-sequences", "4", "--capture-sizes", "1,2,4,8,16,32"]
    args += ["--image", "vllm/vllm-openai:v0.10.1", "--warm-spares", "3", "--no-fast-image-pull", "--json"]
    assert main(args) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["model_loader_extra_config"]["concurrency"] == 8
    assert view["model_loader_extra_config"]["memory_limit"] == 8 * 2**30
    assert view["gpu_memory_utilization"] == 0.85 and view["max_model_len"] == 16384
    assert view["cudagraph_capture_sizes"] == [1, 2, 4, 8, 16, 32] and view["vllm_version"] == "0.10.1"
    assert view["kv_cache"]["sequences"] == 4 and view["kv_cache"]["max_model_len"] == 16384
    assert view["load_throughput_mb_s"] == 960.0  # 8 units x 120 MB/s
    paths = view["scale_out_paths"]
    assert set(paths) == {"fresh_node", "warm_node", "warm_spare", "buffered_node", "stopped_node"}
    # Spares without the node-local copy or the shared compile cache warm only the image: their pod streams
    # from S3 and compiles cold, slower than a repeat on a node that kept its compile cache.
    assert paths["fresh_node"]["total"] > paths["warm_spare"]["total"] > paths["warm_node"]["total"]
    assert view["warm_spares"] == {"count": 3, "idle_gpu_hours_per_day": 72.0}


def test_plan_table_shows_the_three_paths(capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9"]) == 0
    out = capsys.readouterr().out
    assert "load_throughput_mb_s:" in out
    assert "fresh_node" in out and "warm_spare" in out and "image_pull" in out


def test_plan_misfit_with_context_names_what_fits(tmp_path, capsys):
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "num_hidden_layers": 32,
                "hidden_size": 4096,
                "num_attention_heads": 32,
                "num_key_value_heads": 8,
                "max_position_embeddings": 131072,
            }
        )
    )
    assert main(["plan", "--instance", "g5.xlarge", "--params", "8.03e9", "--config-json", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--max-model-len <= 21760" in err and "would fit" in err


def test_plan_bad_capture_sizes_exit_2(capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8e9", "--capture-sizes", "1,x"]) == 2
    assert "--capture-sizes" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--tp", "3"], "--tp"),
        (["--gpu-memory-utilization", "nan"], "--gpu-memory-utilization"),
        (["--concurrency", "0"], "--concurrency"),
        (["--memory-limit", "-1"], "--memory-limit"),
        (["--max-model-len", "999999999999999999999"], "--max-model-len"),
        (["--kv-sequences", "99999999999999999"], "--kv-sequences"),
        (["--capture-sizes", "-1"], "--capture-sizes"),
        (["--capture-sizes", ""], "--capture-sizes"),
        (["--engine-release", ""], "--engine-release"),
        (["--vllm-version", ""], "--vllm-version"),  # its former name, still read: named as typed
        (["--warm-spares", "100000000000"], "--warm-spares"),
        (["--image-gb", "-1"], "--image-gb"),
        (["--image-gb", "nan"], "--image-gb"),
        (["--image-gb", "1e300"], "--image-gb"),
        (["--config-json", "/etc/hostname"], "--config-json"),
    ],
)
def test_a_bad_option_value_is_one_line_naming_the_option(args, option, capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8e9", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fastload: {option}: got ") and err.count("\n") == 1


@pytest.mark.parametrize("value", ["nan", "inf", "-1e9", "0", "8.5", "", "x", "1e30", "true"])
def test_bad_params_are_one_line_naming_params(value, capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fastload: --params: got ") and err.count("\n") == 1


def test_params_and_bytes_together_are_refused(capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8e9", "--bytes", "16000000000"]) == 2
    assert capsys.readouterr().err == "fastload: --params and --bytes both give the model's size: give one of them\n"


def test_plan_accepts_the_numbers_cdk_json_accepts(capsys):
    """--params 8030261248, 8.03e9 and 70e9 as cdk.json's parameterCount takes them (test_config)."""
    for params, gib in (("8030261248", 14.96), ("8.03e9", 14.96), ("70e9", 130.39)):
        assert main(["plan", "--instance", "p5.48xlarge", "--params", params, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["model_gib"] == gib
    assert main(["plan", "--instance", "p5.48xlarge", "--bytes", "16.06e9", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model_gib"] == 14.96


def test_plan_text_is_yaml_with_clean_values(capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9"]) == 0
    out = capsys.readouterr().out
    head = out.split("scale-out paths (seconds):")[0]
    assert re.search(r"(:|-) (None|True|False)$", out, re.MULTILINE) is None  # Python's, not YAML's
    view = yaml.safe_load(head)
    assert view["max_model_len"] is None and view["cudagraph_capture_sizes"] is None
    assert view["tensor_parallel_size"] == 1 and view["dominant_phase"] == "compile"


def test_serving_errors_name_the_option_typed(capsys):
    """The plan's Serving value checks them; the CLI says which option, not which field."""
    for args, option in (
        (["--image", "acme/vllm:prod"], "--engine-release"),
        (["--image", "vllm/vllm-openai:v0.8.5", "--engine-release", "0.9.0"], "--engine-release"),
        (["--engine-release", "0.9.0", "--vllm-version", "0.9.0"], "--vllm-version"),
        (["--warm-spares", "-1"], "--warm-spares"),
        (["--image", "vllm/vllm-openai:latest"], "--image"),
    ):
        assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", *args]) == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith(f"fastload: {option}: "), line
        assert "serving." not in line
    # A digest names no release: --engine-release says which (--vllm-version, its former name, too).
    digest = "vllm/vllm-openai@sha256:" + "b" * 64
    for option in ("--engine-release", "--vllm-version"):
        args = ["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", "--image", digest, option, "0.9.2", "--json"]
        assert main(args) == 0
        assert json.loads(capsys.readouterr().out)["vllm_version"] == "0.9.2"


# The nodes view with a provisioned rate: no Fast Snapshot Restore hours to pay.
RATE_NODES = {
    "ami_family": "bottlerocket",
    "image": "snapshot",
    "buffered_nodes": 0,
    "buffered_idle_gpu_hours_per_day": 0.0,
    "restore_mode": "rate",
    "nodes_launching_at_once_at_most": 16,
}


@pytest.mark.parametrize(
    "args, key, value",
    [
        (["--dtype", "bf16"], "model_gib", 14.96),
        (["--engine", "SGLang"], "engine", "sglang"),
        (["--pull-mode", "Parallel", "--ami", "AL2023"], "image_pull_mode", "parallel"),
        (["--restore-mode", "RATE"], "nodes", RATE_NODES),
        (["--kv-cache-dtype", "FP8", "--dtype", "F8_E4M3"], "model_gib", 7.48),
        (["--source", "LOCAL"], "source", "local"),
    ],
)
def test_choices_are_read_in_any_case(args, key, value, capsys):
    """What a user types in another case is the choice it names (a typo is still named, below)."""
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", *args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[key] == value


@pytest.mark.parametrize(
    "args, line",
    [
        (["--source", "nvme"], "fastload: --source: got 'nvme'; accepted: one of s3, local"),
        (["--dtype", "bf17"], "fastload: --dtype: got 'bf17'; accepted: one of F64, F32, F16, BF16,"),
        (["--engine", "tgi"], "fastload: --engine: got 'tgi'; accepted: one of vllm, sglang"),
        (["--image", "lmsysorg/sglang:v0.5.23"], "fastload: --image: got 'lmsysorg/sglang:v0.5.23'; accepted: an"),
    ],
)
def test_a_bad_choice_is_one_line_naming_the_option_and_the_choices(args, line, capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8e9", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(line) and err.count("\n") == 1
    assert "engine=" not in err  # a stock image of another engine says `use --engine sglang`


def test_every_option_comes_from_its_setting(capsys):
    """`fastload plan`'s options are the settings' flags, with their one-line docs and defaults."""
    from fastload_constructs.cli.plan_command import PLAN_SETTINGS, plan_command

    options = {opt for p in plan_command.params for opt in p.opts}
    for s in PLAN_SETTINGS:
        assert s.flag is not None and s.flag.option in options, s.name
    assert main(["plan", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--warm-spares INTEGER Placeholder pods holding a GPU node" in help_text
    assert "--kv-cache-dtype [auto|fp8] vLLM --kv-cache-dtype" in help_text
    assert "--vllm-version" not in help_text  # the former name is read, not offered
