"""What a pass may name: the allow-lists of the static integrity policy (SPEC section 8, layer A).

A pass names its own folder's modules, functions, classes and constants, and otherwise only what
is listed here: torch allocation and metadata, Triton, ``math``, PassNet's launch and plan API,
``__future__`` and typing names. Anything else is refused, so a new exploit needs a name someone
chose to allow, not one someone forgot to deny. ``policy_rules`` keeps the deny table that only
gives a refused name its precise rule (``native-code``, ``timer``, ...).
"""

from __future__ import annotations

import sys
from types import ModuleType

#: The reference code: traced to build the match graph, never timed.
PATTERN_FUNCS = frozenset({"pattern", "replacement_args"})
#: torch calls that return a new tensor: the only torch objects a replacement may write into.
TORCH_ALLOC = frozenset(
    "torch.empty torch.empty_like torch.zeros torch.zeros_like torch.ones torch.ones_like "
    "torch.full torch.full_like torch.empty_strided".split()
)
#: torch calls a replacement may make: upstream's allocation list (+ empty_strided) and metadata.
TORCH_CALL_ALLOW = TORCH_ALLOC | frozenset(
    "torch.as_tensor torch.fx.wrap torch.device torch.Size torch.finfo torch.iinfo "
    "torch.is_tensor torch.is_floating_point torch.promote_types torch.get_default_dtype "
    "torch.cuda.current_device torch.cuda.device torch.cuda.device_count "
    "torch.cuda.get_device_capability torch.cuda.get_device_properties "
    "torch.cuda.get_device_name torch.cuda.is_available torch.no_grad torch.inference_mode".split()
)
#: torch dtypes: also legal as default argument values (immutable).
TORCH_DTYPES = frozenset(
    f"torch.{name}"
    for name in (
        "float16 float32 float64 bfloat16 half float double int8 int16 int32 int64 uint8 uint16 "
        "uint32 uint64 bool long int short cfloat complex64 complex128 float8_e4m3fn float8_e5m2"
    ).split()
)
#: torch names usable without a call: dtypes (attribute access), types, layouts.
TORCH_REF_ALLOW = (
    TORCH_CALL_ALLOW
    | TORCH_DTYPES
    | {
        f"torch.{name}"
        for name in (
            "Tensor dtype strided contiguous_format channels_last preserve_format __version__"
        ).split()
    }
)
#: ``from torch import fx`` / ``cuda``: only ever a prefix of the names above.
TORCH_MODULES = frozenset({"torch", "torch.fx", "torch.cuda"})
#: Triton's host API; ``triton.language`` names go through :func:`_triton_ok`.
TRITON_ALLOW = frozenset(
    "triton.jit triton.autotune triton.Config triton.heuristics triton.cdiv "
    "triton.next_power_of_2 triton.language triton.__version__".split()
)
#: Submodules of ``triton.language`` a dotted name may pass through (device math, libdevice).
TRITON_PATH = frozenset("math extra cuda hip libdevice random standard".split())
#: Submodules of ``triton.language`` that reach back into Python (``core.builtins``,
#: ``core.inspect``, ``extra.pkgutil``, knobs, the IR): never the last part of a name either.
TRITON_HIDDEN = frozenset(
    "core target_info module pkgutil gdc utils builtins inspect ir knobs typing tl".split()
)
#: Annotation names only: no ``get_type_hints``, ``cast`` or other run-time helpers.
TYPING_ALLOW = frozenset(
    "Any Optional Union Tuple List Dict Set FrozenSet Sequence Mapping Callable Iterable "
    "Iterator Final ClassVar Literal TYPE_CHECKING".split()
)
#: PassNet's public pass-author API: the only harness names a pass may import (the launch
#: path of docs/benchmarks.md); everything else under ``passnet`` stays forbidden.
PASS_API = frozenset(
    {
        "passnet.passes.launch.cached",
        "passnet.passes.launch.CachedKernel",
        "passnet.passes.plans.plan_cache",
        "passnet.passes.plans.PlanCache",
    }
)
PASS_API_MODULES = frozenset(q.rsplit(".", 1)[0] for q in PASS_API)
#: Decorators whose body is compiled device code (autotune/heuristics alone wrap Python).
JIT = frozenset({"triton.jit", "triton.runtime.jit", "triton.runtime.jit.jit"})

#: Tensor methods that read metadata, make views (never a copy) or allocate, plus str/dict look-
#: alikes (index values split real imag). Not contiguous/reshape/flatten/to/clone: their copy
#: kernels can be the whole (layout-only) subgraph; kernels should take strides instead.
METHOD_ALLOW = frozenset(
    "size dim ndimension numel nelement stride storage_offset is_contiguous is_floating_point "
    "is_complex element_size get_device view view_as unsqueeze squeeze permute transpose t "
    "expand expand_as as_strided narrow select unbind movedim moveaxis detach unfold diagonal "
    "chunk new_empty new_empty_strided new_zeros new_ones new_full index values split real "
    "imag".split()
)
#: Read-only tensor metadata (properties), also what dtype and cuda device-property objects
#: carry; none of them runs a kernel or reaches interpreter state.
TENSOR_FIELDS = frozenset(
    "shape dtype device ndim is_cuda is_cpu is_meta is_sparse is_quantized layout itemsize "
    "nbytes requires_grad is_signed".split()
)
#: Fields of finfo/iinfo, cuda device properties, ints, slices and exceptions.
OBJECT_FIELDS = frozenset(
    "eps tiny bits resolution smallest_normal name major minor multi_processor_count "
    "total_memory L2_cache_size warp_size max_threads_per_multi_processor "
    "regs_per_multiprocessor shared_memory_per_block shared_memory_per_block_optin "
    "shared_memory_per_multiprocessor is_integrated uuid gcnArchName args start stop step "
    "bit_length bit_count is_integer numerator denominator".split()
)
#: Read-only methods of str, tuple, dict and set (no mutator: see ``MUTATORS``).
READ_METHODS = frozenset(
    "join split rsplit splitlines strip lstrip rstrip startswith endswith lower upper title "
    "capitalize replace format find rfind count partition rpartition isdigit isalpha isalnum "
    "isspace zfill ljust rjust center removeprefix removesuffix get keys items copy union "
    "intersection difference symmetric_difference issubset issuperset isdisjoint".split()
)
#: Attribute names any value may be asked for (besides the folder's own class members).
VALUE_ATTRS = METHOD_ALLOW | TENSOR_FIELDS | OBJECT_FIELDS | READ_METHODS
#: Tensor metadata a value can be trusted from: a pass's class may not define these names
#: (``policy_scope.reserved``), so on any object they are the tensor's own.
METADATA_CALLS = frozenset(
    "numel nelement dim ndimension size stride element_size storage_offset get_device "
    "is_contiguous is_floating_point is_complex".split()
)
#: Tensor methods that allocate: what they return is as fresh as ``torch.empty``'s.
NEW_TENSOR = frozenset("new_empty new_empty_strided new_zeros new_ones new_full".split())
TRUSTED = TENSOR_FIELDS | METADATA_CALLS | NEW_TENSOR
#: Triton dtypes: immutable, legal as default values like torch's.
TRITON_DTYPES = frozenset(
    f"triton.language.{n}"
    for n in (
        "float16 float32 float64 bfloat16 int1 int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
        "float8e4nv float8e5 float8e4b15"
    ).split()
)
#: What a dtype tells: ``torch.float16.itemsize``, ``x.dtype.is_floating_point``.
DTYPE_FIELDS = frozenset("itemsize is_floating_point is_complex is_signed".split())
#: ``torch.finfo(...)``/``torch.iinfo(...)`` fields that are tensor methods elsewhere.
INFO_FIELDS = frozenset({"max", "min"})
#: Methods that change a list, dict, set or deque in place: legal only on a fresh local.
MUTATORS = frozenset(
    "append extend insert update setdefault pop popitem clear remove discard add sort reverse "
    "appendleft extendleft rotate move_to_end put put_nowait __setitem__ __delitem__".split()
)
#: Dunder attributes that carry no interpreter internals (__dict__, __globals__, ... do).
DUNDER_OK = frozenset("__name__ __qualname__ __doc__ __version__".split())
#: Dunder methods a pass's class may define: none of them runs behind an operator on a value
#: the policy treats as a plain number, a context manager, attribute access or construction.
DUNDER_DEFS = frozenset(
    "__init__ __repr__ __str__ __len__ __bool__ __hash__ __eq__ __ne__ __lt__ __le__ __gt__ "
    "__ge__ __getitem__ __iter__ __contains__ __call__".split()
)
#: Interpreter state: frames, tracebacks, generators, coroutines, code objects and cells.
FRAME_ATTRS = frozenset(
    "f_back f_builtins f_code f_globals f_lasti f_lineno f_locals f_trace f_trace_lines "
    "f_trace_opcodes tb_frame tb_lasti tb_lineno tb_next gi_code gi_frame gi_running "
    "gi_suspended gi_yieldfrom cr_await cr_code cr_frame cr_origin cr_running cr_suspended "
    "ag_await ag_code ag_frame ag_running ag_suspended cell_contents co_code co_consts co_names "
    "co_varnames co_filename co_name co_qualname co_freevars co_cellvars with_traceback".split()
)
#: Members of the harness's kernel and plan objects (``CachedKernel``, Triton's JITFunction,
#: Autotuner, Heuristics, ``PlanCache``): a pass's class may not define these names, so they
#: never join the attribute allow-list (tests/test_policy.py checks the list is complete).
HARNESS_ATTRS = frozenset(
    "_compile _compute_plan _defaults _direct _kernels _names _ordered _stream fn launch "
    "launch_python limit "
    "run warmup "
    "cache kernel kwargs arg_names add_pre_run_hook pre_run_hooks rewrite rewriter "
    "rewritten_fn _is_protocol _call_hook _do_compile _flatten_ir _fn_name _get_src _hash_lock "
    "_pack_args _repr _set_src _src _unsafe_update_src cache_key constexprs create_binder debug "
    "def_file_col_number def_file_line_number device_caches do_not_specialize "
    "do_not_specialize_on_alignment file_name get_capture_scope hash is_gluon launch_metadata "
    "module noinline params parse preload raw_src repr signature src starting_line_number type "
    "used_global_vals version _bench _do_bench base_fn cache_results check_disk_cache configs "
    "configs_top_k do_bench early_config_prune num_reps num_warmups perf_model post_hook "
    "pre_hook prune_configs reset_to_zero restore_copies restore_value use_cuda_graph "
    "user_defined_post_hook user_defined_pre_hook fromkeys send throw close clear".split()
)

#: Builtins a pass may call or name: pure functions, constructors, common exceptions and what
#: a pass's own classes need. Not id/hash/type/getattr/vars/dir/eval/open/iter/next/....
BUILTIN_ALLOW = frozenset(
    "len range min max abs sum int float bool str bytes complex tuple list dict set frozenset "
    "isinstance issubclass callable enumerate zip any all sorted reversed round divmod slice "
    "map filter print repr format chr ord bin oct hex object super property staticmethod "
    "classmethod NotImplemented Ellipsis Exception ArithmeticError AssertionError "
    "AttributeError IndexError KeyError LookupError NotImplementedError OverflowError "
    "RuntimeError TypeError ValueError ZeroDivisionError __name__ __doc__".split()
)
#: Calls whose result is a new number, string or size, never a shared object.
VALUE_CALLS = frozenset("len int float bool str round abs divmod min max sum".split())
#: Calls that consume an iterator on the spot (a stored iterator is state across calls).
CONSUMERS = frozenset(
    "list tuple set frozenset dict sorted sum min max any all enumerate zip map filter print "
    "join".split()
)
ITERATORS = frozenset({"map", "filter", "zip", "enumerate", "reversed"})

_IMPORTS = TORCH_MODULES | PASS_API_MODULES | {"triton", "math", "typing", "__future__"}


def _triton_ok(parts: list[str]) -> bool:
    """``triton.X`` from the host list; ``triton.language.(math|extra...).name`` otherwise."""
    if len(parts) <= 2:
        return ".".join(parts) in TRITON_ALLOW
    through = TRITON_PATH | {"float16", "float32", "bfloat16", "int32", "int64"}  # dtype fields
    return (
        parts[1] == "language"  # through device-math modules or a class (PropagateNan.ALL)
        and all(p in through or p[:1].isupper() for p in parts[2:-1])
        and parts[-1] not in TRITON_HIDDEN
        and not parts[-1].startswith("_")
        and not _leaves_triton(tuple(parts[2:]))
    )


def _leaves_triton(path: tuple[str, ...]) -> bool:
    """Whether ``triton.language.<path>`` is, in the Triton loaded here, a module outside
    ``triton.language`` (``tl.standard.ast``: a device-math module's own imports). Looked up
    only where Triton is already imported (a worker); the parent's check cannot tell."""
    obj = sys.modules.get("triton.language")
    for name in path:
        obj = getattr(obj, name, None)
        if obj is None:
            return False
    return isinstance(obj, ModuleType) and not obj.__name__.startswith("triton.language")


def importable(module: str) -> bool:
    """Whether ``module`` is a module a pass may import (and so never a plain value)."""
    parts = module.split(".")
    return (
        module in _IMPORTS
        or parts[:2] == ["triton", "language"]
        and all(p in TRITON_PATH for p in parts[2:])
    )


def allowed(qual: str, called: bool) -> bool:
    """Whether a dotted name of an allowed module may be named (``called``: as a call)."""
    parts = qual.split(".")
    top, last = parts[0], parts[-1]
    if top == "torch":  # also a dtype's fields: torch.float16.itemsize
        return qual in (TORCH_CALL_ALLOW if called else TORCH_REF_ALLOW) or (
            qual.rpartition(".")[0] in TORCH_DTYPES and last in DTYPE_FIELDS
        )
    if top == "triton":
        return _triton_ok(parts)
    if top == "math":
        return len(parts) == 2 and not last.startswith("_")
    if top == "typing":
        return len(parts) == 2 and last in TYPING_ALLOW
    return top == "__future__" or qual in PASS_API
