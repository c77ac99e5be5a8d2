"""Static integrity policy: every known exploit is caught at its line, legit passes stay clean.

Exploit fixtures live in ``tests/exploits/static/`` (one hack per file, named in its docstring);
each line that must be reported carries ``# expect: <rule>[, <rule>]``. Legit fixtures are whole
pass folders under ``tests/legit/`` with real Triton kernels; the last test runs them (through
Triton's interpreter on CPU, or on a GPU) to prove they are genuine passes, not empty shells.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
from pathlib import Path

import pytest
import torch

from passnet.integrity.policy import (
    PolicyError,
    Violation,
    check_pass_dir,
    check_source,
    enforce,
)

HERE = Path(__file__).resolve().parent
EXPLOITS = sorted((HERE / "exploits" / "static").glob("*.py"))
LEGIT = sorted(p for p in (HERE / "legit").iterdir() if p.is_dir())
_EXPECT = re.compile(r"#\s*expect:\s*([\w\-, ]+?)\s*(?:#|$)")


def expected(source: str) -> set[tuple[str, int]]:
    """(rule, line) pairs marked with ``# expect:`` comments."""
    marks = set()
    for lineno, line in enumerate(source.splitlines(), 1):
        if m := _EXPECT.search(line):
            marks |= {(rule.strip(), lineno) for rule in m.group(1).split(",")}
    return marks


@pytest.mark.parametrize("path", EXPLOITS, ids=[p.stem for p in EXPLOITS])
def test_exploit_is_caught_at_its_line(path: Path) -> None:
    source = path.read_text()
    doc = ast.get_docstring(ast.parse(source)) or ""
    assert doc.startswith("Hack:"), f"{path.name}: docstring must name the hack"
    marks = expected(source)
    assert marks, f"{path.name}: no '# expect:' markers"
    found = check_source(source, path.name)
    assert all(v.file == path.name for v in found)
    missing = marks - {(v.rule, v.line) for v in found}
    assert not missing, f"not reported: {sorted(missing)}\nreported:\n" + "\n".join(map(str, found))


def test_exploits_cover_every_rule() -> None:
    covered = {rule for p in EXPLOITS for rule, _ in expected(p.read_text())}
    assert covered >= {
        "torch-call",
        "forbidden-import",
        "dynamic-code",
        "reflection",
        "torch-compile",
        "native-code",
        "process",
        "thread",
        "stream",
        "monkey-patch",
        "mutable-cache",
        "io",
        "network",
        "env",
        "timer",
        "fallback",
        "identity",
        "tensor-method",
        "pattern-reuse",
        "args-compute",
        "tensor-subclass",
        "attribute",
        "builtin",
        "write",
    }


@pytest.mark.parametrize("folder", LEGIT, ids=[p.name for p in LEGIT])
def test_legit_pass_folder_is_clean(folder: Path) -> None:
    assert check_pass_dir(folder) == []
    enforce(folder)  # does not raise


def test_legit_fixture_features_are_present() -> None:
    """The legit set exercises what a strict policy would wrongly reject."""
    text = "\n".join(p.read_text() for p in (HERE / "legit").rglob("*.py"))
    for feature in (
        "triton.next_power_of_2(",
        "grid = lambda meta: (triton.cdiv(",
        "torch.empty((B, C), dtype=x.dtype, device=x.device)",
        "x.shape",
        ".stride(0)",
        "x.numel()",
        "torch.float32",
        "@triton.autotune",
        "tl.sum(",
        "from pass_dir.kernels import",
        "import kernels",
        "return h, out",
    ):
        assert feature in text, feature


PATTERN_ONLY = """
import torch
import torch.nn.functional as F

def pattern(x, w):
    h = torch._C._nn.linear(x, w, None)
    return F.gelu(h).pow(2).mean(-1, keepdim=True).contiguous()

def replacement_args(x, w):
    return (x, w, "route")
"""


def test_pattern_is_exempt_only_in_pass_files() -> None:
    found = check_source(PATTERN_ONLY, "p.py")
    assert [(v.rule, v.line) for v in found] == [("forbidden-import", 3)]  # imports: anywhere
    helper = check_source(PATTERN_ONLY, "helper.py", is_pass=False)
    assert {"forbidden-import", "native-code", "tensor-method"} <= {v.rule for v in helper}


@pytest.mark.parametrize(
    "source",
    [
        "import torch\nT = torch\n@T.fx.wrap\ndef f(x):\n    return T.empty_like(x)\n",
        "def f(x, id=None, open=None):\n    return id, open\n",
        "def f(xs):\n    acc = []\n    acc.append(1)\n    acc[0] = 2\n    return acc\n",
        "def f(x):\n    try:\n        x.numel()\n    except Exception as e:\n"
        "        raise RuntimeError('bad') from e\n",
        "def f(x):\n    try:\n        x.numel()\n    except ValueError:\n        return None\n",
        "import torch\ndef f(x):\n    y = x.view(-1).unsqueeze(0).permute(1, 0).expand(4, -1)\n"
        "    return y.new_empty(y.shape), x.stride(0), x.is_contiguous(), torch.float16\n",
        "import triton.language as tl\nimport triton\n@triton.jit\ndef k(p):\n"
        "    x = tl.load(p).to(tl.float32)\n    tl.store(p, x.sum(axis=0))\n",
        "import torch\ndef f(x):\n    d = torch.cuda.current_device()\n"
        "    return torch.full((2,), 0.0, device=torch.device('cuda', d))\n",
        "def f(d):\n    return ', '.join(d.values()).split(',')[0].index('a')\n",
        # the allow-list: fresh locals, metadata fields, annotations, math, a pass's own class
        "import torch\ndef f(x):\n    out = torch.empty_like(x)\n    out[0] = 1\n    out[1:] += 2\n"
        "    y = x.new_empty(x.shape)\n    y[0] = 0\n    d = dict(a=1)\n    d['b'] = 2\n"
        "    s = {1}\n    s.add(2)\n    del d['a']\n    return out, y, d, s\n",
        "def f(x):\n    n = 1\n    for d in x.shape:\n        n *= d\n    m = x.shape[0]\n"
        "    m += x.stride(0)\n    return n, m, sum(x.shape), tuple(d for d in x.shape)\n",
        "import torch\ndef f(x):\n    i = torch.finfo(x.dtype)\n"
        "    p = torch.cuda.get_device_properties(0)\n"
        "    return i.max, i.min, x.device.type, x.dtype.itemsize, p.multi_processor_count\n",
        "from __future__ import annotations\nimport math\nfrom typing import Optional\nimport torch\n"
        "def f(x: torch.Tensor, eps: float = 1e-5, dt=torch.float16) -> Optional[int]:\n"
        "    return math.ceil(eps) + len(x.shape) if isinstance(eps, float) else None\n",
        "import triton\nimport triton.language as tl\n_CONFIGS = []\nfor b in (64, 128):\n"
        "    _CONFIGS.append(triton.Config({'BLOCK': b}, num_warps=4))\n"
        "@triton.jit\ndef k(p, B: tl.constexpr = 128, DT: tl.constexpr = tl.float32):\n"
        "    tl.store(p, tl.max(tl.load(p), 0, propagate_nan=tl.PropagateNan.ALL))\n",
        "class Plan:\n    def __init__(self, n):\n        super().__init__()\n        self.n = n\n"
        "        self.blocks, self.warps = (n + 127) // 128, 4\n    def grid(self):\n"
        "        return (self.blocks,)\n_PLAN = Plan(1024)\n"
        "def f(x):\n    return _PLAN.grid(), _PLAN.n\n",
    ],
)
def test_legit_snippets_stay_clean(source: str) -> None:
    assert check_source(source, "snippet.py") == []


@pytest.mark.parametrize(
    ("source", "rule"),
    [
        (
            "import os\nHERE = os.path.dirname(__file__)\n",
            "forbidden-import",
        ),  # stdlib: off the list
        ("_MEMO = {}\ndef f(x):\n    memo = _MEMO\n    memo[1] = x\n", "mutable-cache"),
        ("_MEMO = {}\ndef f(x, memo=_MEMO):\n    memo.update(a=x)\n", "mutable-cache"),
        ("_MEMO = {}\ndef f(x):\n    dict.update(_MEMO, a=x)\n", "mutable-cache"),
        ("def f(x, acc):\n    acc.append(x)\n", "write"),  # a parameter: maybe the caller's state
        ("def f(x):\n    acc = [[]]\n    acc[0].append(x)\n", "write"),  # an element: maybe shared
        ("_L = []\ndef f(x):\n    acc = []\n    acc = _L\n    acc.append(x)\n", "mutable-cache"),
        ("def f(x, n):\n    n += x\n    return n\n", "write"),  # in place on a list or tensor
        (
            "import torch\ndef f(x):\n    out = torch.empty_like(x)\n    out.__class__ = int\n",
            "write",
        ),
        ("class P:\n    def put(self, x):\n        self.x = x\n", "write"),  # only in __init__
        (
            "class P:\n    def __init__(self, x):\n        self.x = x\n_P = P(0)\n"
            "def f(x):\n    super(P, _P).__init__()\n",
            "reflection",
        ),
        ("_IT = zip(range(9), range(9))\ndef f(x):\n    return next(_IT)\n", "mutable-cache"),
        ("def f(x):\n    return x.f_back, x.gi_frame, x.tb_frame\n", "reflection"),
        ("def f(k):\n    return k._kernels, k.fn, k.launch, k.run, k.cache\n", "reflection"),
        ("def f(x):\n    return x.grad, x.T\n", "attribute"),
        ("def f(x):\n    return id(x), hash(x)\n", "identity"),
        ("def f(x):\n    return memoryview(x), __spec__\n", "builtin"),
        ("import typing\ndef f(x):\n    return typing.get_type_hints(f)\n", "forbidden-import"),
        (
            "import triton.language as tl\ndef f(x):\n    return tl.core.builtins.open\n",
            "forbidden-import",
        ),
    ],
)
def test_refused_snippets(source: str, rule: str) -> None:
    assert rule in {v.rule for v in check_source(source, "snippet.py")}, source


def test_names_resolve_across_the_folder(tmp_path: Path) -> None:
    """A helper's import aliases are the import's names in every file: ``kernels.T.matmul`` is
    ``torch.matmul``; an attribute of a helper's own value is judged as a value's attribute."""
    root = _copy("helper_import", tmp_path)
    (root / "kernels.py").write_text((root / "kernels.py").read_text() + "\nT = torch\nBOX = {}\n")
    scale_add = root / "ScaleAdd.py"
    before = len(scale_add.read_text().splitlines())
    scale_add.write_text(
        scale_add.read_text()
        + (
            "from kernels import T\n"  # +1
            "def helper(x):\n"
            "    kernels.BOX['last'] = x\n"  # +3: the helper's module state
            "    kernels.scale_add.cache = x\n"  # +4: an attribute of the helper's function
            "    return kernels.T.matmul(x, x), T.mm(x, x)\n"
        )
    )  # +5: torch, twice
    got = {(v.rule, v.line - before) for v in check_pass_dir(root) if v.file == "ScaleAdd.py"}
    assert got == {("mutable-cache", 3), ("mutable-cache", 4), ("torch-call", 5)}


def test_folder_named_like_torch_stays_torch(tmp_path: Path) -> None:
    root = tmp_path / "torch"
    shutil.copytree(HERE / "legit" / "elementwise", root)
    rule = root / "SiluMul.py"
    rule.write_text(rule.read_text() + "\n\ndef helper(x):\n    return torch.matmul(x, x)\n")
    assert [v.rule for v in check_pass_dir(root)] == ["torch-call"]


def test_harness_and_interpreter_attributes_are_reserved() -> None:
    """Every member of the harness's kernel and plan objects and of frames, tracebacks and
    generators is off the attribute allow-list, and a pass's class cannot add it (mutating
    methods are judged by the write rule)."""
    import sys

    import triton
    import triton.language as tl

    from passnet.integrity.policy_allow import FRAME_ATTRS, HARNESS_ATTRS, MUTATORS, VALUE_ATTRS
    from passnet.integrity.policy_scope import reserved
    from passnet.passes.launch import cached
    from passnet.passes.plans import plan_cache

    @triton.jit
    def kernel(x, BLOCK: tl.constexpr):
        pass

    def gen():
        yield 1

    try:
        raise ValueError("tb")
    except ValueError as exc:
        tb = exc.__traceback__
    objects = [
        kernel,
        cached(kernel),
        plan_cache(lambda a: (a,)),
        triton.autotune(configs=[triton.Config({"BLOCK": 1})], key=[])(kernel),
        triton.heuristics({"BLOCK": lambda a: 1})(kernel),
        sys._getframe(),
        tb,
        gen(),
    ]
    for obj in objects:
        names = (set(dir(obj)) | set(getattr(obj, "__dict__", {}))) - VALUE_ATTRS - MUTATORS
        loose = {n for n in names if not n.startswith("__") and not reserved(n)}
        assert not loose, (type(obj).__name__, sorted(loose))
        assert names <= HARNESS_ATTRS | FRAME_ATTRS | {n for n in names if n.startswith("__")}


def test_triton_names_never_reach_python_modules() -> None:
    """``triton.language`` names the policy allows lead only to Triton's device-code modules."""
    import types

    import triton.language as tl

    from passnet.integrity.policy_allow import allowed

    seen, todo = set(), [("triton.language", tl)]
    while todo:
        qual, module = todo.pop()
        for name in dir(module):
            obj, sub = getattr(module, name, None), f"{qual}.{name}"
            if isinstance(obj, types.ModuleType) and allowed(sub, called=False):
                assert obj.__name__.startswith("triton.language"), (sub, obj.__name__)
                if sub not in seen:
                    seen.add(sub)
                    todo.append((sub, obj))


def _copy(folder: str, tmp_path: Path) -> Path:
    dest = tmp_path / folder
    shutil.copytree(HERE / "legit" / folder, dest)
    return dest


def test_exploit_in_helper_module_names_the_helper(tmp_path: Path) -> None:
    root = _copy("helper_import", tmp_path)
    kernels = root / "kernels.py"
    kernels.write_text(
        kernels.read_text().replace(
            "    out = torch.empty_like(x)\n    n = x.numel()",
            "    return torch.add(x * 0.125, y)\n    n = x.numel()",
        )
    )
    line = kernels.read_text().splitlines().index("    return torch.add(x * 0.125, y)") + 1
    found = check_pass_dir(root)
    assert [(v.rule, v.file, v.line) for v in found] == [("torch-call", "kernels.py", line)]
    with pytest.raises(PolicyError) as info:
        enforce(root)
    assert info.value.violations == found
    assert f"kernels.py:{line}: [torch-call]" in str(info.value)


def test_helper_gets_no_pattern_exemption(tmp_path: Path) -> None:
    root = _copy("helper_import", tmp_path)
    (root / "sub").mkdir()
    (root / "sub" / "ref.py").write_text(
        "import os\nimport torch\n\n\ndef pattern(x, y):\n    return torch.add(x, y)\n\n\n"
        "FLAG = os.environ.get('X')\n"
    )
    (root / "ScaleAdd.py").write_text(
        (root / "ScaleAdd.py")
        .read_text()
        .replace(
            "import kernels\n", "import kernels\nfrom pass_dir.sub.ref import pattern as impl\n"
        )
    )
    got = {(v.rule, v.file, v.line) for v in check_pass_dir(root)}
    assert got == {
        ("forbidden-import", "sub/ref.py", 1),
        ("torch-call", "sub/ref.py", 6),
        ("env", "sub/ref.py", 9),
        ("pattern-reuse", "ScaleAdd.py", 4),
    }


def test_folder_level_checks(tmp_path: Path) -> None:
    root = _copy("elementwise", tmp_path)
    (root / "triton.py").write_text("def jit(fn):\n    return fn\n")
    (root / "fast.so").write_bytes(b"\x7fELF")
    (root / "stale.pyc").write_bytes(b"\x00")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "SiluMul.cpython-311.pyc").write_bytes(b"\x00")  # ignored
    got = {(v.rule, v.file) for v in check_pass_dir(root)}
    assert got == {
        ("shadow", "triton.py"),
        ("native-code", "fast.so"),
        ("native-code", "stale.pyc"),
    }


def test_layout_errors(tmp_path: Path) -> None:
    root = _copy("elementwise", tmp_path)
    listing = root / "sorted_output_pass_rule_names.json"
    listing.write_text('["SiluMul", "Missing"]')
    assert [(v.rule, v.message) for v in check_pass_dir(root)] == [
        ("layout", "listed pass Missing.py is missing")
    ]
    for bad in ('{"SiluMul": 1}', '["../escape"]', "not json"):
        listing.write_text(bad)
        assert [v.rule for v in check_pass_dir(root)] == ["layout"]
    listing.unlink()
    assert [v.rule for v in check_pass_dir(root)] == ["layout"]


def test_driver_policy_verdict_is_cached_by_folder_content(tmp_path: Path) -> None:
    """The driver checks a folder once per content (a suite's variants share the verdict);
    an edit is a new content, so a fixed or newly broken folder is judged again."""
    from passnet.evaluation.evaluator import _content, _policy

    root = _copy("elementwise", tmp_path)

    def verdict() -> tuple:  # as evaluate_variant asks: the folder hashed once, then the policy
        return _policy(str(root), _content(str(root)))

    assert verdict() == ()
    rule = next(root.glob("SiluMul.py"))
    clean = rule.read_text()
    rule.write_text(clean + "\nimport os\nFLAG = os.environ.get('X')\n")
    assert [v.rule for v in verdict()] == ["forbidden-import", "env"]  # os is off the list
    rule.write_text(clean)
    assert verdict() == ()


def test_syntax_error_and_violation_format() -> None:
    (bad,) = check_source("def pattern(x:\n", "Broken.py")
    assert (bad.rule, bad.file, bad.line) == ("syntax", "Broken.py", 1)
    v = Violation("torch-call", "p.py", 7, "call to torch.mm: no")
    assert str(v) == "p.py:7: [torch-call] call to torch.mm: no"


# -- the legit fixtures are real passes: run them against their patterns -------------------
_INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"
_DEVICE = "cpu" if _INTERPRET or not torch.cuda.is_available() else "cuda"
_SHAPES = {
    "SiluMul": [(4, 300), (4, 300)],
    "BiasRelu": [(8, 96), (96,)],
    "LayerNorm": [(6, 768), (768,), (768,)],
    "AddRelu": [(1000,), (1000,)],
    "MulSigmoid": [(3, 200), (3, 200)],
    "ResidualRMSNorm": [(5, 64), (5, 64), (64,)],
    "RowSoftmax": [(7, 100)],
    "ScaleAdd": [(2000,), (2000,)],
    "AddGelu": [(6, 40), (40,)],
}


@pytest.mark.parametrize("folder", LEGIT, ids=[p.name for p in LEGIT])
def test_legit_passes_match_their_pattern(folder: Path) -> None:
    if _DEVICE == "cpu" and not _INTERPRET:
        pytest.skip("needs a CUDA GPU or TRITON_INTERPRET=1")
    if _DEVICE == "cpu" and folder.name == "autotuned":
        pytest.skip("autotune benchmarking needs a GPU driver")
    from passnet.passes.loader import load_pass_dir

    dtypes = [torch.float32] + ([torch.float16] if _DEVICE == "cuda" else [])
    for rule in load_pass_dir(folder).rules:
        for dtype in dtypes:
            gen = torch.Generator().manual_seed(0)
            args = [torch.randn(s, generator=gen).to(_DEVICE, dtype) for s in _SHAPES[rule.name]]
            want = rule.pattern(*args)
            got = rule.replacement(*rule.replacement_args(*args))
            want, got = (x if isinstance(x, tuple) else (x,) for x in (want, got))
            assert len(got) == len(want), rule.name
            tol = 1e-4 if dtype == torch.float32 else 2e-3
            for g, w in zip(got, want, strict=True):
                assert g.dtype == w.dtype and g.shape == w.shape, rule.name
                torch.testing.assert_close(g, w, rtol=tol, atol=tol, msg=rule.name)
