"""GraphNet sample folders: parse, materialise, run and write them (SPEC section 2).

Meta files are parsed with ``ast``, never executed (``passnet.graph.meta``), so reading a
dataset runs none of its code (only :func:`load_module` executes model.py). Materialisation
follows upstream GraphNet with three fixes: values come from an explicit seed (every check can
draw fresh inputs), a float tensor recorded with std 0 is not replayed as a constant (a
kernel writing a constant must not pass), and every value stays in the range its use in
model.py demands (``passnet.graph.ranges``: a positive eps, a dropout p in [0, 1], an
embedding index below the table's rows), which rounded statistics alone do not keep.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
import sys
import types
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import torch

from passnet.graph.meta import (
    SampleError,
    TensorMeta,
    dtype_of,
    format_constraints,
    format_metas,
    parse_meta_file,
)
from passnet.graph.ranges import EPS, ValueRange, value_ranges
from passnet.graph.source import parse_source

META_FILES = ("weight_meta.py", "input_meta.py")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
DATA_MAX_NUMEL = 64  # tensors with fewer elements keep their literal values (data), like upstream
# A float tensor recorded with std 0 (or none) and no data is drawn as N(mean, s) with
# s = 0.1 * |mean| (0.02 for mean 0), never crossing zero: close to the recorded value, never
# constant, and of the recorded sign (an eps, a scale or a variance stays valid).
ZERO_STD_REL_SPREAD, ZERO_STD_MIN_SPREAD = 0.1, 0.02
INT_DEFAULT_RANGE = (0, 7)  # inclusive; integers with no bounds and no statistics (index-like)

_SCALAR_ANNOTATIONS = {
    name: kind
    for kind, cap in ((int, "Int"), (float, "Float"), (bool, "Bool"))
    for name in (f"torch.Sym{cap}", f"Sym{cap}", kind.__name__)
}
_SYMINT_NAME = re.compile(r"^s\d+$")


@dataclass
class Sample:
    """A parsed sample folder; ``metas`` are in forward-argument order."""

    path: Path
    metas: list[TensorMeta]
    graph_net: dict
    code: str
    arg_names: list[str]
    arg_types: dict[str, str | None] = field(default_factory=dict)
    meta_files: dict[str, Path] = field(default_factory=dict)
    sources: dict | None = None

    @property
    def model_path(self) -> Path:
        return self.path / "model.py"

    @property
    def cuda_literals(self) -> bool:
        """Whether model.py pins tensors to a CUDA device (``device(type='cuda', ...)``)."""
        return any(m.group(1) == "cuda" for m in _DEVICE_LITERAL.finditer(self.code))

    @property
    def name(self) -> str:
        return str(self.graph_net.get("model_name") or self.path.name)

    @cached_property
    def value_ranges(self) -> dict[str, ValueRange]:
        """The range each argument's use in model.py demands (``passnet.graph.ranges``): an
        eps is positive, a dropout p in [0, 1], an embedding index below the table's rows."""
        shapes = {m.name: m.shape for m in self.metas}
        ranges = value_ranges(self.code, self.arg_names, shapes)
        for meta in self.metas:  # an eps passed where no recognised call shows it
            if _EPS_NAME.search(meta.name) and meta.name not in ranges:
                ranges[meta.name] = ValueRange(EPS.low, EPS.high, EPS.positive, "named eps")
        return ranges

    @property
    def dtype(self) -> str:
        """Dtype of the first floating tensor argument ("float32"), else of the first tensor."""
        tensors = [m for m in self.metas if self.scalar_type(m.name) is None]
        floats = [m for m in tensors if m.torch_dtype.is_floating_point]
        chosen = floats or tensors or self.metas
        return chosen[0].dtype.removeprefix("torch.") if chosen else "float32"

    def meta(self, name: str) -> TensorMeta:
        return self.metas[self.arg_names.index(name)]

    def scalar_type(self, name: str) -> type | None:
        """int/float/bool for SymInt-style scalar arguments, None for tensors.

        Decided by the forward annotation; an unannotated 0-d int64 argument named like a
        Dynamo symbol (``s77``) counts as a SymInt too.
        """
        annotation = self.arg_types.get(name)
        if annotation is not None:
            return _SCALAR_ANNOTATIONS.get(annotation)
        meta = self.meta(name)
        if meta.shape == [] and meta.dtype == "torch.int64" and _SYMINT_NAME.match(name):
            return int
        return None


def _forward_args(code: str, path: Path) -> tuple[list[str], dict[str, str | None]]:
    try:
        tree = parse_source(code, str(path))
    except SyntaxError as e:
        raise SampleError(path, f"unparsable: {e}") from e
    cls = next((n for n in tree.body if getattr(n, "name", "") == "GraphModule"), None)
    forward = next(
        (n for n in getattr(cls, "body", []) if getattr(n, "name", "") == "forward"), None
    )
    if not isinstance(cls, ast.ClassDef) or not isinstance(forward, ast.FunctionDef):
        raise SampleError(path, "no class GraphModule with a forward method")
    if forward.args.vararg or forward.args.kwarg or forward.args.kwonlyargs:
        raise SampleError(path, "forward must take positional arguments only")
    args = (forward.args.posonlyargs + forward.args.args)[1:]
    names = [a.arg for a in args]
    types_ = {a.arg: ast.unparse(a.annotation) if a.annotation else None for a in args}
    return names, types_


def _read_json(path: Path) -> dict | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    except json.JSONDecodeError as e:
        raise SampleError(path, f"invalid JSON: {e}") from e
    if value is not None and not isinstance(value, dict):
        raise SampleError(path, "expected a JSON object")
    return value


def load_sample(path: Path | str) -> Sample:
    """Read a sample folder; metas are matched to forward arguments by their ``name``."""
    folder = Path(path).resolve()
    if not folder.is_dir():
        raise SampleError(folder, "no such sample folder")
    model_py = folder / "model.py"
    for required in (model_py, folder / "weight_meta.py"):
        if not required.is_file():
            raise SampleError(required, "missing")
    code = model_py.read_text(encoding="utf-8")
    arg_names, arg_types = _forward_args(code, model_py)
    by_name: dict[str, TensorMeta] = {}
    meta_files: dict[str, Path] = {}
    for meta_path in [folder / f for f in META_FILES if (folder / f).is_file()]:
        for meta in parse_meta_file(meta_path):
            if meta.name in by_name:
                raise SampleError(meta_path, f"a second meta named {meta.name!r}")
            by_name[meta.name] = meta
            meta_files[meta.name] = meta_path
    if missing := [name for name in arg_names if name not in by_name]:
        reason = f"forward argument(s) of model.py without a meta class: {', '.join(missing)}"
        raise SampleError(folder / "weight_meta.py", reason)
    if extra := [name for name in by_name if name not in arg_types]:
        reason = f"meta(s) for no forward argument of model.py: {', '.join(extra)}"
        raise SampleError(meta_files[extra[0]], reason)
    return Sample(
        path=folder,
        metas=[by_name[name] for name in arg_names],
        graph_net=_read_json(folder / "graph_net.json") or {},
        code=code,
        arg_names=arg_names,
        arg_types=arg_types,
        meta_files=meta_files,
        sources=_read_json(folder / "subgraph_sources.json"),
    )


_DEVICE_LITERAL = re.compile(
    r"""device\(\s*type\s*=\s*['"](cuda|cpu)['"](?:\s*,\s*index\s*=\s*\d+)?\s*\)"""
)


def _device_literal(device: torch.device) -> str:
    if device.index is None:
        return f"device(type='{device.type}')"
    return f"device(type='{device.type}', index={device.index})"


def runnable_code(sample: Sample, device: torch.device | str | None = None) -> str:
    """model.py as it runs on ``device``: the device literals Dynamo wrote record the device the
    graph was captured on (``.to(device(type='cpu'))`` in a graph cut on a CPU machine), so each
    becomes ``device``'s. Without a device, CUDA literals become CPU ones where PyTorch sees no
    CUDA device, so a CUDA-pinned sample validates and cuts on a CPU machine
    (``Sample.cuda_literals`` says it happened)."""
    if device is None and (torch.cuda.is_available() or not sample.cuda_literals):
        return sample.code
    literal = _device_literal(torch.device(device or "cpu"))
    return _DEVICE_LITERAL.sub(lambda _: literal, sample.code)


def load_module(sample: Sample, device: torch.device | str | None = None) -> torch.nn.Module:
    """Execute model.py as its own module (registered in sys.modules so FX/inspect work); with
    ``device``, its device literals name that device (:func:`runnable_code`) and its
    parameters live there."""
    code = runnable_code(sample, device)
    digest = hashlib.sha256(f"{sample.path}\0{code}".encode()).hexdigest()[:16]
    module = types.ModuleType(f"passnet_sample_{digest}")
    module.__file__ = str(sample.model_path)
    sys.modules[module.__name__] = module
    try:
        exec(compile(code, str(sample.model_path), "exec"), module.__dict__)
        graph_module = module.GraphModule()
    except Exception as e:
        sys.modules.pop(module.__name__, None)
        raise SampleError(sample.model_path, f"cannot load: {type(e).__name__}: {e}") from e
    return graph_module if device is None else graph_module.to(device)


def _finite(value: float | int | None) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


_EPS_NAME = re.compile(r"(?:^|_)eps(?:ilon)?_?$", re.IGNORECASE)
EPS_DEFAULT = 1e-5
"""A normalisation eps recorded as 0 (metas keep 3 decimals: 0.001 reads 0.000) is drawn around
PyTorch's default eps instead: an eps must stay positive (and at least EPS_DEFAULT / 10)."""


def _float_values(
    meta: TensorMeta, gen: torch.Generator, rng: ValueRange | None = None
) -> torch.Tensor:
    """float32 values on CPU following the meta's statistics (see module docstring), inside
    the range its role demands (``rng``: an eps positive, a probability in [0, 1])."""
    mean, std = _finite(meta.mean), _finite(meta.std)
    if rng is not None and rng.positive and not std and (mean is None or mean <= 0):
        mean = EPS_DEFAULT  # an eps (a norm's) is positive whatever the rounding left of it
    low, high = _finite(meta.min_val), _finite(meta.max_val)
    # In place: the same values as out-of-place ops, without a fresh allocation per step
    # (drawing inputs was most of a GPU worker's timed-check cost).
    noise = torch.randn(meta.shape, generator=gen, dtype=torch.float32, device=gen.device)
    if std is not None and std > 0:
        values = noise.mul_(std * 0.2).add_(mean or 0.0)
    elif mean is None and low is not None and high is not None and high > low:
        values = torch.rand(meta.shape, generator=gen, device=gen.device)
        values.mul_(high - low).add_(low)
    else:
        mean = mean or 0.0
        spread = ZERO_STD_REL_SPREAD * abs(mean) if mean else ZERO_STD_MIN_SPREAD
        values = noise.mul_(spread).add_(mean)
        if mean:  # a value recorded with one sign keeps it (10 spreads away: only a far tail)
            values = values.clamp_(min=0.0) if mean > 0 else values.clamp_(max=0.0)
        if low is not None and high is not None and high <= low:
            low = high = None  # a constant's recorded range would make it constant again
    if low is not None or high is not None:
        values.clamp_(low, high)
    torch.nan_to_num_(values, nan=0.0, posinf=100.0, neginf=-100.0).clamp_(-100.0, 100.0)
    if rng is None:
        return values
    low = max(rng.low or 0.0, EPS_DEFAULT / 10) if rng.positive else rng.low
    return values.clamp_(low, rng.high)


DATA_ROUNDED_ZERO = 1e-7
"""What recorded data of 0 stands for where the value must be positive (an eps): GraphNet writes
data with 6 decimals, so a small eps (BiT's weight-standardising 1e-8) reads 0.000000."""


def _positive_data(data: torch.Tensor, rng: ValueRange | None) -> torch.Tensor:
    """Recorded floating data, with values that rounding made 0 or negative lifted to
    ``DATA_ROUNDED_ZERO`` where the value's role demands a positive number."""
    if rng is None or not rng.positive or not data.is_floating_point():
        return data
    return data.clamp(min=DATA_ROUNDED_ZERO)


def _int_range(meta: TensorMeta, rng: ValueRange | None = None) -> tuple[int, int]:
    """Inclusive [low, high] for an integer tensor (upstream treats max_val as inclusive),
    inside ``rng`` (valid indices of the table it indexes); where the statistics fall outside
    that range, the whole range."""
    low, high = meta.min_val, meta.max_val
    mean, spread = _finite(meta.mean), 2 * (_finite(meta.std) or 0.0)
    if mean is not None:  # mean +- 2 std; index-like (mean >= 0): never invent negatives
        derived = (math.floor(mean - spread), math.ceil(mean + spread))
        derived = (max(derived[0], 0), derived[1]) if mean >= 0 else derived
    elif high is not None:
        derived = (0 if high >= 0 else high - 7, high)
    else:
        derived = (low, low + 7) if low is not None else INT_DEFAULT_RANGE
    low = derived[0] if low is None else low
    high = derived[1] if high is None else high
    if rng is not None:
        valid = (
            math.ceil(rng.low) + rng.positive if rng.low is not None else low,
            math.floor(rng.high) if rng.high is not None else high,
        )
        if valid[0] <= valid[1]:
            low, high = max(low, valid[0]), min(high, valid[1])
            low, high = (low, high) if low <= high else valid
    info = torch.iinfo(meta.torch_dtype)
    low = max(math.ceil(low), info.min)
    high = min(math.floor(high), info.max - 1)
    return low, max(low, high)


def _tensor(sample: Sample, meta: TensorMeta, gen: torch.Generator) -> torch.Tensor:
    values = _values(sample, meta, gen)
    if meta.stride is None:
        return values
    return torch.empty_strided(
        meta.shape, meta.stride, dtype=values.dtype, device=values.device
    ).copy_(values)


def _values(sample: Sample, meta: TensorMeta, gen: torch.Generator) -> torch.Tensor:
    """Contiguous values of the meta: its data, else drawn from its statistics."""
    dtype = meta.torch_dtype
    try:
        if meta.data is not None:
            data = torch.tensor(meta.data, dtype=dtype).reshape(meta.shape)
            return _positive_data(data, sample.value_ranges.get(meta.name))
    except (RuntimeError, TypeError, ValueError) as e:
        raise SampleError(
            sample.meta_files.get(meta.name, sample.path), f"data of {meta.name!r}: {e}"
        ) from e
    if dtype == torch.bool:
        return torch.rand(meta.shape, generator=gen, device=gen.device) > 0.5
    rng = sample.value_ranges.get(meta.name)
    if dtype.is_floating_point or dtype.is_complex:
        return _float_values(meta, gen, None if dtype.is_complex else rng).to(dtype)
    low, high = _int_range(meta, rng)
    return torch.randint(
        low, high + 1, meta.shape, generator=gen, dtype=torch.int64, device=gen.device
    ).to(dtype)


def _scalar(sample: Sample, meta: TensorMeta, kind: type) -> int | float | bool:
    data = torch.tensor(meta.data).flatten().tolist() if meta.data is not None else []
    for candidate in data if len(data) == 1 else (meta.mean, meta.min_val, meta.max_val):
        if candidate is not None and math.isfinite(candidate):
            return kind(round(candidate) if kind is int else candidate)
    reason = f"scalar argument {meta.name!r} has no data (one value) and no mean/min/max"
    raise SampleError(sample.meta_files.get(meta.name, sample.path), reason)


def materialize(
    sample: Sample,
    device: str = "cpu",
    seed: int = 0,
    dtype: str | None = None,
    *,
    draw_on_device: bool = False,
) -> list:
    """One value per forward argument, in forward order; the same seed gives the same values.

    Drawn on CPU from a generator seeded with ``seed`` (device-independent), then moved to
    ``device`` (the meta's device is ignored); ``dtype`` overrides floating tensors only.
    ``draw_on_device`` draws on ``device``'s own generator instead: the same statistics and
    ranges, values that depend on the device, and no host work worth timing. For secret
    seeds (a checked timed call), whose values no one needs to reproduce.
    """
    gen = torch.Generator(device if draw_on_device else "cpu").manual_seed(seed)
    override = dtype_of(dtype) if dtype else None
    values: list = []
    for meta in sample.metas:
        kind = sample.scalar_type(meta.name)
        if kind is not None:
            values.append(_scalar(sample, meta, kind))
            continue
        tensor = _tensor(sample, meta, gen)
        if override is not None and tensor.is_floating_point():
            tensor = tensor.to(override)
        values.append(tensor.to(device))
    return values


def run_sample(sample: Sample, device: str = "cpu", seed: int = 0) -> tuple:
    """Eager outputs of the sample on freshly materialised inputs."""
    module = load_module(sample, device)
    args = materialize(sample, device=device, seed=seed)
    try:
        with torch.no_grad():
            out = module(*args)
    except Exception as e:
        where = _model_line(sample, e)
        hint = ""
        if device == "cpu" and "cuda" in f"{e} {where}".lower():
            hint = " (the sample names a CUDA device: it runs only on a GPU)"
        text = f"forward failed{where}: {type(e).__name__}: {e}{hint}"
        raise SampleError(sample.model_path, text) from e
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _model_line(sample: Sample, exc: BaseException) -> str:
    """`` at line N (source)``: the deepest frame of model.py in the traceback, if any."""
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if f.filename == str(sample.model_path)]  # fmt: skip
    if not frames:
        return ""
    f = frames[-1]
    lines = sample.code.splitlines()
    text = lines[f.lineno - 1].strip() if f.lineno and f.lineno <= len(lines) else ""
    return f" at line {f.lineno}" + (f" ({text[:160]})" if text else "")


def tensor_stats(t: torch.Tensor) -> dict:
    """mean/std (3 decimals) and exact min/max of a real tensor, for writing its meta.

    Integer tensors get no mean/std (like upstream) but do get min/max, so they replay inside
    their real range; non-finite values are left out of the statistics.
    """
    stats: dict = dict.fromkeys(("mean", "std", "min_val", "max_val"))
    values = t.detach().cpu()
    values = values.abs() if values.is_complex() else values
    if values.numel() == 0 or values.dtype == torch.bool:
        return stats
    if not values.is_floating_point():
        return stats | {"min_val": int(values.min()), "max_val": int(values.max())}
    values = values.double()[torch.isfinite(values)]
    if values.numel() > 0:
        stats["mean"] = round(float(values.mean()), 3)
        stats["std"] = round(float(values.std(correction=int(values.numel() > 1))), 3)
        stats["min_val"], stats["max_val"] = float(values.min()), float(values.max())
    return stats


def graph_hash(code: str) -> str:
    """Upstream-style graph hash: SHA-256 of the model.py text."""
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def write_sample(
    path: Path | str,
    code: str,
    metas: list[TensorMeta],
    graph_net: dict,
    *,
    sources: dict | None = None,
) -> Sample:
    """Write a complete sample folder (upstream file set) and read it back."""
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    info = {"framework": "torch", "num_devices_required": 1, "num_nodes_required": 1}
    info |= {"dynamic": False, "model_name": folder.name} | graph_net
    files = {
        "model.py": code,
        "weight_meta.py": format_metas(metas),
        "input_meta.py": "",
        "input_tensor_constraints.py": format_constraints(metas),
        "graph_net.json": json.dumps(info, indent=4) + "\n",
        "graph_hash.txt": graph_hash(code),
    }
    if sources is not None:
        files["subgraph_sources.json"] = json.dumps(sources, indent=4) + "\n"
    (folder / "subgraph_sources.json").unlink(missing_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return load_sample(folder)


def with_dtype(sample: Sample, dtype: str, out_path: Path | str) -> Sample:
    """A variant whose floating tensors use ``dtype``, validated by running it. Literals of the
    sample's float dtype in model.py (``dtype=torch.float32``, ``.to(torch.float32)``) and its baked
    finfo extremes are rewritten too, so nothing promotes back or overflows."""
    target = dtype.removeprefix("torch.")
    if target not in FLOAT_DTYPES:
        raise ValueError(f"with_dtype: {dtype!r} is not one of {', '.join(FLOAT_DTYPES)}")
    metas, sources = [], set()
    for meta in sample.metas:
        if sample.scalar_type(meta.name) is None and meta.torch_dtype.is_floating_point:
            sources.add(meta.dtype.removeprefix("torch."))
            meta = meta.model_copy(update={"dtype": f"torch.{target}"})
        metas.append(meta)
    aliases = {"float32": "|float", "float16": "|half", "float64": "|double"}
    code, limit = sample.code, torch.finfo(dtype_of(target)).max
    for source in sources - {target}:
        pattern = rf"\btorch\.(?:{source}{aliases.get(source, '')})\b"
        code = re.sub(pattern, f"torch.{target}", code)
        extreme = torch.finfo(dtype_of(source)).max
        code = re.sub(
            r"(?<![\w.])(-?)(\d+\.?\d*e\+?\d+)\b",
            lambda m, e=extreme: f"{m[1]}{limit!r}" if float(m[2]) == e > limit else m[0],
            code,
        )
    variant = write_sample(out_path, code, metas, dict(sample.graph_net), sources=sample.sources)
    run_sample(variant)
    return variant
