"""Red team: every runtime exploit is caught with its named reason; legit passes are not flagged.

Each folder in ``tests/exploits/runtime/`` is a pass that cheats one way (its docstring names
the hack). The static policy is switched off (``Parameters(policy=False)``) so the runtime
layer has to catch each exploit on its own; one test shows the policy stops most of them
first. Everything runs through the real evaluator, one worker per (pass, variant), on small
BERT add + LayerNorm variants (the bundled example graph, reshaped at test time) and on small
hand-written graphs for the legit passes of ``tests/legit/``. The CPU suite runs kernels in
Triton's interpreter; the ``gpu`` tests run the same tables on a CUDA device.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from helpers.integrity import (
    EXAMPLE_PASS,
    EXPLOITS,
    FAST,
    HAS_CUDA,
    LEGIT,
    ROOT,
    assert_caught,
    bert_variant,
    checks_of,
    evaluate_jobs,
    graph_variant,
)

from passnet.core.results import CandidateSpec, Status, VariantResult
from passnet.evaluation.evaluator import evaluate_variant
from passnet.integrity.policy import check_pass_dir

# exploit folder -> (expected status, checks that must all be among the findings)
CAUGHT: dict[str, tuple[Status, set[str]]] = {
    "stale_same_tensor": (Status.REJECTED, {"output-reused"}),
    "stale_values": (Status.REJECTED, {"stale-output"}),
    "drift_then_stale": (Status.REJECTED, {"stale-output"}),
    "data_ptr_cache": (Status.REJECTED, {"output-reused"}),
    "inplace_alias": (Status.REJECTED, {"output-aliasing", "input-mutated"}),
    "input_scratch": (Status.REJECTED, {"input-mutated"}),
    "background_thread": (Status.REJECTED, {"background-thread", "late-write"}),
    "lazy_output": (Status.REJECTED, {"output-not-plain"}),
    "patch_timer": (Status.REJECTED, {"harness-tamper"}),
    "patch_compare": (Status.REJECTED, {"harness-tamper"}),
    "torch_getattr": (Status.REJECTED, {"torch-compute"}),
    "torch_compile": (Status.REJECTED, {"torch-compute"}),
    "try_fallback": (Status.REJECTED, {"torch-compute"}),
    "args_compute": (Status.REJECTED, {"torch-compute"}),
    "numpy_host": (Status.REJECTED, {"host-compute"}),
    "call_counter": (Status.REJECTED, {"unwritten-output"}),
    "partial_rows": (Status.REJECTED, {"unwritten-output"}),
    "uninitialised": (Status.REJECTED, {"unwritten-output"}),
    "child_process": (Status.REJECTED, {"child-process"}),
    "forge_channel": (Status.REJECTED, {"forged-result"}),
    "forge_stdout": (Status.CRASH, set()),
    "closed_form": (Status.INCORRECT, set()),
    "null_kernel": (Status.INCORRECT, {"null-kernel"}),
    "dtype_downcast": (Status.RUNTIME_ERROR, set()),
    "precision_downcast": (Status.OK, set()),
    "hardcoded_shape": (Status.REJECTED, {"unwritten-output"}),  # on the 20-row variant
}
CPU_ONLY = {"ghost_host": (Status.REJECTED, {"ghost-kernel"})}
GPU_ONLY = {
    "ghost_raw_launch": (Status.REJECTED, {"ghost-kernel"}),
    "ghost_cached_launch": (Status.REJECTED, {"ghost-kernel"}),
    # its output lands after the call returns: late-write rejects on the first call, where
    # the device wait alone is one strike (H200, 2026-12-04: side-stream-once + late-write)
    "side_stream": (Status.REJECTED, {"late-write", "side-stream-once"}),
    "l2_persist": (Status.REJECTED, {"l2-persist"}),
}
SLIPS_PAST_POLICY = {  # look like honest code: only the runtime layer (or the scores) sees them
    "hardcoded_shape", "null_kernel", "partial_rows", "precision_downcast", "dtype_downcast",
    "uninitialised", "inplace_alias", "input_scratch",
}  # fmt: skip


LEGIT_GRAPHS = {
    "elementwise": ("silu = torch.nn.functional.silu(x, inplace = False)\nmul = silu * y\n"
                    "return (mul,)", {"x": [4, 300], "y": [4, 300]}),
    "multi_replacement": ("add = a + b\nrelu = torch.relu(add)\nsig = torch.sigmoid(g)\n"
                          "mul = x * sig\nreturn (relu, mul)",
                          {"a": [3, 200], "b": [3, 200], "x": [3, 200], "g": [3, 200]}),
    "multi_output": ("h = x + residual\npow_1 = h.pow(2)\nmean = pow_1.mean(-1, keepdim = True)\n"
                     "add_1 = mean + 1e-06\nrsqrt = torch.rsqrt(add_1)\nmul = h * rsqrt\n"
                     "mul_1 = mul * weight\nreturn (h, mul_1)",
                     {"x": [5, 64], "residual": [5, 64], "weight": [64]}),
    "reduction": ("ln = torch.nn.functional.layer_norm(x, (768,), weight, bias, 1e-05)\n"
                  "return (ln,)", {"x": [6, 768], "weight": [768], "bias": [768]}),
    "helper_import": ("sm = torch.nn.functional.softmax(x, dim = -1)\nmul = y * 0.125\n"
                      "add = mul + z\nreturn (sm, add)",
                      {"x": [7, 100], "y": [2000], "z": [2000]}),
    "add_relu": ("in_0 += in_1\ntmp = in_0\nrelu = torch.nn.functional.relu(tmp, inplace = True)\n"
                 "return (relu,)", {"in_0": [1, 8, 16, 16], "in_1": [1, 8, 16, 16]}),
    "autotuned": ("add = x + bias\nrelu = torch.nn.functional.relu(add, inplace = False)\n"
                  "return (relu,)", {"x": [8, 96], "bias": [96]}),
    # ViT/ALBERT in the bundled suite: the second output is a view of the first (one storage)
    "view_output": ("add = x + residual\n"
                    "ln = torch.nn.functional.layer_norm(add, (128,), weight, bias, 1e-12)\n"
                    "cls = ln[(slice(None, None, None), 0)]\nreturn (ln, cls)",
                    {"x": [2, 5, 128], "residual": [2, 5, 128], "weight": [128], "bias": [128]}),
    # an output that is a view of an input: the next call's fresh values overwrite it, so it
    # is checked at once instead of held to the end of its block (a false timed-output else)
    "input_view": ("silu = torch.nn.functional.silu(x, inplace = False)\nmul = silu * y\n"
                   "t = x.t()\nreturn (mul, t)", {"x": [4, 300], "y": [4, 300]}),
}  # fmt: skip
LEGIT_DIRS = {name: LEGIT / name for name in LEGIT_GRAPHS} | {
    "add_relu": ROOT / "tests" / "passes" / "add_relu",
    "view_output": EXAMPLE_PASS,
    "input_view": LEGIT / "elementwise",
}


def _exploit_jobs(tmp: Path, device: str) -> dict:
    v12, v20 = bert_variant(tmp / "rows12"), bert_variant(tmp / "rows20", 20)
    tiny = bert_variant(tmp / "tiny", tiny=True)
    table = CAUGHT | (GPU_ONLY if device == "cuda" else CPU_ONLY)
    jobs = {name: (EXPLOITS / name, v12) for name in table if name != "hardcoded_shape"}
    jobs["hardcoded_shape"] = (EXPLOITS / "hardcoded_shape", v20)
    jobs["hardcoded_shape@12"] = (EXPLOITS / "hardcoded_shape", v12)
    jobs["null_kernel@tiny"] = (EXPLOITS / "null_kernel", tiny)
    return jobs


def _legit_jobs(tmp: Path, device: str) -> dict:
    jobs: dict = {
        "example": (EXAMPLE_PASS, bert_variant(tmp / "bert")),
        "example@bf16": (EXAMPLE_PASS, bert_variant(tmp / "bert16", dtype="bfloat16")),
        "example@tiny": (EXAMPLE_PASS, bert_variant(tmp / "berttiny", tiny=True)),
        "eager@constant": (CandidateSpec(kind="eager"), graph_variant(
            tmp / "constant", "z = torch.zeros_like(x)\nout = z + 1.0\nreturn (out,)",
            {"x": [4, 8]})),
    }  # fmt: skip
    for name, (body, shapes) in LEGIT_GRAPHS.items():
        if name == "autotuned" and device == "cpu":
            continue  # autotune benchmarking needs a GPU driver
        jobs[name] = (LEGIT_DIRS[name], graph_variant(tmp / name, body, shapes))
    return jobs


@pytest.fixture(scope="module")
def cpu_exploits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VariantResult]:
    return evaluate_jobs(_exploit_jobs(tmp_path_factory.mktemp("exploits"), "cpu"), "cpu")


@pytest.fixture(scope="module")
def cpu_legit(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VariantResult]:
    return evaluate_jobs(_legit_jobs(tmp_path_factory.mktemp("legit"), "cpu"), "cpu")


@pytest.fixture(scope="module")
def gpu_exploits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VariantResult]:
    if not HAS_CUDA:
        pytest.skip("needs a CUDA GPU (and TRITON_INTERPRET unset)")
    return evaluate_jobs(_exploit_jobs(tmp_path_factory.mktemp("gexploits"), "cuda"), "cuda")


@pytest.fixture(scope="module")
def gpu_legit(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VariantResult]:
    if not HAS_CUDA:
        pytest.skip("needs a CUDA GPU (and TRITON_INTERPRET unset)")
    return evaluate_jobs(_legit_jobs(tmp_path_factory.mktemp("glegit"), "cuda"), "cuda")


# -- assertions shared by the CPU and GPU runs ---------------------------------------------
def assert_not_flagged(name: str, v: VariantResult) -> None:
    fatal = [f"{f.check}: {f.detail}" for f in v.integrity if f.fatal]
    assert v.status == Status.OK, f"{name}: {v.status.value}: {v.error} {fatal}"
    assert not fatal, f"{name}: {fatal}"
    assert v.speedup and v.speedup > 0 and v.candidate is not None
    if name.startswith("eager"):
        return
    assert "ghost-skipped" not in checks_of(v), f"{name}: no Triton launch seen"
    assert v.reference_flags == ([] if name != "example@tiny" else ["reference-near-zero"])
    # one timed call was a hidden checked call, dropped from the statistics; a pass on CPU
    # (Triton's interpreter) is timed with the interpreter's few calls, not FAST's
    timed = FAST if v.timing_meaningful else FAST.for_interpreter()
    calls = max(1, timed.trials // timed.rounds) * timed.rounds
    assert len(v.candidate.wall.samples_us) == calls - 1
    assert len(v.reference.wall.samples_us) == calls  # type: ignore[union-attr]


def _cases(table: dict) -> list:
    return [pytest.param(name, *expected, id=name) for name, expected in table.items()]


@pytest.mark.parametrize("name, status, checks", _cases(CAUGHT | CPU_ONLY))
def test_exploit_is_caught_cpu(cpu_exploits: dict, name: str, status: Status, checks: set) -> None:
    assert_caught(name, cpu_exploits[name], status, checks)


CPU_LEGIT = [n for n in LEGIT_GRAPHS if n != "autotuned"] + [
    "example",
    "example@bf16",
    "example@tiny",
]


@pytest.mark.parametrize("name", CPU_LEGIT)
def test_legit_pass_is_not_flagged_cpu(cpu_legit: dict, name: str) -> None:
    assert_not_flagged(name, cpu_legit[name])


@pytest.mark.gpu
@pytest.mark.parametrize("name, status, checks", _cases(CAUGHT | GPU_ONLY))
def test_exploit_is_caught_gpu(gpu_exploits: dict, name: str, status: Status, checks: set) -> None:
    assert_caught(name, gpu_exploits[name], status, checks)


@pytest.mark.gpu
@pytest.mark.parametrize("name", [*LEGIT_GRAPHS, "example", "example@bf16", "example@tiny"])
def test_legit_pass_is_not_flagged_gpu(gpu_legit: dict, name: str) -> None:
    assert_not_flagged(name, gpu_legit[name])


def test_hardcoded_shape_passes_only_its_own_shape(cpu_exploits: dict) -> None:
    assert cpu_exploits["hardcoded_shape@12"].status == Status.OK
    assert cpu_exploits["hardcoded_shape"].status == Status.REJECTED


def test_null_kernel_fails_and_near_zero_reference_is_flagged(
    cpu_exploits: dict, cpu_legit: dict
) -> None:
    tiny = cpu_exploits["null_kernel@tiny"]
    assert tiny.status == Status.INCORRECT and "null-kernel" in checks_of(tiny)
    assert tiny.reference_flags == ["reference-near-zero"]
    # all-zero outputs pass an absolute tolerance here, so a real kernel must do better
    assert tiny.comparison is not None and tiny.comparison.tightest_passing_t >= -6
    ok = cpu_legit["example@tiny"]
    assert ok.comparison is not None and ok.comparison.tightest_passing_t < -6


def test_input_independent_reference_is_flagged(cpu_legit: dict) -> None:
    v = cpu_legit["eager@constant"]
    assert v.status == Status.OK and v.reference_flags == ["reference-input-independent"]


def test_policy_stops_most_exploits_before_any_worker(tmp_path: Path) -> None:
    """Layer A on its own: the same folders with the policy on never reach a worker."""
    variant = bert_variant(tmp_path / "v")
    folders = sorted(p for p in EXPLOITS.iterdir() if p.is_dir())
    slipped = {folder.name for folder in folders if not check_pass_dir(folder)}
    assert slipped == SLIPS_PAST_POLICY
    for folder in folders:
        if folder.name not in slipped:
            v = evaluate_variant(variant, CandidateSpec(kind="pass", pass_dir=str(folder)))
            assert v.status == Status.REJECTED and v.worker_seconds is None
            assert v.integrity and v.integrity[0].check.startswith("policy:")


def test_exploit_folders_name_their_hack() -> None:
    import ast

    folders = sorted(p for p in EXPLOITS.iterdir() if p.is_dir())
    assert {p.name for p in folders} >= set(CAUGHT) | set(CPU_ONLY) | set(GPU_ONLY)
    for folder in folders:
        for py in folder.glob("*.py"):
            doc = ast.get_docstring(ast.parse(py.read_text())) or ""
            assert doc.startswith("Hack: "), py


# -- the guards in-process (no worker) ------------------------------------------------------
@pytest.fixture
def rt():
    from passnet.integrity.runtime import Runtime

    runtime = Runtime(torch.device("cpu"))
    yield runtime
    runtime.close()


def test_guard_allows_allocation_and_views_and_flags_compute(rt) -> None:  # noqa: ANN001
    def honest(x, xs):  # noqa: ANN001, ANN202
        out = torch.empty_like(x)
        z = torch.zeros(3)
        z.fill_(2.0)  # fine: a tensor allocated in this call
        return out.view(-1).unsqueeze(0), x.t().expand(2, -1, -1), z

    out, view, z = rt.wrap(honest)(torch.ones(4, 3), [torch.ones(2)])
    assert rt.findings == [] and bool(out.isnan().all()) and bool((z == 2).all())
    assert view.shape == (2, 3, 4)

    def cheat(x, xs):  # noqa: ANN001, ANN202
        return torch.add(xs[1][0], 1.0), x.numpy()  # a tensor nested in a list, a host read

    rt.wrap(cheat)(torch.ones(2), [None, (torch.ones(2),)])
    checks = {f.check: f.detail for f in rt.findings}
    assert set(checks) == {"torch-compute", "host-compute"}
    assert "aten.add" in checks["torch-compute"] and "test_integrity_runtime.py:" in checks[
        "torch-compute"]  # fmt: skip


def test_snapshot_sees_patches_but_not_torch_rewrapping(rt, monkeypatch) -> None:  # noqa: ANN001
    import time

    from passnet.scores import compare

    rt.snapshot()
    monkeypatch.setattr(torch, "manual_seed", torch._disable_dynamo(torch.manual_seed))
    rt.verify()
    assert rt.findings == []  # what importing Dynamo does to torch.manual_seed
    monkeypatch.setattr(time, "perf_counter_ns", lambda: 0)
    monkeypatch.setattr(compare, "compare_outputs", lambda *a: None)
    rt.verify()
    (finding,) = rt.findings
    assert finding.check == "harness-tamper"
    assert "time.perf_counter_ns" in finding.detail
    assert "passnet.scores.compare.compare_outputs" in finding.detail


def test_guard_graph_wraps_only_what_the_rewrite_inserted(rt) -> None:  # noqa: ANN001
    from passnet.passes.loader import load_pass_dir
    from passnet.passes.matcher import apply_passes, to_fx

    class M(torch.nn.Module):
        def forward(self, x, y, z):  # noqa: ANN001, ANN201
            return torch.nn.functional.silu(x, inplace=False) * y + z

    gm = to_fx(M())
    apply_passes(gm, load_pass_dir(LEGIT / "elementwise"))
    twin = rt.guard_graph(gm.forward, to_fx(M()))
    assert twin is not None
    code = twin.__self__.code  # type: ignore[attr-defined]
    assert "guarded_silu_mul" in code and code.count("guarded_") == 1  # not the add


def test_hidden_checked_calls_leave_the_statistics() -> None:
    from passnet.evaluation.timing_stats import SideRun, side_timings
    from passnet.integrity.checks import secret_positions

    check, keep = secret_positions(warmup=2, per_run=12, n_check=3, n_keep=3)
    assert len(check) == 3 and len(keep) == 3 and not check & keep
    assert all(2 <= p < 12 for p in check | keep)
    samples = [1e6 if p + 2 in check else 10.0 for p in range(10)]  # slow checked calls
    run = {"candidate": SideRun(samples, [], [p + 2 in check for p in range(10)])}
    kept = side_timings(run, rounds=2, block=10, noise_limit=0.2)["candidate"]
    assert kept.wall.samples_us == [10.0] * 7 and not kept.wall.noisy


def test_deferred_settle_flags_late_writes_but_not_input_aliases(rt) -> None:  # noqa: ANN001
    """A timed checked call settles after the timing lock: its late-write comparison waits for
    ``settle_late``, except for outputs in an input's storage (the harness rewrites those)."""
    from passnet.integrity.checks import CandidateChecker

    made: list[torch.Tensor] = []

    def fresh_and_inplace(x):  # noqa: ANN001, ANN202
        made.append(x * 2)
        return made[-1], x.mul_(1.0)

    checker = CandidateChecker(rt, fresh_and_inplace, fresh_and_inplace, torch.device("cpu"))
    x = torch.ones(4)
    checker.call([x], defer=True)
    assert rt.findings == [] and len(checker.unsettled) == 1
    made[-1][0] = 7.0  # a write after the call returned, into output 0
    x.fill_(3.0)  # the harness puts the timing values back: output 1 is that input
    checker.settle_late()
    assert [(f.check, f.detail.split(" changed")[0]) for f in rt.findings] == [
        ("late-write", "output(s) [0]")]  # fmt: skip
    assert checker.unsettled == []

    checker.call([torch.ones(4)], defer=True)  # nothing written late: nothing found
    checker.settle_late()
    assert len(rt.findings) == 1


def test_deferred_calls_wait_out_their_settle_time_once(rt, monkeypatch) -> None:  # noqa: ANN001
    """Correctness trials after the first defer their late-write check: the wait for late
    writes (``SETTLE_S``) is spent once, after the last of them (outside the device's shared
    hold), not after each call."""
    import time

    from passnet.integrity import checks, runtime
    from passnet.integrity.checks import CandidateChecker

    slept: list[float] = []
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(runtime.time, "sleep", sleep)  # the module object both modules use
    checker = CandidateChecker(rt, lambda x: x * 2, lambda x: x * 2, torch.device("cpu"))
    for _ in range(3):
        checker.call([torch.ones(4)], defer=True)
    waits = lambda: [s for s in slept if s > 0]  # noqa: E731 - after_call sleeps 0 when deferred
    assert waits() == []  # no settle wait per call
    checker.wait_deferred()
    assert len(waits()) == 1 and waits()[0] <= runtime.SETTLE_S
    assert time.monotonic() - checker.last_deferred >= runtime.SETTLE_S
    checker.settle_late()  # waited already: no second wait
    assert len(waits()) == 1 and checker.unsettled == [] and rt.findings == []
    checker.wait_deferred()  # nothing deferred: no wait
    assert len(waits()) == 1 and checks.time is runtime.time


def test_a_timed_check_judged_on_the_banks_outputs_finds_what_a_reference_run_would(rt) -> None:  # noqa: ANN001
    """A checked timed call of a reference that writes into none of its inputs is judged
    without running the reference again: the bank's outputs for its values and the aliasing
    the correctness trials saw. It still finds an input written, an output over an input's
    storage the reference's does not share, and elements left unwritten."""
    from passnet.integrity.checks import CandidateChecker

    reference = lambda x, y: (x + y, y.t())  # noqa: E731 - output 1 is a view of input 1
    checker = CandidateChecker(rt, reference, reference, torch.device("cpu"))
    x, y = torch.ones(3, 3), torch.full((3, 3), 2.0)
    with pytest.raises(RuntimeError, match="before any judge"):
        checker.judge_known((x + y, y.t()), [x, y], set(), reference(x, y))
    checker.judge((x + y, y.t()), [x, y], set(), reference(x, y), [x, y], set())
    assert checker.ref_aliases == {1: ("input", 1)} and rt.findings == []
    expected = reference(x, y)
    checker.judge_known((x + y, y.t()), [x, y], set(), expected)  # as the reference does
    assert rt.findings == []
    bad = torch.full((3, 3), float("nan"))
    bad[0] = 3.0
    checker.judge_known((bad, x), [x, y], {0}, expected)
    assert {f.check for f in rt.findings} == {"input-mutated", "output-aliasing",
                                              "unwritten-output"}  # fmt: skip
    assert "output 0: 6 of 9 elements" in next(
        f.detail for f in rt.findings if f.check == "unwritten-output")  # fmt: skip
