"""A runtime audit hook (PEP 578) that refuses what a pass's Python must never do.

The static policy reads a pass; this hook watches the interpreter. It is installed in a pass
worker before the pass is imported and cannot be removed (``sys.addaudithook`` has no
inverse). While any frame of the pass folder's code is on the current thread's stack (its
import, pattern matching, every call, threads it started), the events below are refused: the
hook raises ``PermissionError`` and reports a fatal finding naming the event and the pass's
line. Catching the error does not help: the finding is already recorded.

Which code issued an event decides. The *issuer* is the innermost frame outside the standard
library and outside code compiled at run time (``inspect.currentframe`` or ``traceback``
called by the pass are the pass's own calls; so are Triton's generated argument binders called
by Triton). Each event class has sites of library code that legitimately issue it while a pass
runs (Triton compiling a kernel the pass launches spawns ``ptxas`` and writes its cache;
torch.fx reads frames while it traces a pattern); any other issuer, the pass or a library
function it handed a callable to, is refused. Events of harness code (``passnet``) pass.

- ``frame``: ``sys._getframe``, ``sys._current_frames``, frame/traceback/generator/coroutine
  frame attributes (``tb_frame``, ``gi_frame``, ``f_code``, ...): the way to the harness's
  locals (the timing loop's samples, the checked-call positions, the timing inputs).
- ``gc-walk``: ``gc.get_objects`` / ``get_referrers`` / ``get_referents``.
- ``trace-hook``: ``sys.settrace``, ``sys.setprofile``, ``sys.monitoring``, a second audit hook.
- ``native-code``: ``ctypes`` (raw memory, raw launches, the driver behind the harness's back).
- ``dynamic-code``: ``exec``, ``compile``, new code objects, ``marshal``/``pickle`` loads.
- ``process``: subprocesses, ``fork``, ``exec*``, signals to other processes.
- ``network``: sockets.
- ``file-access``: ``open`` outside the pass folder (read), the worker's private TMPDIR and
  the pass's own Triton cache; file-system changes (remove, rename, mkdir, ...).
- ``env``: changing environment variables.
- ``import``: loading a module that is not torch, triton, math, passnet or the pass's own.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

FRAME_ATTRS = frozenset("tb_frame gi_frame cr_frame ag_frame f_code f_back f_locals".split())
EVENTS: dict[str, str] = {
    "sys._getframe": "frame", "sys._current_frames": "frame",
    "sys._getframemodulename": "frame", "object.__getattr__": "frame",
    "gc.get_objects": "gc-walk", "gc.get_referrers": "gc-walk", "gc.get_referents": "gc-walk",
    "sys.settrace": "trace-hook", "sys.setprofile": "trace-hook",
    "sys.addaudithook": "trace-hook", "sys.monitoring.register_callback": "trace-hook",
    "object.__setattr__": "monkey-patch", "object.__delattr__": "monkey-patch",
    "exec": "dynamic-code", "compile": "dynamic-code", "code.__new__": "dynamic-code",
    "marshal.loads": "dynamic-code", "marshal.load": "dynamic-code",
    "pickle.find_class": "dynamic-code",
    "subprocess.Popen": "process", "os.system": "process", "os.exec": "process",
    "os.posix_spawn": "process", "os.spawn": "process", "os.fork": "process",
    "os.forkpty": "process", "os.kill": "process", "os.killpg": "process",
    "pty.spawn": "process", "signal.pthread_kill": "process",
    "_thread.start_new_thread": "process",
    "open": "file-access", "os.remove": "file-access", "os.rename": "file-access",
    "os.rmdir": "file-access", "os.mkdir": "file-access", "os.chmod": "file-access",
    "os.chown": "file-access", "os.symlink": "file-access", "os.link": "file-access",
    "os.truncate": "file-access", "os.utime": "file-access", "os.listdir": "file-access",
    "os.scandir": "file-access", "shutil.copyfile": "file-access", "shutil.rmtree": "file-access",
    "shutil.move": "file-access", "os.putenv": "env", "os.unsetenv": "env",
    "import": "import",
}  # fmt: skip
#: What library code must name to issue an event of these classes while a pass runs: code
#: that calls the API itself, not a callable the pass handed it (``tree_map(sys._getframe,
#: ...)``). Other classes are library code's own business (Triton compiling a kernel spawns
#: ``ptxas`` and writes its cache), but for memory behind the interpreter's back.
NAMED: dict[str, frozenset[str]] = {kind: frozenset(names.split()) for kind, names in {
    "frame": "_getframe currentframe _current_frames stack extract_stack walk_stack "
             "format_stack print_stack exc_info format_exc print_exc extract_tb format_tb "
             "format_exception print_exception TracebackException StackSummary getframeinfo "
             "getouterframes getinnerframes tb_frame gi_frame cr_frame f_back f_code "
             "TypeVar namedtuple warn findCaller _caller warning info debug error "
             "exception critical log",  # logging finds its caller's frame
    "gc-walk": "get_objects get_referrers get_referents",
    "trace-hook": "settrace setprofile monitoring addaudithook",
    "native-code": "ctypes CDLL cdll pythonapi",
}.items()}  # fmt: skip
_IMPORT_OK = frozenset({"torch", "triton", "math", "passnet", "pass_dir", "__future__"})
_TRANSPARENT = (os.sep + "typing_extensions.py",)  # the standard library's typing, backported
_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _dir(module: str) -> str:
    found = sys.modules.get(module)
    path = getattr(found, "__file__", None)
    return str(Path(path).resolve().parent) + os.sep if path else "\0"


def _package_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    found = {str(Path(p).resolve()) + os.sep for p in (paths["purelib"], paths["platlib"])}
    found |= {str(Path(p).resolve()) + os.sep for p in sys.path if p.endswith("-packages")}
    return tuple(sorted(found))


def _stdlib_root() -> str:
    return str(Path(sysconfig.get_paths()["stdlib"]).resolve()) + os.sep


class AuditHook:
    """The hook's configuration and its judgement; ``install`` registers ``hook``."""

    def __init__(self, pass_dir: str, writable: Iterable[str],
                 report: Callable[[str, str], None]) -> None:  # fmt: skip
        real = os.path.realpath(pass_dir)
        self.pass_roots = tuple({os.path.join(p, "") for p in (pass_dir, real)})
        self.own_modules = _IMPORT_OK | {p.name.removesuffix(".py") for p in Path(real).iterdir()}
        self.writable = tuple({os.path.join(os.path.realpath(w), "") for w in writable if w})
        self.report = report
        torch_dir, triton_dir, passnet_dir = _dir("torch"), _dir("triton"), _dir("passnet")
        self.stdlib = _stdlib_root()
        self.harness = (passnet_dir,)
        # packages (torch, triton and what they use) and the standard library: readable, and
        # their code may issue events of its own while a pass runs (Triton compiling a kernel)
        self.library = (torch_dir, triton_dir, self.stdlib, *_package_roots())
        self.busy: set[int] = set()
        # ids of every function whose code was set in this process since, whoever set it
        # (the harness watch reads this instead of each watched function's ``__code__``)
        self.code_swaps: set[int] = set()
        self.get_ident = threading.get_ident
        self.getframe = sys._getframe

    def hook(self, event: str, args: tuple) -> None:
        kind = EVENTS.get(event)
        if kind is None:
            if not event.startswith("ctypes."):
                return
            kind = "native-code"
        elif event == "object.__getattr__" and (len(args) < 2 or args[1] not in FRAME_ATTRS):
            return  # every ``function.__code__`` read raises it: the common case, cheaply
        elif event == "object.__setattr__" and len(args) > 1 and args[1] == "__code__":
            self.code_swaps.add(id(args[0]))
        me = self.get_ident()
        if me in self.busy:  # the hook's own frame walk raises events too
            return
        self.busy.add(me)
        try:
            why = self.judge(event, kind, args, self.getframe(1))
        finally:
            self.busy.discard(me)
        if why:
            self.report(kind, why)
            raise PermissionError(f"passnet integrity: {why}")

    def judge(self, event: str, kind: str, args: tuple, frame: object) -> str:
        """Why the event is refused ('' when it is not)."""
        if event == "object.__getattr__" and (len(args) < 2 or args[1] not in FRAME_ATTRS):
            return ""
        # issuer: the innermost frame outside the standard library; importing: the import
        # system between the event and the issuer (reading a module); loading: between the
        # issuer and the pass (a library module being imported on the pass's behalf)
        issuer, seen_pass, importing, loading = None, False, False, False
        f = frame
        while f is not None:
            code = f.f_code  # type: ignore[attr-defined]
            name = code.co_filename
            if issuer is None:
                if self.is_stdlib(name):
                    importing = importing or name.startswith("<frozen importlib")
                elif not _generated(name):
                    issuer = f
                    if name.startswith(self.harness) and not name.startswith(self.pass_roots):
                        # the harness's own (its probes' ``/proc`` reads), no further walk; a
                        # pass folder inside the package (e.g. _data/) is a pass
                        return ""
            elif name.startswith("<frozen importlib"):
                loading = True
            if name.startswith(self.pass_roots):
                seen_pass = True
                if issuer is not None:
                    break
            f = f.f_back  # type: ignore[attr-defined]
        if not seen_pass or issuer is None:
            return ""
        code = issuer.f_code  # type: ignore[attr-defined]
        name = code.co_filename
        if kind == "file-access" and event == "open" and args and _raw_memory(args[0]):
            pass  # /proc/self/mem and the like: from any issuer
        elif importing and kind in ("file-access", "dynamic-code") and self.read_only(event, args):
            return ""  # the import system reading a module's code
        elif name.startswith(self.library) and not name.startswith(self.pass_roots):
            if (
                loading
                or importing
                or kind not in NAMED
                or not NAMED[kind].isdisjoint(code.co_names)
            ):
                # library code calling the API itself, not a callable it was given, or a module
                # it imports (``namedtuple`` reads its caller's frame)
                return ""
            if kind == "native-code" and _imports_ctypes(issuer):
                return ""
        elif kind == "file-access" and self.file_ok(event, args):
            return ""
        elif kind == "import" and args and str(args[0]).split(".")[0] in self.own_modules:
            return ""
        where = f"{_short(name)}:{issuer.f_lineno} in {code.co_name}"  # type: ignore[attr-defined]
        return f"{event} refused while pass code runs (issued at {where})"

    def read_only(self, event: str, args: tuple) -> bool:
        if event != "open":  # (the import system lists the folders of sys.path)
            return event in ("exec", "marshal.loads", "compile", "os.listdir", "os.scandir")
        mode, flags = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else 0)
        return not (any(c in str(mode or "") for c in "wax+") or bool((flags or 0) & _WRITE))

    def is_stdlib(self, name: str) -> bool:
        """Standard-library code (a trampoline: the caller issued the event), not packages."""
        if name.startswith("<frozen ") or name.endswith(_TRANSPARENT):
            return True
        return name.startswith(self.stdlib) and "-packages" not in name

    def file_ok(self, event: str, args: tuple) -> bool:
        """``open`` of a file the pass may touch: its folder or the library (read), the
        worker's TMPDIR or the pass's Triton cache (read and write)."""
        if event != "open" or not args or not isinstance(args[0], (str, bytes, os.PathLike)):
            return False
        path = os.path.realpath(os.fsdecode(args[0]))
        if path.startswith(self.writable):
            return True
        return self.read_only(event, args) and path.startswith(self.pass_roots + self.library)


def _short(path: str) -> str:
    """A path from its package down (``triton/runtime/jit.py``), or its base name."""
    parts = Path(path).parts
    for top in ("torch", "triton", "passnet"):
        if top in parts:
            return "/".join(parts[len(parts) - parts[::-1].index(top) - 1 :])
    return os.path.basename(path)


def _generated(name: str) -> bool:
    """Code compiled at run time (``<string>``: Triton's argument binder, torch.fx's
    ``<eval_with_key>``): its caller decides, as for the standard library's trampolines. The
    pass cannot make such code (``exec``/``compile`` are refused for it), and the memory
    classes still need the caller's own code to name the API (``NAMED``)."""
    return name.startswith("<") and not name.startswith("<frozen ")


def _raw_memory(path: object) -> bool:
    """A file that is a process's or the machine's memory."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False
    text = os.fsdecode(path)
    return text.startswith(("/proc/", "/dev/mem", "/dev/kmem")) and (
        text.endswith(("/mem", "/pagemap")) or text.startswith("/dev/")
    )


def _imports_ctypes(frame: object) -> bool:
    """The issuing library module uses ctypes itself (torch.cuda's NVML queries)."""
    return frame.f_globals.get("ctypes") is sys.modules.get("ctypes")  # type: ignore[attr-defined]


def install(
    pass_dir: str, writable: Iterable[str], report: Callable[[str, str], None]
) -> AuditHook:
    """Register the hook for the rest of the process (a worker evaluates one variant)."""
    hook = AuditHook(pass_dir, writable, report)
    sys.addaudithook(hook.hook)
    return hook
