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
