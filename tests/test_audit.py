"""The runtime audit hook (passnet.integrity.audit), in a process of its own: an audit hook
cannot be removed, so it never runs in the test process. The evaluator's use of it (exploit
passes rejected with ``audit:*`` findings) is in tests/test_integrity_attacks.py."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

PASS = """
import ctypes, gc, inspect, subprocess, sys
import torch.utils._pytree as pytree

def getframe(): return sys._getframe()
def currentframe(): return inspect.currentframe()
def current_frames(): return sys._current_frames()
def laundered(): return pytree.tree_map(sys._getframe, [0])
def traceback_frame():
    try:
        raise ValueError
    except ValueError as exc:
        return exc.__traceback__.tb_frame
def generator_frame():
    g = (x for x in [1])
    return g.gi_frame
def gc_walk(): return gc.get_objects()
def settrace(): sys.settrace(None)
def native(): return ctypes.CDLL(None)
def spawn(): return subprocess.run(["true"])
def dynamic(): return exec("1")
def read_outside(): return open("/etc/hostname").read()
def read_memory(): return open("/proc/self/mem", "rb")
def read_own(): return open(__file__).read()[:1]
def write_tmp(path): return open(path, "w").write("x")
def allocate():
    import torch
    return torch.empty(3).shape
def import_new():
    import xml.dom.minidom
"""

DRIVER = """
import importlib.util, json, sys, tempfile
import ctypes, gc, inspect, subprocess, torch.utils._pytree  # loaded in a worker before a pass
from passnet.integrity import audit
pass_dir, tmp = sys.argv[1], sys.argv[2]
found = []
audit.install(pass_dir, [tmp], lambda kind, detail: found.append(kind))
spec = importlib.util.spec_from_file_location("evil", pass_dir + "/evil.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
out = {}
for name in ("getframe currentframe current_frames laundered traceback_frame generator_frame "
             "gc_walk settrace native spawn dynamic read_outside read_memory read_own "
             "allocate import_new").split():
    found.clear()
    try:
        getattr(mod, name)()
        out[name] = ["allowed", *found]
    except PermissionError:
        out[name] = ["refused", *found]
found.clear()
mod.write_tmp(tmp + "/scratch")
out["write_tmp"] = ["allowed", *found]
out["harness"] = [type(sys._getframe()).__name__]  # no pass code on the stack: allowed
print(json.dumps(out))

"""


def test_the_hook_refuses_what_pass_code_does_and_lets_the_library_work(tmp_path: Path) -> None:
    pass_dir = tmp_path / "pass"
    pass_dir.mkdir()
    (pass_dir / "evil.py").write_text(textwrap.dedent(PASS))
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(pass_dir), str(tmp_path)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    refused = {
        "getframe": "frame", "currentframe": "frame", "current_frames": "frame",
        "laundered": "frame", "traceback_frame": "frame", "generator_frame": "frame",
        "gc_walk": "gc-walk", "settrace": "trace-hook", "native": "native-code",
        "spawn": "process", "dynamic": "dynamic-code", "read_outside": "file-access",
        "read_memory": "file-access", "import_new": "import",
    }  # fmt: skip
    for name, kind in refused.items():
        assert out[name][0] == "refused" and kind in out[name], (name, out[name])
    for name in ("read_own", "allocate", "write_tmp"):
        assert out[name] == ["allowed"], (name, out[name])
    assert out["harness"] == ["frame"]


def test_a_pass_folder_inside_the_harness_package_is_still_pass_code(tmp_path: Path) -> None:
    """An installed wheel ships its bundled passes inside the package (``passnet/_data``):
    their code is a pass's, not the harness's."""
    pass_dir = tmp_path / "pkg" / "_data" / "pass"
    pass_dir.mkdir(parents=True)
    (pass_dir / "evil.py").write_text("import sys\n\ndef getframe(): return sys._getframe()\n")
    driver = f"""
import importlib.util, sys
from passnet.integrity.audit import AuditHook
hook = AuditHook({str(pass_dir)!r}, [], lambda kind, detail: None)
hook.harness = ({str(tmp_path / "pkg")!r} + "/",)  # as if the package held the pass
sys.addaudithook(hook.hook)
spec = importlib.util.spec_from_file_location("evil", {str(pass_dir / "evil.py")!r})
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
try:
    mod.getframe()
    print("allowed")
except PermissionError:
    print("refused")
"""
    proc = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "refused"
