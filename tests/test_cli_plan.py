import json

from fastload_constructs.cli.main import main


def test_plan_prints_json(capsys):
    assert main(["plan", "--instance", "g6e.12xlarge", "--params", "70.6e9", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["tensor_parallel_size"] == 4
    assert view["model_loader_extra_config"]["distributed"] is True
    assert view["startup_probe"]["budget_seconds"] >= 2 * view["predicted_seconds"]["total"]


def test_plan_misfit_exits_2_with_the_field(capsys):
    assert main(["plan", "--instance", "g5.xlarge", "--params", "70e9"]) == 2
    assert "model.total_bytes" in capsys.readouterr().err


def test_plan_unknown_instance_exits_2(capsys):
    assert main(["plan", "--instance", "g9.huge", "--params", "1e9"]) == 2
    assert "instance_type" in capsys.readouterr().err


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
    assert set(paths) == {"fresh_node", "warm_node", "warm_spare"}
    assert paths["fresh_node"]["total"] > paths["warm_node"]["total"] >= paths["warm_spare"]["total"] - 5
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
    assert err.count("\n") == 1 and "max_model_len" in err and "would fit" in err


def test_plan_bad_capture_sizes_exit_2(capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8e9", "--capture-sizes", "1,x"]) == 2
    assert "--capture-sizes" in capsys.readouterr().err


def test_serving_errors_name_the_option_typed(capsys):
    """The plan's Serving value checks them; the CLI says which option, not which field."""
    for args, option in (
        (["--image", "acme/vllm:prod"], "--vllm-version"),
        (["--image", "vllm/vllm-openai:v0.8.5", "--vllm-version", "0.9.0"], "--vllm-version"),
        (["--warm-spares", "-1"], "--warm-spares"),
        (["--image", "vllm/vllm-openai:latest"], "--image"),
    ):
        assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", *args]) == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith(f"fastload: {option}: "), line
        assert "serving." not in line
    # A digest names no release: --vllm-version says which.
    digest = "vllm/vllm-openai@sha256:" + "b" * 64
    assert (
        main(
            [
                "plan",
                "--instance",
                "g6e.2xlarge",
                "--params",
                "8.03e9",
                "--image",
                digest,
                "--vllm-version",
                "0.9.2",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["vllm_version"] == "0.9.2"
