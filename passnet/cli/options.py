"""Option types that several commands share (``eval``, ``bench``, ``agent run``, ``task submit``,
``synth``, ``accelerate``, ``runs``, ``export``, ``report``): one declaration each, so their
names, help and limits agree. Defaults stay in each signature, where they can differ."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from passnet.core.results import CALL_PATH_HELP

Warmup = Annotated[int | None, typer.Option(help="untimed calls per side [GPU 25, CPU 10]")]
Trials = Annotated[int | None, typer.Option(help="timed calls per side [GPU 100, CPU 40]")]
Rounds = Annotated[int, typer.Option(min=1, help="interleaved measurement rounds")]
CiTarget = Annotated[
    float | None,
    typer.Option(
        min=0.001,
        help="adaptive trials: add timed calls until every speedup is known within about "
        "+-CI_TARGET (95% interval), e.g. 0.02 [default: exactly --trials calls]",
    ),
]
MaxTrials = Annotated[
    int | None, typer.Option(min=1, help="cap of adaptive timed calls a side [4 x trials]")
]
Timeout = Annotated[float, typer.Option(help="wall-clock limit per variant, seconds")]
Seed = Annotated[int | None, typer.Option(help="input seed (default: fresh random)")]
CallPath = Annotated[str, typer.Option(help=CALL_PATH_HELP)]
CpuThreads = Annotated[
    int, typer.Option(help="intra-op threads of a CPU worker (0: torch's default)")
]
_PREPARE_AHEAD = (
    "workers at once per device: each holds the device's timing lock only while "
    "it times, so the next variants load, compile and check while one is timed"
)
PrepareAhead = Annotated[
    int | None,
    typer.Option(min=1, help=_PREPARE_AHEAD + " [default: on GPUs the host's cores less one, "
                 "at most 8, shared among the GPUs; 1 on CPU and with Ray]"),
]  # fmt: skip
PrepareAheadAuto = Annotated[
    int | None,
    typer.Option(min=1, help=_PREPARE_AHEAD + " [default: one per variant on a GPU, up to the "
                 "host's cores less one, at most 12; 1 on CPU]"),
]  # fmt: skip
ScoreB = Annotated[float, typer.Option("--b", help="score of a failed subgraph (SPEC: 0.1)")]
ScoreP = Annotated[float, typer.Option("--p", help="slowdown penalty exponent (SPEC: 0)")]
# The device, the files and the store of a command.
Device = Annotated[str, typer.Option(help="cpu or cuda[:N]")]
JsonOut = Annotated[Path | None, typer.Option("--json", help="write the result here")]
ResultsStore = Annotated[Path, typer.Option(help="results store (SQLite)")]
EvalServer = Annotated[
    str | None,
    typer.Option(help="URL of a running `passnet serve`: evaluate there, its workers warm"),
]
