"""The timing witness: kernel-stamped windows around every timed call, checked by the parent
(passnet.evaluation.witness). The end-to-end exploit (a pass rewriting the samples) is in
tests/test_integrity_attacks.py."""

from __future__ import annotations

import json
import time

import torch

from passnet.core.results import SideTiming, Status, Timing, VariantResult
from passnet.evaluation import witness
from passnet.evaluation.timing import Side, measure


def _stream(samples: dict[str, list[float]], windows: dict[str, list[float]],
            checked: frozenset[tuple[str, int]] = frozenset(), label: str = "main",
            m: int = 0) -> list[tuple[int, bytes]]:  # fmt: skip
    """Messages of measurement ``m`` (``label``) with one run, as the worker would send them;
    ``windows`` in us (the kernel stamps), ``samples`` in us (what the worker claims)."""
    sides = list(samples)
    info = {
        "label": label,
        "sides": sides,
        "rounds": 1,
        "block": len(samples[sides[0]]),
        "noise_limit": 0.2,
        "calls": 1,
        "ci_target": None,
        "cap": len(samples[sides[0]]),
    }
    out = [(1, b"M" + json.dumps(info).encode())]
    now = 10_000
    for i, name in enumerate(sides):
        for k, (s, w) in enumerate(zip(samples[name], windows[name], strict=True)):
            out.append((now, witness._OPEN.pack(b"S", m, 0, i, k)))
            now += int(w * 1e3)
            out.append(
                (
                    now,
                    witness._CLOSE.pack(b"E", m, 0, i, k, int(s * 1e3), -1.0, (name, k) in checked),
                )
            )
            now += 5_000
    return out


def test_honest_samples_hold_and_the_runs_are_rebuilt() -> None:
    ref, cand = [20.0, 21.0, 19.5, 20.2], [10.0, 10.4, 9.9, 10.1]
    msgs = _stream(
        {"reference": ref, "candidate": cand},
        {"reference": [x + 2 for x in ref], "candidate": [x + 2.5 for x in cand]},
        checked=frozenset({("candidate", 2)}),
    )
    measured, problems = witness.audit(msgs)
    assert problems == []
    run = measured["main"].runs[0]
    assert run["candidate"].wall_us == cand and run["candidate"].checked == [0, 0, 1, 0]


def test_a_sample_longer_than_its_window_is_forged() -> None:
    msgs = _stream(
        {"reference": [20.0] * 4, "candidate": [10.0] * 4},
        {"reference": [15.0, 22, 22, 22], "candidate": [12.0] * 4},
    )
    _, problems = witness.audit(msgs)
    assert len(problems) == 1 and "reference call 0" in problems[0] and "15.0 us" in problems[0]


def test_samples_shorter_than_their_windows_beyond_the_reference_are_forged() -> None:
    """The timing-rewrite exploit: the candidate's samples divided, its windows unchanged; a
    descheduled worker stretches some windows of either side, which is not forgery."""
    msgs = _stream(
        {"reference": [20.0] * 5, "candidate": [10.0] * 5},
        {"reference": [22.0, 90, 22, 60, 22], "candidate": [12.0, 80, 12, 12, 70]},
    )
    assert witness.audit(msgs)[1] == []
    msgs = _stream(
        {"reference": [20.0] * 5, "candidate": [1.0] * 5},
        {"reference": [22.0] * 5, "candidate": [42.0] * 5},
    )
    _, problems = witness.audit(msgs)
    assert len(problems) == 1 and "candidate run 0: every sample at least 41.0 us" in problems[0]


def _settled(windows: list[float], samples: list[float], speedup: float) -> VariantResult:
    """A claimed result (reference 20 us in 22 us windows) settled against its windows."""
    msgs = _stream({"reference": [20.0] * 4, "candidate": samples},
                   {"reference": [22.0] * 4, "candidate": windows})  # fmt: skip
    msgs += _stream({"probe": [5.0] * 4}, {"probe": [7.0] * 4}, label="probe", m=1)
    placeholder = SideTiming(wall=Timing(method="wall", samples_us=[1.0], median_us=1.0,
                                         iqr_us=0.0, rounds=1, noisy=False))  # fmt: skip
    claimed = VariantResult(graph="g", dtype="float32", status=Status.OK, speedup=speedup,
                            reference=placeholder, candidate=placeholder, call_overhead_us=5.0)  # fmt: skip
    return witness.settle(claimed, msgs, meaningful=True)


def test_a_candidate_gap_beyond_noise_is_timed_from_its_windows() -> None:
    """Windows that leave out a few microseconds more than the reference's (a slower system
    call after the candidate's call on a loaded host, or samples cut by less than a factor):
    not rejected, but timed from the windows less the reference's gap, so cutting gains
    nothing; within noise the samples stand."""
    out = _settled([30.0] * 4, [10.0] * 4, speedup=2.0)
    assert out.status.value == "ok" and out.candidate is not None
    assert out.candidate.wall.samples_us == [28.0] * 4 and out.speedup == 20.0 / 28.0
    assert [f.check for f in out.integrity] == ["timing-gap"] and not out.integrity[0].fatal
    clean = _settled([12.5] * 4, [10.0] * 4, speedup=2.0)
    assert clean.speedup == 2.0 and clean.integrity == []


def test_an_injected_or_missing_message_breaks_the_sequence() -> None:
    msgs = _stream(
        {"reference": [20.0] * 3, "candidate": [10.0] * 3},
        {"reference": [22.0] * 3, "candidate": [12.0] * 3},
    )
    extra = [*msgs[:3], (msgs[2][0] + 1, msgs[2][1]), *msgs[3:]]  # one close sent twice
    assert "witness sequence broken" in witness.audit(extra)[1][0]
    assert witness.audit(msgs[:-1])[1] == ["a timed window never closed"]


def test_the_parent_recomputes_the_fields_and_rejects_a_rewritten_result() -> None:
    ref, cand = [20.0, 20.0, 20.0, 20.0], [10.0, 10.0, 10.0, 10.0]
    msgs = _stream(
        {"reference": ref, "candidate": cand}, {"reference": [22.0] * 4, "candidate": [12.0] * 4}
    )
    msgs += _stream({"probe": [5.0] * 4}, {"probe": [7.0] * 4}, label="probe", m=1)
    placeholder = SideTiming(wall=Timing(method="wall", samples_us=[1.0], median_us=1.0,
                                         iqr_us=0.0, rounds=1, noisy=False))  # fmt: skip
    honest = VariantResult(
        graph="g",
        dtype="float32",
        status=Status.OK,
        speedup=2.0,
        reference=placeholder,
        candidate=placeholder,
        call_overhead_us=5.0,
    )
    out = witness.settle(honest, msgs, meaningful=True)
    assert out.status.value == "ok" and out.speedup == 2.0
    assert out.candidate is not None and out.candidate.wall.samples_us == cand
    forged = witness.settle(honest.model_copy(update={"speedup": 900.0}), msgs, meaningful=True)
    assert forged.status.value == "rejected" and "timing-forged" in (forged.error or "")
    assert "speedup 900.0" in forged.integrity[-1].detail
    cpu = witness.settle(honest, msgs, meaningful=False)
    assert cpu.status.value == "rejected" and "timing_meaningful" in (cpu.error or "")
    assert not cpu.timing_meaningful
    unwitnessed = witness.settle(honest, [], meaningful=True)
    assert unwitnessed.status.value == "rejected" and "not witnessed" in (unwitnessed.error or "")
    untimed = VariantResult(graph="g", dtype="float32", status=Status.INCORRECT)
    assert witness.settle(untimed, [], meaningful=True) == untimed


def test_the_kernel_stamps_every_window_of_a_real_measurement() -> None:
    """measure() with a witness on a real socket pair: every timed call is seen, its window
    contains its sample, and the parent rebuilds the same samples."""
    parent, child = witness.pair()
    log = witness.Log(parent)
    seen = witness.Witness(child.detach())

    def slow() -> None:
        time.sleep(0.002)

    out = measure(
        [Side("reference", slow, ()), Side("candidate", slow, ())],
        torch.device("cpu"),
        warmup=1,
        trials=4,
        rounds=2,
        max_reruns=0,
        witness=seen,
    )
    seen._sock.close()
    measured, problems = witness.audit(log.close())
    assert problems == []
    run = measured["main"].runs[0]
    for name in ("reference", "candidate"):
        assert [round(x, 3) for x in run[name].wall_us] == out[name].wall.samples_us
        assert all(
            w >= s >= 2000
            for w, s in zip(measured["main"].windows[0][name], run[name].wall_us, strict=True)
        )
