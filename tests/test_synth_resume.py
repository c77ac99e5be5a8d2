"""``passnet synth --resume`` and a run stopped by SIGINT or SIGTERM (docs/synth.md#resuming).

Tasks of the bundled suite, cut to their smallest float32 variant where a test needs them fast
(a second or two of verification each in Triton's interpreter); an interrupted run's second task
is a whole one (nine variants, seconds), so the signal lands while it is under way.
"""

from __future__ import annotations

import json
import math
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from passnet.dataset.task import load_task, write_task
from passnet.graph.sample import load_sample
from passnet.synth.driver import SynthInterrupted, SynthResult, synthesize_tasks

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ROOT / "examples" / "suite"
SMALL = "fusible_add_mul_93e8ce5e"  # add, mul: one rule
SMALL_TOO = "fusible_mul_add_445849cd"
WHOLE = "fusible_add_layer_norm_1f059508"  # 9 variants; sorts before SMALL
FAST = ["--device", "cpu", "--warmup", "1", "--trials", "3"]


def _cut(name: str, suite: Path) -> Path:
    """``name`` with only its smallest float32 variant, as a task folder under ``suite``."""
    task = load_task(BUNDLED / name)
    fp32 = [v for v in task.variants if v.dtype == "float32"]
    small = min(fp32, key=lambda v: sum(math.prod(m.shape) for m in load_sample(v.path).metas))
    return write_task(suite / name, [small.path], name=name).path


def _whole(name: str, suite: Path, folder: str | None = None) -> Path:
    task = load_task(BUNDLED / name)
    return write_task(suite / (folder or name), [v.path for v in task.variants], name=name).path


def _synth(*args: object) -> tuple[int, str]:
    from passnet.cli import app

    res = CliRunner().invoke(app, ["synth", *map(str, args)], terminal_width=200)
    return res.exit_code, res.output


def _stamps(out: Path) -> dict[str, int]:
    return {p.parent.name: p.stat().st_mtime_ns for p in out.glob("*/synth.json")}


def test_resume_reuses_what_the_same_synthesizer_finished(tmp_path: Path) -> None:
    suite, out = tmp_path / "suite", tmp_path / "out"
    _cut(SMALL, suite)
    code, text = _synth(suite, "--out", out, *FAST)
    assert code == 0, text
    done = SynthResult.load(out / SMALL)
    assert done is not None and done.status == "written" and done.resume is not None
    assert done.resume["options"]["keep"] == "win" and done.resume["task"]
    first = _stamps(out)

    code, text = _synth(suite, "--out", out, *FAST, "--resume")
    assert code == 0, text
    assert "1 of 1 task(s) got a pass, 1 reused" in text, text
    assert _stamps(out) == first  # not synthesised again
    assert json.loads((out / "summary.json").read_text())[0]["status"] == "written"

    _cut(SMALL_TOO, suite)  # a task added since: synthesised, the other still reused
    code, text = _synth(suite, "--out", out, *FAST, "--resume")
    assert code == 0, text
    assert "2 of 2 task(s) got a pass, 1 reused" in text, text
    assert _stamps(out)[SMALL] == first[SMALL]
    assert [s["task"] for s in json.loads((out / "summary.json").read_text())] == [
        SMALL,
        SMALL_TOO,
    ]

    # an option that changes the result (the keep rule) redoes every task
    code, text = _synth(suite, "--out", out, *FAST, "--resume", "--keep", "correct", "-k", SMALL)
    assert code == 0, text
    assert "reused" not in text, text
    assert _stamps(out)[SMALL] != first[SMALL]
    assert SynthResult.load(out / SMALL).resume["options"]["keep"] == "correct"  # type: ignore[union-attr]


def test_resume_redoes_what_it_cannot_trust(tmp_path: Path) -> None:
    """Without verification (no kernel runs): a synth.json from before ``resume`` existed,
    another task content under the same folder name, a lost pass folder and a host failure
    are all synthesised again; only the untouched task is reused."""
    suite, out = tmp_path / "suite", tmp_path / "out"
    names = [_cut(n, suite).name for n in (SMALL, SMALL_TOO)]
    code, text = _synth(suite, "--out", out, "--no-verify")
    assert code == 0, text
    first = _stamps(out)

    def edit(name: str, **changes: object) -> None:
        path = out / name / "synth.json"
        data = {**json.loads(path.read_text()), **changes}
        path.write_text(json.dumps(data))
        os.utime(path, ns=(first[name], first[name]))

    edit(SMALL, resume=None)  # written by a version that recorded none
    code, text = _synth(suite, "--out", out, "--no-verify", "--resume")
    assert code == 0 and "2 of 2 task(s) got a pass, 1 reused" in text, text
    again = _stamps(out)
    assert again[SMALL] != first[SMALL] and again[SMALL_TOO] == first[SMALL_TOO]

    edit(SMALL_TOO, status="skipped", reason="synthesizer error: BrokenProcessPool: gone")
    code, text = _synth(suite, "--out", out, "--no-verify", "--resume")
    assert code == 0 and "2 of 2 task(s) got a pass, 1 reused" in text, text
    assert _stamps(out)[SMALL_TOO] != first[SMALL_TOO]

    for p in (out / SMALL / "pass").iterdir():  # a written pass whose folder is gone
        p.unlink()
    (out / SMALL / "pass").rmdir()
    code, text = _synth(suite, "--out", out, "--no-verify", "--resume", "-k", SMALL)
    assert code == 0 and "reused" not in text and (out / SMALL / "pass").is_dir(), text

    # the same folder name, another task: its content id differs
    import shutil

    shutil.rmtree(suite / names[0])
    _whole(SMALL, suite)
    code, text = _synth(suite, "--out", out, "--no-verify", "--resume", "-k", SMALL)
    assert code == 0 and "reused" not in text, text


def test_an_interrupt_stops_the_driver_with_what_is_finished(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    jobs = [(_cut(n, suite), None) for n in (SMALL, SMALL_TOO)]

    def stop(i: int, r: SynthResult) -> None:
        raise KeyboardInterrupt

    with pytest.raises(SynthInterrupted) as caught:
        synthesize_tasks(jobs, tmp_path / "out", on_result=stop, verify=False)
    first, second = caught.value.results
    assert first is not None and first.status == "written" and second is None
    assert isinstance(caught.value, KeyboardInterrupt)  # the bench stops on it as before
    assert not (tmp_path / "out" / SMALL_TOO).exists()


def _start(args: list[str]) -> tuple[subprocess.Popen[str], queue.Queue[str]]:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-m", "passnet.cli", "synth", *args], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=read, daemon=True).start()
    return proc, lines


def _interrupt_after_first(proc: subprocess.Popen[str], lines: queue.Queue[str], sig: int) -> str:
    """Send ``sig`` once the first task is reported finished; everything printed."""
    seen: list[str] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        seen.append(line)
        assert line, f"synth ended before a task finished:\n{''.join(seen)}"
        if line.startswith("[1/"):
            proc.send_signal(sig)
            break
    proc.wait(timeout=60)
    while (line := lines.get(timeout=10)) != "":
        seen.append(line)
    return "".join(seen)


@pytest.mark.parametrize(("sig", "workers"), [(signal.SIGINT, 2)], ids=["sigint-2"])
def test_an_interrupted_run_writes_the_finished_tasks_summary(
    tmp_path: Path, sig: int, workers: int
) -> None:
    """The first task finishes, the signal lands while a whole task is under way (the second
    worker's, and the third task still queued): summary.json lists the finished ones, the
    unfinished have no synth.json (``--resume`` then takes the finished ones as they are:
    ``test_resume_reuses_what_the_same_synthesizer_finished``)."""
    suite, out = tmp_path / "suite", tmp_path / "out"
    _cut(SMALL, suite)
    _whole(WHOLE, suite, folder="z1_" + WHOLE)  # after SMALL, so the small one goes first
    if workers > 1:
        _whole(WHOLE, suite, folder="z2_" + WHOLE)
    total = len(list(suite.iterdir()))
    proc, lines = _start([str(suite), "--out", str(out), *FAST, "--workers", str(workers)])
    t0 = time.monotonic()
    text = _interrupt_after_first(proc, lines, sig)
    assert proc.returncode == 130, text
    assert time.monotonic() - t0 < 60, "waited for the queued tasks"
    finished = [s["task"] for s in json.loads((out / "summary.json").read_text())]
    assert SMALL in finished and len(finished) < total, text
    assert f"interrupted: {total - len(finished)} of {total} task(s) remain" in text, text
    assert sorted(_stamps(out)) == sorted(finished)  # an unfinished task left no synth.json
