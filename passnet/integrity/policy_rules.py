"""What the static integrity policy allows and forbids, name by name (SPEC section 8, layer A).

The tables are data: ``passnet.integrity.policy`` walks a pass's AST and asks :func:`lookup`
about every dotted name it resolves. Keeping them apart lets a reader (or an agent prompt)
see the whole rule set without the walker.
"""

from __future__ import annotations

#: The reference code: traced to build the match graph, never timed.
PATTERN_FUNCS = frozenset({"pattern", "replacement_args"})
#: torch calls a replacement may make: upstream's allocation list (+ empty_strided) and metadata.
TORCH_CALL_ALLOW = frozenset(
    "torch.empty torch.empty_like torch.zeros torch.zeros_like torch.ones torch.ones_like "
    "torch.full torch.full_like torch.as_tensor torch.empty_strided torch.fx.wrap torch.device "
    "torch.Size torch.finfo torch.iinfo torch.is_tensor torch.is_floating_point "
    "torch.promote_types torch.get_default_dtype torch.cuda.current_device torch.cuda.device "
    "torch.cuda.device_count torch.cuda.get_device_capability torch.cuda.get_device_properties "
    "torch.cuda.get_device_name torch.cuda.is_available torch.no_grad torch.inference_mode".split())
#: torch names usable without a call: dtypes (attribute access), types, layouts.
TORCH_REF_ALLOW = TORCH_CALL_ALLOW | {f"torch.{name}" for name in (
    "float16 float32 float64 bfloat16 half float double int8 int16 int32 int64 uint8 uint16 "
    "uint32 uint64 bool long int short cfloat complex64 complex128 float8_e4m3fn float8_e5m2 "
    "Tensor dtype strided contiguous_format channels_last preserve_format").split()}
#: Tensor methods that read metadata, make views (never a copy) or allocate, plus str/dict look-
#: alikes (index values split real imag). Not contiguous/reshape/flatten/to/clone: their copy
#: kernels can be the whole (layout-only) subgraph; kernels should take strides instead.
METHOD_ALLOW = frozenset(
    "size dim ndimension numel nelement stride storage_offset is_contiguous is_floating_point "
    "is_complex element_size get_device view view_as unsqueeze squeeze permute transpose t "
    "expand expand_as as_strided narrow select unbind movedim moveaxis detach unfold diagonal "
    "chunk new_empty new_empty_strided new_zeros new_ones new_full index values split real "
    "imag".split())
#: Tensor identity: the key of the classic stale-output cache.
IDENTITY = frozenset({"data_ptr", "untyped_storage", "storage", "_typed_storage", "_cdata"})
#: Dunder attributes that carry no interpreter internals (__dict__, __globals__, ... do).
DUNDER_OK = frozenset("__name__ __qualname__ __doc__ __file__ __init__ __version__".split())
MUTATORS = frozenset(
    "append extend insert update setdefault pop popitem clear remove discard add sort reverse "
    "appendleft extendleft rotate move_to_end put put_nowait __setitem__ __delitem__".split())
BUILTINS = {name: rule for rule, names in (
    ("dynamic-code", "exec eval compile __import__"), ("io", "open input"), ("identity", "id"),
    ("reflection", "globals locals vars getattr setattr delattr __builtins__"),
    ("process", "exit quit breakpoint")) for name in names.split()}
#: Top-level modules a pass may import, besides the modules of its own folder.
IMPORT_ALLOW = frozenset(
    "torch triton math functools itertools operator typing typing_extensions dataclasses "
    "collections numbers enum abc warnings os sys numpy __future__ contextlib json re string"
    .split())
#: PassNet's public pass-author API: the only harness names a pass may import (the launch
#: path of docs/benchmarks.md); everything else under ``passnet`` stays forbidden.
PASS_API = frozenset({"passnet.passes.launch.cached", "passnet.passes.launch.CachedKernel",
                      "passnet.passes.plans.plan_cache", "passnet.passes.plans.PlanCache"})
PASS_API_MODULES = frozenset(q.rsplit(".", 1)[0] for q in PASS_API)
_OS_OK = frozenset("path sep linesep name curdir pardir extsep fspath getcwd cpu_count".split())
#: Decorators whose body is compiled device code (autotune/heuristics alone wrap Python).
JIT = frozenset({"triton.jit", "triton.runtime.jit", "triton.runtime.jit.jit"})

#: ``rule | why | dotted names``; a name covers everything below it (``torch.nn`` covers
#: ``torch.nn.functional.relu``); indented lines continue a row. The first row names the rule.
_TABLE = """\
forbidden-import | only torch, triton, small stdlib helpers and the pass folder may be imported |
forbidden-import | runs torch compute instead of a kernel | torch.nn torch.ops torch.autograd
  torch.library torch.func torch.functional torch.linalg torch.fft torch.special torch.sparse
  torch.nested torch.overrides torch.distributed torch.testing torch._refs torch._prims
  torch._decomp torch._ops torch._subclasses
forbidden-import | imports harness internals | passnet graph_net pass_mgr
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
  tracemalloc weakref sys.modules sys._getframe sys.settrace sys.setprofile sys.meta_path
  sys.path_hooks sys.addaudithook operator.attrgetter operator.methodcaller
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
tensor-subclass | tensor subclasses can return lazy or fake outputs | torch.utils._python_dispatch
monkey-patch | rewrites an imported module or object |
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
