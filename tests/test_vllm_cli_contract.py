"""The args the chart renders, parsed by the pinned vLLM's own `vllm serve` parser and loader.

vLLM is not a dependency of this library (it runs in the image), so this test
skips unless vLLM is importable; run it with a virtualenv holding vllm==<tag of
DEFAULT_IMAGE> (no GPU needed: VLLM_TARGET_DEVICE=cpu).
"""

import pytest

from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import DEFAULT_IMAGE
from fastload_constructs.core.serving.server_pod import server_spec


@pytest.fixture(scope="module")
def vllm(request):
    mp = pytest.MonkeyPatch()
    mp.setenv("VLLM_TARGET_DEVICE", "cpu")
    request.addfinalizer(mp.undo)
    return pytest.importorskip("vllm")


@pytest.mark.parametrize("instance, params", [("g6e.2xlarge", 8_030_261_248), ("g6e.12xlarge", 70_600_000_000)])
def test_pinned_vllm_accepts_the_rendered_args(vllm, instance, params):
    from vllm.engine.arg_utils import EngineArgs
    from vllm.entrypoints.cli.serve import ServeSubcommand
    from vllm.model_executor.model_loader.runai_streamer_loader import RunaiModelStreamerLoader
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    assert DEFAULT_IMAGE.endswith(":v" + vllm.__version__)
    p = plan(ModelProfile.from_numbers(parameter_count=params, dtype="BF16"), instance)
    spec = server_spec(p, model_name="m", model_uri="s3://fastload-test-models/models/m", region="us-east-1")
    parser = FlexibleArgumentParser()
    ServeSubcommand().subparser_init(parser.add_subparsers(dest="subparser"))
    args = parser.parse_args([*spec.command[1:], *spec.args])
    assert args.model_tag == "s3://fastload-test-models/models/m"
    assert (args.load_format, args.tensor_parallel_size, args.port) == ("runai_streamer", p.tensor_parallel_size, 8000)
    assert args.model_loader_extra_config == p.streamer.loader_extra_config()
    loader = RunaiModelStreamerLoader(EngineArgs.from_cli_args(args).create_load_config())
    assert loader._is_distributed is p.streamer.distributed
