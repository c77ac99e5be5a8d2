"""Worker Triton stats (passnet/evaluation/compile_stats.py). CPU runs Triton's interpreter,
which compiles nothing, so the listener is fed Triton's own CompileTimes here; the hooks are
installed into and removed from the real Triton."""

from __future__ import annotations

import pytest

from passnet.evaluation.compile_stats import TritonStats, merge, triton_line

knobs = pytest.importorskip("triton.knobs")


def times(ir: int, stages: list[tuple[str, int]], store: int):  # noqa: ANN201
    return knobs.CompileTimes(ir_initialization=ir, lowering_stages=stages, store_results=store)


def test_listener_counts_compiles_hits_and_stage_seconds() -> None:
    stats = TritonStats()
    assert stats.summary() == {}  # nothing compiled: nothing to report
    stats.listen(src=None, metadata={}, metadata_group={}, cache_hit=False,
                 times=times(100_000, [("ttir", 200_000), ("cubin", 1_500_000)], 50_000))  # fmt: skip
    stats.listen(src=None, metadata={}, metadata_group={}, cache_hit=True,
                 times=times(5, [("ttir", 7)], 1))  # fmt: skip
    out = stats.summary()
    assert out["compiles"] == 2 and out["cache_hits"] == 1
    assert out["cubin_s"] == 1.5 and out["ttir_s"] == 0.2 and out["ir_s"] == 0.1
    assert out["compile_s"] == pytest.approx(1.85)  # a cache hit adds no compile time
    line = triton_line(out)
    assert "2 compiles (1 from its cache), 1.9 s compiling (cubin 1.5 s, ttir 0.2 s" in line


def test_install_hooks_triton_and_uninstall_restores_it() -> None:
    from triton.compiler.compiler import CompiledKernel

    before_listener = knobs.compilation.listener
    before_init = vars(CompiledKernel)["_init_handles"]
    stats = TritonStats()
    assert stats.install()
    try:
        assert knobs.compilation.listener == stats.listen
        assert vars(CompiledKernel)["_init_handles"] is not before_init
    finally:
        stats.uninstall()
    assert knobs.compilation.listener is before_listener
    assert vars(CompiledKernel)["_init_handles"] is before_init


def test_merge_sums_worker_summaries_for_the_bench_line() -> None:
    total: dict[str, float] = {}
    merge(total, {"compiles": 2, "cache_hits": 0, "compile_s": 3.0, "cubin_s": 2.0,
                  "loads": 2, "load_s": 0.5})  # fmt: skip
    merge(total, {"compiles": 1, "cache_hits": 1, "compile_s": 0.0, "loads": 1, "load_s": 0.25})
    assert total == {"compiles": 3, "cache_hits": 1, "compile_s": 3.0, "cubin_s": 2.0,
                     "loads": 3, "load_s": 0.75}  # fmt: skip
    assert triton_line(total).endswith("3 kernel loads, 0.8 s")


def test_warm_driver_builds_the_driver_module_from_the_trusted_cache(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """The module is built while TRITON_CACHE_DIR names the shared cache, and the pass's own
    cache folder is back in place afterwards."""
    from triton.runtime import driver

    seen = []

    class FakeActive:
        @property
        def utils(self) -> object:
            import os

            seen.append(os.environ.get("TRITON_CACHE_DIR"))
            return object()

    monkeypatch.setattr(driver, "_active", FakeActive())  # what driver.active returns
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "pass-own"))
    stats = TritonStats()
    stats.warm_driver(tmp_path / "shared")
    assert seen == [str(tmp_path / "shared" / "triton")]
    import os

    assert os.environ["TRITON_CACHE_DIR"] == str(tmp_path / "pass-own")
    assert stats.summary()["driver_s"] >= 0
    assert "driver module" in triton_line(stats.summary())


def test_warm_driver_without_a_driver_or_cache_changes_nothing(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    from triton.runtime import driver

    class NoDriver:
        @property
        def utils(self) -> object:
            raise RuntimeError("0 active drivers")

    monkeypatch.setattr(driver, "_active", NoDriver())
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    stats = TritonStats()
    stats.warm_driver(tmp_path)
    stats.warm_driver(None)
    import os

    assert "TRITON_CACHE_DIR" not in os.environ
    assert stats.summary() == {}
