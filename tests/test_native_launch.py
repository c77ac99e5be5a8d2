"""The C hot path of the cheap launch path: its key separates what Triton specialises on, and
its launch calls exactly the table entry the Python path stored (CPU: a tensor subclass that
reports device 0 stands in for a CUDA tensor, fake launchers record the call)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch

from passnet.passes import launch, native_launch
from passnet.passes.plans import plan_cache

native = native_launch.load()
pytestmark = pytest.mark.skipif(native is None, reason=f"native launch: {native_launch.status()}")


class OnDevice0(torch.Tensor):
    """A CPU tensor that says it lives on device 0, so the key treats it as a GPU tensor."""

    def get_device(self) -> int:  # type: ignore[override]
        return 0


def _gpuish(t: torch.Tensor) -> torch.Tensor:
    return t.as_subclass(OnDevice0)


@pytest.fixture
def streams() -> Iterator[list[int]]:
    """A fake current-stream getter for the duration of a test; restores torch's after."""
    asked: list[int] = []

    def stream(index: int) -> int:
        asked.append(index)
        return 1000 + index

    native.init(torch.Tensor, stream)
    yield asked
    native.init(torch.Tensor, getattr(torch._C, "_cuda_getCurrentRawStream", None))


def test_key_separates_what_triton_specialises_on() -> None:
    x = torch.zeros(64)
    k = native.key
    assert k((x, 16), None) == k((torch.ones(64), 32), None)  # same dtype, alignment, flags
    assert k((x, 16), None) != k((x.view(-1)[1:], 16), None)  # 4-byte offset: unaligned
    assert k((x, 16), None) != k((x.half(), 16), None)  # dtype
    assert k((x, 16), None) != k((x, 17), None)  # divisible by 16 or not
    assert k((x, 2), None) != k((x, 1), None)  # == 1
    assert k((x, 2), None) != k((x, 2**40), None)  # int32 or int64
    assert k((x, -16), None) == k((x, 32), None)  # two's complement, as Python's & 15
    assert k((x, 1.5), None) == k((x, 2.5), None)  # floats by type only
    assert k((x, True), None) != k((x, False), None)  # bools by value
    assert k((x, None), None) != k((x, 0.0), None)
    assert k((x,), {"BLOCK": 64}) != k((x,), {"BLOCK": 128})  # constexprs by value
    assert k((x,), {"BLOCK": 64})[1] == -1  # a CPU tensor: no device, the Python path runs
    assert k((_gpuish(x),), None)[1] == 0


def test_key_declines_what_it_does_not_key() -> None:
    x = torch.zeros(4)
    assert native.key((x, "a string"), None) is None
    assert native.key((x, 2**70), None) is None  # beyond int64
    assert native.key(tuple([x] * 200), None) is None  # longer than its buffer
    with pytest.raises(TypeError):
        native.key([x], None)


def test_launch_calls_a_tuple_entry_as_the_static_launcher(streams: list[int]) -> None:
    x = _gpuish(torch.zeros(256))
    calls: list[tuple] = []
    table: dict[Any, Any] = {}
    args = (x, x, 256)
    key, index = native.key(args, {})
    assert index == 0
    table[key] = (lambda *a: calls.append(a), "FUNCTION", 4, 0, "OOi")
    assert native.launch(table, (2,), args, {}) is True
    assert calls == [("FUNCTION", 2, 1, 1, 4, 0, "OOi", args, 1000)]
    assert streams == [0]
    assert native.launch(table, [2, 3, 4], args, {}) is True
    assert calls[-1][1:4] == (2, 3, 4)
    # a grid taken from a frozen launch plan (a tuple subclass) launches here too: declined,
    # every call would pay the Python path (H200: synthesised passes' calls twice as long)
    frozen = plan_cache(lambda n: [n, 1])[5,]
    assert type(frozen) is not tuple and native.launch(table, frozen, args, {}) is True
    assert calls[-1][1:4] == (5, 1, 1)


def test_launch_calls_other_entries_with_grid_stream_args_kwargs(streams: list[int]) -> None:
    x = _gpuish(torch.zeros(8))
    seen: list[tuple] = []
    args, kwargs = (x, 8), {"BLOCK": 8}
    table = {native.key(args, kwargs)[0]: lambda *a: seen.append(a)}
    assert native.launch(table, (5, 6), args, kwargs) is True
    assert seen == [(5, 6, 1, 1000, args, kwargs)]


def test_launch_declines_to_the_python_path(streams: list[int]) -> None:
    x = _gpuish(torch.zeros(8))
    hit = {native.key((x,), {})[0]: lambda *a: pytest.fail("must not launch")}
    assert native.launch({}, (1,), (x,), {}) is False  # a miss: Python compiles
    assert native.launch(hit, lambda meta: (1,), (x,), {}) is False  # callable grid
    assert native.launch(hit, (1, 1, 1, 1), (x,), {}) is False  # 4-d grid
    assert native.launch(hit, (1.0,), (x,), {}) is False  # not an int
    assert native.launch(hit, (1,), (torch.zeros(8),), {}) is False  # CPU tensor
    assert native.launch(hit, (1,), (x, "s"), {}) is False  # unkeyed argument
    assert native.launch(hit, (1,), (x,), {"BLOCK": 8}) is False  # another specialisation


def test_launch_errors_propagate(streams: list[int]) -> None:
    x = _gpuish(torch.zeros(8))

    def boom(*a: Any) -> None:
        raise ValueError("launch failed")

    table = {native.key((x,), {})[0]: boom}
    with pytest.raises(ValueError, match="launch failed"):
        native.launch(table, (1,), (x,), {})


def test_cached_kernel_uses_the_native_key_for_what_it_compiles() -> None:
    """What Python stores after a compile must be what the C lookup finds."""
    x = _gpuish(torch.zeros(8))
    assert launch._key((x, 8), {"BLOCK": 8}) == native.key((x, 8), {"BLOCK": 8})
    assert launch._key((x, "s"), {}) == launch._specialisation((x, "s"), {})


def test_build_failure_is_a_status_not_an_error(tmp_path: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(native_launch, "_tried", False)
    monkeypatch.setattr(native_launch, "_module", None)
    monkeypatch.setattr(native_launch, "_status", native_launch.status())
    monkeypatch.setenv("PASSNET_NATIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CC", "/nonexistent/cc")
    monkeypatch.setenv("PATH", str(tmp_path))  # no cc, gcc or clang either
    assert native_launch.load() is None
    assert "no C compiler" in native_launch.status()
    assert not list((tmp_path / "cache").rglob("*.so"))
    monkeypatch.setattr(native_launch, "_tried", False)
    monkeypatch.setenv("PASSNET_NATIVE_LAUNCH", "0")
    assert native_launch.load() is None
    assert "switched off" in native_launch.status()


def test_launches_are_counted_in_c_and_skip_counts_without_launching(streams: list[int]) -> None:
    x = _gpuish(torch.zeros(8))
    calls: list[tuple] = []
    table = {native.key((x,), {})[0]: lambda *a: calls.append(a)}
    start = native.launched()
    assert native.launch(table, (1,), (x,), {}) is True
    assert native.launched() == start + 1
    assert native.launch({}, (1,), (x,), {}) is False  # declined: not counted here
    assert native.launched() == start + 1
    assert native.skip(True) is False
    try:
        assert native.launch(table, (1,), (x,), {}) is True  # counted, not made
    finally:
        assert native.skip(False) is True
    assert len(calls) == 1 and native.launched() == start + 2


def test_runtime_reads_the_native_count_without_a_frame_on_the_hot_path(
    streams: list[int],
) -> None:
    """The integrity runtime hooks only the cheap launch path's Python side: a timed call's
    native launches pay no Python wrapper, and are still counted and ghosted."""
    from passnet.integrity.runtime import Runtime

    plain = vars(launch.CachedKernel)["launch"]
    rt = Runtime(torch.device("cpu"))
    try:
        assert vars(launch.CachedKernel)["launch"] is plain  # the hot path is not wrapped
        assert getattr(vars(launch.CachedKernel)["launch_python"], "_passnet_hook", False)
        x = _gpuish(torch.zeros(8))
        calls: list[tuple] = []
        table = {native.key((x,), {})[0]: lambda *a: calls.append(a)}
        before = rt.launched
        assert native.launch(table, (1,), (x,), {}) is True
        assert rt.launched == before + 1 and len(calls) == 1
        rt.ghost = True
        assert native.launch(table, (1,), (x,), {}) is True
        assert rt.launched == before + 2 and len(calls) == 1  # a ghost replay launches nothing
    finally:
        rt.ghost = False
        rt.close()
    assert native.launch(table, (1,), (x,), {}) is True and len(calls) == 2
