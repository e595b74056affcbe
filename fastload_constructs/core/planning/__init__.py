"""The planner: from a model and an instance type to a `ServingPlan` (TP, streamer, phases, probes).

    from fastload_constructs.core.planning import Serving, TuningOptions, plan
    p = plan(profile, "g6e.2xlarge", TuningOptions(serving=Serving(shared_compile_cache=True)))

Modules, one decision each: `assumptions` (cited figures), `options` (what a user
may set), `serving` (how the model is served: engine, image, caches, spares), `fit`
(memory and TP), `streamer` (Run:ai settings), `phases` (seconds per start-up phase:
the transfer here, the rest the engine's, `core.engines`), `pull_modes` (how the image
reaches a fresh node), `scale_out` (fresh node, warm node, warm spare), `explain` (the
plan's reasoning in words), `plan` (the ServingPlan), `calibration` (figures fitted to
your logs).
"""

from __future__ import annotations

from fastload_constructs.core.engines.phases import PhaseEstimate
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.fit import KvFit
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import ServingPlan, StartupProbe, plan
from fastload_constructs.core.planning.pull_modes import PULL_MODES, PullMode
from fastload_constructs.core.planning.scale_out import ScaleOutPath, ScaleOutPaths
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.planning.streamer import StreamerSettings

__all__ = [
    "PULL_MODES",
    "KvFit",
    "LoadAssumptions",
    "PhaseEstimate",
    "PullMode",
    "ScaleOutPath",
    "ScaleOutPaths",
    "Serving",
    "ServingPlan",
    "StartupProbe",
    "StreamerSettings",
    "TuningOptions",
    "plan",
]
