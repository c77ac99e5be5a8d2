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


LIB = """
import sys

def binder():  # like Triton's argument binder: compiled at run time, called by its library
    ns = {}
    exec("def dynamic_func(x):\\n    import wave\\n    return x\\n", ns)
    return ns["dynamic_func"]

def frame_getter():
    ns = {"sys": sys}
    exec("def dynamic_frame():\\n    return sys._getframe()\\n", ns)
    return ns["dynamic_frame"]

def run(fn, *args):
    return fn(*args)
"""


def test_code_compiled_at_run_time_is_judged_by_its_caller(tmp_path: Path) -> None:
    """Triton binds a kernel's arguments with a function it compiles (``<string>``); what that
    function does while a pass launches (the import system listing sys.path) is Triton's, while
    the same kind of function called by the pass itself, or handed a frame read, is refused."""
    pass_dir, lib = tmp_path / "pass", tmp_path / "lib"
    pass_dir.mkdir()
    lib.mkdir()
    (lib / "fakelib.py").write_text(textwrap.dedent(LIB))
    (pass_dir / "user.py").write_text(
        "def through_library(lib, fn): return lib.run(fn, 1)\ndef direct(fn): return fn()\n"
    )
    driver = f"""
import importlib.util, sys
sys.path.insert(0, {str(lib)!r})
import fakelib
from passnet.integrity.audit import AuditHook
hook = AuditHook({str(pass_dir)!r}, [], lambda kind, detail: None)
hook.library = (*hook.library, {str(lib)!r} + "/")
sys.addaudithook(hook.hook)
spec = importlib.util.spec_from_file_location("user", {str(pass_dir / "user.py")!r})
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
binder, getter = fakelib.binder(), fakelib.frame_getter()
for name, call in [("binder", lambda: mod.through_library(fakelib, binder)),
                   ("direct_frame", lambda: mod.direct(getter)),
                   ("library_frame", lambda: mod.through_library(fakelib, lambda _: getter()))]:
    try:
        call()
        print(name, "allowed")
    except PermissionError:
        print(name, "refused")
"""
    proc = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = dict(line.split() for line in proc.stdout.strip().splitlines()[-3:])
    assert out == {"binder": "allowed", "direct_frame": "refused", "library_frame": "refused"}


def test_attribute_reads_that_reach_no_frame_are_let_through_before_any_stack_walk(
    tmp_path: Path,
) -> None:
    """Every ``function.__code__`` read raises ``object.__getattr__`` (the runtime's harness
    check reads thousands): only the frame attributes are judged (called here, not installed)."""
    from passnet.integrity.audit import AuditHook

    hook = AuditHook(str(tmp_path), [], lambda kind, detail: None)
    judged: list[tuple] = []
    hook.judge = lambda event, kind, args, frame: judged.append((event, args)) or ""  # type: ignore[method-assign]
    hook.hook("object.__getattr__", (len, "__code__"))
    hook.hook("object.__getattr__", (len,))
    assert judged == []
    hook.hook("object.__getattr__", (len, "f_back"))
    hook.hook("sys._getframe", (1,))
    assert judged == [("object.__getattr__", (len, "f_back")), ("sys._getframe", (1,))]


SWAPS = """
import importlib.util, json, sys
from passnet.integrity import audit
from passnet.integrity.harness_watch import HarnessWatch
import types
pass_dir = sys.argv[1]
hook = audit.install(pass_dir, [], lambda kind, detail: None)
mod = types.ModuleType("harness_like")
exec("def timer(): return 1\\ndef other(): return 2\\ndef spare(): return 3", vars(mod))
watch = HarnessWatch([mod], hook.code_swaps)
clean = watch.changed()
mod.spare.__code__ = mod.other.__code__  # library or harness code: allowed, but recorded
after_spare = watch.changed()
spec = importlib.util.spec_from_file_location("evil", pass_dir + "/swap.py")
evil = importlib.util.module_from_spec(spec)
spec.loader.exec_module(evil)
try:
    evil.swap(mod.timer, mod.other)
    refused = False
except PermissionError:
    refused = True
print(json.dumps([clean, after_spare, refused, watch.changed()]))
"""


def test_the_hook_records_every_code_swap_for_the_harness_watch(tmp_path: Path) -> None:
    """``AuditHook.code_swaps`` holds every function whose code was set, by whom ever: the
    harness watch reads it instead of each function's code; a pass's swap is refused and
    still recorded."""
    pass_dir = tmp_path / "pass"
    pass_dir.mkdir()
    (pass_dir / "swap.py").write_text("def swap(f, g):\n    f.__code__ = g.__code__\n")
    proc = subprocess.run([sys.executable, "-c", SWAPS, str(pass_dir)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    clean, after_spare, refused, after_pass = json.loads(proc.stdout.strip().splitlines()[-1])
    assert clean == [] and after_spare == ["harness_like.spare"]
    assert refused and after_pass == ["harness_like.timer", "harness_like.spare"]
