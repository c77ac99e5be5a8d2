"""What the static integrity policy refuses, and why: one rule name per class of exploit.

``policy_allow`` says what a pass may name; everything else is refused. This table only gives a
refused name its precise rule and reason (``ctypes`` is ``native-code``, ``time`` is ``timer``)
and refuses the few names below an allowed module that must never be reached
(``torch.backends``, ``triton.runtime``). :func:`lookup` answers for any dotted name; ``WHY``
holds each rule's default reason, also for the rules the walker applies without a name
(``attribute``, ``builtin``, ``write``).
"""

from __future__ import annotations

from passnet.integrity.policy_allow import PASS_API

#: Builtins refused with a rule more precise than ``builtin``.
BUILTINS = {
    name: rule
    for rule, names in (
        ("dynamic-code", "exec eval compile __import__"),
        ("io", "open input"),
        ("identity", "id hash"),
        ("mutable-cache", "next iter"),
        ("reflection", "globals locals vars getattr setattr delattr hasattr dir type __builtins__"),
        ("process", "exit quit breakpoint"),
    )
    for name in names.split()
}
#: Tensor identity: the key of the classic stale-output cache.
IDENTITY = frozenset(
    {"data_ptr", "untyped_storage", "storage", "_typed_storage", "_cdata", "_version"}
)
_OS_OK = frozenset("path sep linesep name curdir pardir extsep fspath getcwd cpu_count".split())

#: ``rule | why | dotted names``; a name covers everything below it (``torch.nn`` covers
#: ``torch.nn.functional.relu``); indented lines continue a row. The first row names the rule.
_TABLE = """\
forbidden-import | not on the allow-list: a pass names only torch, triton, math, typing, the
  PassNet launch/plan API and its own folder |
forbidden-import | runs torch compute instead of a kernel | torch.nn torch.ops torch.autograd
  torch.library torch.func torch.functional torch.linalg torch.fft torch.special torch.sparse
  torch.nested torch.overrides torch.distributed torch.testing torch._refs torch._prims
  torch._decomp torch._ops torch._subclasses
forbidden-import | imports harness internals | passnet graph_net pass_mgr
forbidden-import | reaches Triton's runtime (launch hooks, driver, caches) | triton.runtime
  triton.compiler triton.backends triton._C triton.tools triton._utils triton.errors
forbidden-import | Triton's testing helpers: clocks (do_bench) and host-side compute
  (assert_close) | triton.testing
torch-call | outside pattern/replacement_args only allocation/metadata torch APIs may run |
args-compute | replacement_args is traced into the replacement graph: shuffle arguments only |
tensor-method | only metadata, view and new_* tensor methods may run (no torch compute) |
pattern-reuse | pattern/replacement_args hold the reference torch code |
identity | tensor identity is the key of stale-output caches |
torch-compile | hands the work to a torch compiler | torch.compile torch.compiler torch._dynamo
  torch._inductor torch.jit torch.export torch._export torch._functorch torch._higher_order_ops
native-code | loads native code the static check cannot read | torch._C torch.classes ctypes
  torch.utils.cpp_extension torch.cuda.jiterator _ctypes cffi cupy pycuda numba cuda
process | runs work outside the timed process | subprocess multiprocessing pty signal os.system
  torch.multiprocessing os.popen os.fork os.forkpty os.kill os.killpg os._exit sys.exit
thread | work on other threads escapes timing | threading _thread concurrent asyncio sched
network | reaches outside the sandbox | socket ssl urllib urllib3 http requests httpx aiohttp
  ftplib smtplib xmlrpc telnetlib websocket websockets
dynamic-code | runs code the static check cannot read | pickle _pickle marshal importlib runpy
  builtins code codeop types dill cloudpickle shelve zipimport pkgutil imp
reflection | introspection can reach the harness or hide calls | inspect gc dis traceback
  tracemalloc weakref sys.modules sys.settrace sys.setprofile sys.meta_path sys.getrefcount
  sys.path_hooks sys.addaudithook operator.attrgetter operator.methodcaller
reflection | frames and tracebacks expose the harness's locals (its timer, its checks)
  | sys._getframe sys._current_frames sys.exc_info sys.exception sys.last_traceback sys.last_exc
  sys.last_value sys.last_type sys.call_tracing
tensor-method | operator functions run torch compute on tensors | operator.matmul operator.imatmul
timer | clocks let a pass tell timing calls from correctness calls | time timeit datetime
io | file access can load precomputed results or leak state | io shutil tempfile pathlib glob
  fileinput mmap sqlite3 zipfile tarfile gzip bz2 lzma
env | env variables can steer a pass per run | os.environ os.environb os.getenv os.putenv
stream | side-stream or graph work escapes the timed region | torch.cuda.Stream torch.cuda.stream
  torch.cuda.Event torch.cuda.ExternalStream torch.cuda.set_stream torch.cuda.current_stream
  torch.cuda.default_stream torch.cuda.graph torch.cuda.CUDAGraph torch.Stream torch.Event
fallback | swallowing kernel errors hides a fallback to the reference | contextlib.suppress
mutable-cache | state kept across calls returns stale outputs | functools.lru_cache functools.cache
  functools.cached_property functools.partial itertools.count itertools.cycle operator.setitem
  operator.delitem operator.iadd operator.iconcat operator.ior operator.iand operator.ixor
attribute | a value's attribute must be tensor metadata, an allowed tensor method, a read-only
  str/tuple/dict member or a member of the folder's own classes |
builtin | only pure builtins (len, range, min, max, isinstance, ...) may be used |
write | a write must go through a local name bound in the same function to a fresh object
  (literal, comprehension, list()/dict()/set() or torch allocation) |
tensor-subclass | tensor subclasses can return lazy or fake outputs | torch.utils._python_dispatch
monkey-patch | rewrites an imported module or object |
monkey-patch | changes Triton's global settings for every kernel | triton.knobs
monkey-patch | changes global torch state (precision, backends) for the reference too
  | torch.backends torch.manual_seed torch.use_deterministic_algorithms
"""
RULES: dict[str, tuple[str, str]] = {}  # dotted name -> (rule, why)
WHY: dict[str, str] = {}  # rule -> default reason
for _row in _TABLE.replace("\n  ", " ").splitlines():
    _rule, _why, _names = (part.strip() for part in _row.split("|"))
    WHY.setdefault(_rule, _why)
    RULES.update(dict.fromkeys(_names.split(), (_rule, _why)))


def lookup(qual: str) -> tuple[str, str] | None:
    """(rule, reason) for a dotted name: its longest listed prefix, then torch/os patterns."""
    if qual in PASS_API:
        return None
    parts = qual.split(".")
    for n in range(len(parts), 0, -1):
        if hit := RULES.get(".".join(parts[:n])):
            return hit
    if parts[0] == "torch" and any(p.startswith("set_") and "grad" not in p for p in parts):
        return RULES["torch.backends"]  # torch.set_float32_matmul_precision & co
    if parts[0] == "os" and len(parts) > 1 and parts[1] not in _OS_OK:
        spawn = parts[1].startswith(("exec", "spawn", "posix_"))
        return RULES["os.system"] if spawn else ("io", "os beyond os.path touches files")
    return None
