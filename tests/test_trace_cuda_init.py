"""scripts/trace_cuda_init.py finds the Python call under which a driver-like thread starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DRIVER = """
import threading, time
from passnet.evaluation.lifetime import set_name

def init():
    named = threading.Event()
    def run():
        set_name("cuda-fake-drv")
        named.set()
        time.sleep(30)
    threading.Thread(target=run, daemon=True).start()
    named.wait()
"""


def _trace(tmp_path: Path, *modules: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts/trace_cuda_init.py"), "--prelude", "json", *modules],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip


def test_names_the_call_that_starts_a_driver_thread(tmp_path):
    (tmp_path / "fakedrv.py").write_text(DRIVER)
    (tmp_path / "quiet.py").write_text("import fakedrv\nX = 1\n")
    (tmp_path / "loud.py").write_text("import quiet\nimport fakedrv\n\nfakedrv.init()\n")
    out = _trace(tmp_path, "quiet")
    assert out.returncode == 0, out.stderr
    assert "no thread named cuda*" in out.stdout
    out = _trace(tmp_path, "loud")
    assert out.returncode == 1, out.stderr
    assert "thread 'cuda-fake-drv' appeared" in out.stdout
    assert 'loud.py", line 4' in out.stdout  # the module-level call that started it
    assert "in init" in out.stdout
