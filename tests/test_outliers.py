"""Outliers over a whole run (issue 39): a run resumed over several ``bench`` calls checks each
item against the references the run stored in earlier calls, and names its outliers (eager
against itself outside 0.9-1.1x, a reference median that stayed off the variant's others) from
the store, so the closing lines read the same however many calls the run took; eager's line is
the last one ``passnet bench`` prints. Scripted executors: no worker processes.
"""

from __future__ import annotations

import pytest
from helpers.store import config, make_suite, result, timed
from typer.testing import CliRunner

from passnet.core.results import Status, VariantResult
from passnet.evaluation.candidates import parse_candidate
from passnet.runner.bench import bench
from passnet.runner.scripted import ScriptedExecutor
from passnet.runner.store import Store

F32 = "task_a/graphs/float32/0_cut_1x12"
BF16 = "task_b/graphs/bfloat16/2_cut_1x12_bfloat16"
INDUCTOR = parse_candidate("inductor").label  # how the closing lines name the candidate


def dtype(item) -> str:
    return item.variant.variant.dtype


def kind(item) -> str:
    return item.candidate.spec.kind


def slow_bf16_eager(item) -> VariantResult:
    """Eager against itself at 0.40x on the bfloat16 variant, every time; the rest agree."""
    if kind(item) == "eager" and dtype(item) == "bfloat16":
        return timed(item, 10.0, 25.0)
    return timed(item, 10.0, 10.0 if kind(item) == "eager" else 5.0)


def test_a_resumed_run_names_the_eager_outliers_of_its_earlier_calls(tmp_path):
    suite = make_suite(tmp_path)
    cfg = config(suite, "eager", "inductor")

    def first_call(item) -> VariantResult:  # only task_b (bfloat16) gets measured
        if dtype(item) != "bfloat16":
            raise OSError("device lost")  # a harness error: the item stays pending
        return slow_bf16_eager(item)

    with Store(tmp_path / "s.db") as st:
        first = bench(cfg, st, ScriptedExecutor(first_call))
        assert (first.measured, first.remeasured, first.complete) == (2, 1, False)
        assert first.eager_off == [f"{BF16} 0.40x"]
        second = bench(cfg, st, again := ScriptedExecutor(slow_bf16_eager))
        assert second.run_id == first.run_id and second.complete
        assert {dtype(i) for i in again.calls} == {"float32", "float16"}  # bf16 not re-measured
        assert (second.skipped, second.measured, second.remeasured) == (2, 4, 0)
        assert second.eager_off == [f"{BF16} 0.40x"]  # measured by the first call, named here
        assert second.eager_timed == 3 and second.reference_off == []
        third = bench(cfg, st, nothing := ScriptedExecutor(slow_bf16_eager))
        assert nothing.calls == [] and third.eager_off == second.eager_off
    with Store(tmp_path / "one.db") as st:  # the same run in one call names the same
        once = bench(cfg, st, ScriptedExecutor(slow_bf16_eager))
    assert (once.eager_off, once.eager_timed, once.reference_off) == (second.eager_off, 3, [])


def test_references_stored_by_earlier_calls_check_the_next_and_persistent_ones_are_named(
    tmp_path,
):
    """The first call stores eager only; the second call's first items are checked against
    those references: float16's disturbed reference is measured again and agrees, float32's
    stays off after its re-measurement and is stored and named."""
    suite = make_suite(tmp_path)
    cfg = config(suite, "eager", "inductor")
    calls: dict[tuple, int] = {}

    def eager_only(item) -> VariantResult:
        if kind(item) != "eager":
            raise OSError("device lost")
        return timed(item, 10.0, 10.0)

    def disturbed(item) -> VariantResult:
        n = calls[item.key] = calls.get(item.key, 0) + 1
        off = dtype(item) == "float32" or (dtype(item) == "float16" and n == 1)
        return timed(item, 40.0 if off else 10.0, 5.0)

    with Store(tmp_path / "s.db") as st:
        first = bench(cfg, st, ScriptedExecutor(eager_only))
        assert (first.measured, first.eager_timed, first.reference_off) == (3, 3, [])
        second = bench(cfg, st, ScriptedExecutor(disturbed))
        assert (second.skipped, second.measured, second.remeasured) == (3, 3, 2)
        assert second.reference_off == [f"{F32} ({INDUCTOR}) 4.00x"]
        assert second.eager_off == []
        ms = {(m["candidate"], m["dtype"]): m for m in st.measurements(second.run_id)}
        assert ms[(INDUCTOR, "float16")]["speedup"] == pytest.approx(2.0)  # re-measured
        assert ms[(INDUCTOR, "float32")]["speedup"] == pytest.approx(8.0)  # stored, named
        assert sorted(a["status"] for a in st.attempts(second.run_id)) == ["ok", "ok"]
        third = bench(cfg, st, ScriptedExecutor(disturbed))  # nothing left: still named
        assert third.measured == 0 and third.reference_off == second.reference_off


def test_cli_closes_with_the_runs_outliers_eager_last(tmp_path, scripted_pool):
    """After the harness errors, the failed-status counts and the leaderboard: the reference
    outliers, then eager against itself, naming items measured by an earlier call too."""
    suite = make_suite(tmp_path)
    db = tmp_path / "s.db"

    def script(item) -> VariantResult:
        if dtype(item) == "float16" and kind(item) == "inductor":
            raise OSError("device lost")  # a harness error, printed before the closing lines
        if dtype(item) == "float16":
            return result(item, Status.CRASH, None)  # a final crash (--retries 0)
        if dtype(item) == "float32" and kind(item) == "inductor":
            return timed(item, 40.0, 5.0)  # its reference stays off eager's
        return slow_bf16_eager(item)

    def cli():  # noqa: ANN202 - click Result
        from passnet.cli import app

        args = ["bench", suite, "-c", "eager,inductor", "--store", db, "--run", "r"]
        return CliRunner().invoke(app, [str(a) for a in [*args, "--retries", "0"]],
                                  terminal_width=200)  # fmt: skip

    scripted_pool["executor"] = ScriptedExecutor(script)
    res = cli()
    assert res.exit_code == 1, res.output  # the harness error
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert "harness error (not stored, rerun to retry)" in res.stderr
    assert "1 crash in this run, final after retries" in res.stderr
    assert lines[-2] == (f"reference median outside 0.8-1.25x of the variant's earlier items on "
                         f"1 of the run's items: {F32} ({INDUCTOR}) 4.00x")  # fmt: skip
    assert lines[-1] == (f"eager against itself outside 0.9-1.1x on 1 of the run's 2 timed eager "
                         f"items: {BF16} 0.40x")  # fmt: skip
    assert res.output.index("harness error") < res.output.index("passnet report r")

    scripted_pool["executor"] = ScriptedExecutor(lambda item: timed(item, 10.0, 5.0))
    res = cli()  # the last item, measured in agreement: the earlier calls' outliers still close
    assert res.exit_code == 0, res.output
    assert "1 measured" in res.stdout
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert lines[-2].endswith(f"{F32} ({INDUCTOR}) 4.00x")
    assert lines[-1].endswith(f"2 timed eager items: {BF16} 0.40x")
