"""Static integrity policy for pass folders (layer A of SPEC §8).

Outside ``pattern``/``replacement_args`` a pass may only allocate tensors, read metadata and
launch Triton kernels; whatever could compute the answer with torch, hide work from the timer,
cache results across calls or tamper with the harness is rejected before import. A pure AST walk
cannot see through values (``a + b``, ``sum(t)``, ``float(t)`` on tensors, state behind an
object's methods, what a kernel writes): runtime guards must cover those.
"""

from __future__ import annotations

import ast
import functools
import json
import sys
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from passnet.graph.source import parse_source
from passnet.integrity.policy_rules import (
    BUILTINS,
    DUNDER_OK,
    IDENTITY,
    IMPORT_ALLOW,
    JIT,
    METHOD_ALLOW,
    MUTATORS,
    PASS_API_MODULES,
    PATTERN_FUNCS,
    TORCH_CALL_ALLOW,
    TORCH_REF_ALLOW,
    WHY,
    lookup,
)


@functools.cache
def _tensor_methods() -> frozenset[str]:
    """Every torch.Tensor method (dunders like __add__ too, properties not) but allowed ones."""
    import torch
    names = {n for n in dir(torch.Tensor) if callable(getattr(torch.Tensor, n, None))}
    return frozenset(names - set(dir(object)) - METHOD_ALLOW - IDENTITY)


@dataclass(frozen=True)
class Violation:
    """One policy breach, located to a line so the author (or agent) can fix it."""

    rule: str
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: [{self.rule}] {self.message}"


class PolicyError(Exception):
    """Raised by :func:`enforce`; ``violations`` keeps the structured list."""

    def __init__(self, violations: list[Violation]) -> None:
        self.violations = list(violations)
        listing = "\n".join(f"  {v}" for v in self.violations)
        super().__init__(f"pass violates the integrity policy ({len(violations)}):\n{listing}")


@dataclass
class _Scope:
    aliases: dict[str, str]  # name -> dotted name it is bound to (imports, `F = torch.x`)
    names: set[str]  # every name bound in the scope: params, stores, defs, imports
    is_function: bool


_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_MUTABLE = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


def _outer_parts(fn: ast.AST) -> list[ast.expr]:
    """Decorators, defaults and annotations: evaluated once, in the enclosing scope."""
    a = fn.args  # type: ignore[attr-defined]
    notes = [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs]
    rest = [x for x in a.kw_defaults + notes + [getattr(fn, "returns", None)] if x]
    return getattr(fn, "decorator_list", []) + a.defaults + rest


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Walk a scope's body without entering nested function bodies (their own scopes)."""
    body = node.body  # type: ignore[attr-defined]
    todo = list(body) if isinstance(body, list) else [body]
    while todo:
        cur = todo.pop()
        yield cur
        todo.extend(_outer_parts(cur) if isinstance(cur, _FUNCS) else ast.iter_child_nodes(cur))


def _literal_getattr(node: ast.AST | None) -> str | None:
    """The name in ``getattr(obj, "name")`` (an attribute access in disguise), else None."""
    call = isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr"
    args = node.args if call and len(node.args) == 2 else [None, None]  # type: ignore[union-attr]
    return args[1].value if isinstance(getattr(args[1], "value", None), str) else None


class _Checker:
    """One file's AST walk: the region (module, code, pattern, args, triton) decides which torch
    use is legal; scopes resolve aliases (``import torch as T``, ``F = T.nn.functional``)."""

    def __init__(self, filename: str, is_pass: bool, local_modules: Collection[str],
                 packages: Collection[str]) -> None:
        self.filename, self.is_pass, self.region = filename, is_pass, "module"
        self.local_modules, self.packages = set(local_modules), set(packages) | {"pass_dir"}
        self.out: list[Violation] = []
        self.module_quals: set[str] = set()  # what `import x` statements bind: module objects
        self.stack: list[_Scope] = []
        self.parents: dict[ast.AST, ast.AST] = {}

    def report(self, rule: str, node: ast.AST, what: str, why: str = "") -> None:
        message = f"{what}: {why or WHY[rule]}"
        self.out.append(Violation(rule, self.filename, getattr(node, "lineno", 0), message))

    def qual(self, node: ast.AST | None) -> str | None:
        """The dotted name an expression stands for, or None when it is not an import's."""
        if isinstance(node, ast.Name):
            hit = [s for s in self.stack if node.id in s.names or node.id in s.aliases]
            return hit[-1].aliases.get(node.id) if hit else None
        name = node.attr if isinstance(node, ast.Attribute) else _literal_getattr(node)
        if name is None:
            return None
        inner = node.value if isinstance(node, ast.Attribute) else node.args[0]  # type: ignore
        base = self.qual(inner)
        return f"{base}.{name}" if base else None

    def builtin(self, node: ast.AST) -> str:
        """The builtin a bare name refers to ('' when the file binds that name itself)."""
        name = node.id if isinstance(node, ast.Name) else ""
        return "" if any(name in s.names or name in s.aliases for s in self.stack) else name

    def local(self, name: str) -> bool:
        """Bound in the innermost function; anything else outlives a call."""
        return not self.stack[-1].is_function or name in self.stack[-1].names

    def push_scope(self, node: ast.AST) -> None:
        a = getattr(node, "args", None)
        params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                  if p} if a else set()
        self.stack.append(scope := _Scope({}, params, isinstance(node, _FUNCS)))
        own, declared = list(_own_nodes(node)), set()
        for n in own:
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                scope.names.add(n.id)
            elif isinstance(n, (*_FUNCS[:2], ast.ClassDef, ast.ExceptHandler)) and n.name:
                scope.names.add(n.name)
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                declared.update(n.names)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                for al in n.names:
                    bound = al.asname or al.name.split(".")[0]
                    if isinstance(n, ast.Import):
                        scope.aliases[bound] = al.name if al.asname else bound
                        self.module_quals.add(scope.aliases[bound])
                    elif n.module and not n.level:
                        scope.aliases[bound] = f"{n.module}.{al.name}"
                    scope.names.add(bound)
        scope.names -= declared
        for _ in range(3):  # alias chains: `G = F` after `F = torch.nn.functional`
            for n in own:
                if isinstance(n, ast.Assign) and (q := self.qual(n.value)):
                    scope.aliases.update((t.id, q) for t in n.targets if isinstance(t, ast.Name))

    def visit(self, node: ast.AST) -> None:
        if handler := getattr(self, f"on_{type(node).__name__}", None):
            handler(node)
        funcs = isinstance(node, _FUNCS)  # a def's body is visited below, in its own scope
        for child in _outer_parts(node) if funcs else ast.iter_child_nodes(node):
            self.visit(child)
        if not funcs:
            return
        saved, name = self.region, getattr(node, "name", "")
        if saved not in {"pattern", "args", "triton"}:  # nested code keeps its region
            ref = self.is_pass and name in PATTERN_FUNCS and isinstance(self.parents.get(node),
                                                                        ast.Module)
            decorators = getattr(node, "decorator_list", [])
            jit = any(self.qual(getattr(d, "func", d)) in JIT for d in decorators)
            self.region = ("pattern" if name == "pattern" else "args") if ref else (
                "triton" if jit else "code")
        self.push_scope(node)
        for stmt in node.body if isinstance(node.body, list) else [node.body]:
            self.visit(stmt)
        self.stack.pop()
        self.region = saved

    def on_FunctionDef(self, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        for d in fn.args.defaults + [d for d in fn.args.kw_defaults if d]:
            ctor = self.builtin(d.func) if isinstance(d, ast.Call) else ""
            if isinstance(d, _MUTABLE) or ctor in {"dict", "list", "set", "bytearray"}:
                self.report("mutable-cache", d, "mutable default argument")
        if getattr(fn, "name", "") in {"__torch_function__", "__torch_dispatch__"}:
            self.report("tensor-subclass", fn, fn.name)  # type: ignore[union-attr]

    on_AsyncFunctionDef = on_Lambda = on_FunctionDef

    def on_Import(self, node: ast.Import) -> None:
        for al in node.names:
            self.check_module(al.name, node)

    def on_ImportFrom(self, node: ast.ImportFrom) -> None:
        for al in node.names:
            if al.name in PATTERN_FUNCS:
                self.report("pattern-reuse", node, f"imports {al.name}")
        if node.level > 1:
            self.report("forbidden-import", node, "relative import outside the pass folder")
        elif not node.level and self.check_module(mod := node.module or "", node):
            for al in node.names:
                qual = f"{mod}.{al.name}"
                if al.name == "*":
                    self.report("forbidden-import", node, f"star import from {mod} hides names")
                elif hit := lookup(qual):
                    self.report(hit[0], node, f"imports {qual}", hit[1])
                elif mod.split(".")[0] == "torch" and qual not in TORCH_REF_ALLOW | {
                        "torch.fx", "torch.cuda"}:
                    self.report("torch-call", node, f"imports {qual}")

    def check_module(self, name: str, node: ast.AST) -> bool:
        """Flag a forbidden module; True when the names imported from it still need checks."""
        top = name.split(".")[0]
        if top in self.packages or top in self.local_modules:
            return False  # the folder's own files are checked themselves
        if name in PASS_API_MODULES:
            return True  # its names are checked one by one against PASS_API
        if hit := lookup(name):
            self.report(hit[0], node, f"imports {name}", hit[1])
        elif top not in IMPORT_ALLOW:
            self.report("forbidden-import", node, f"{name} is not on the import allowlist")
        return not hit and top in IMPORT_ALLOW

    def on_ClassDef(self, node: ast.ClassDef) -> None:
        if any((self.qual(b) or "").startswith("torch.") for b in node.bases):
            self.report("tensor-subclass", node, f"class {node.name} subclasses a torch type")

    def on_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        self.report("mutable-cache", node, f"{type(node).__name__.lower()} {node.names}")

    on_Nonlocal = on_Global

    def on_Assign(self, node: ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete) -> None:
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        for t in targets:
            for sub in t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]:
                self.check_mutation(sub, node)

    on_AugAssign = on_AnnAssign = on_Delete = on_Assign

    def check_mutation(self, target: ast.AST, node: ast.AST) -> None:
        """Writes through an imported object patch it; writes through a non-local keep state."""
        root = target
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if root is target or not isinstance(root, ast.Name) or self.region == "triton":
            return
        if self.qual(root):
            self.report("monkey-patch", node, f"writes into {root.id}")
        elif not self.local(root.id):
            self.report("mutable-cache", node, f"mutates non-local {root.id!r}")

    def on_Try(self, node: ast.Try) -> None:
        for h in node.handlers if self.region == "code" else []:
            ks = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
            broad = any(k is None or self.builtin(k) in {"Exception", "BaseException"} for k in ks)
            if broad and not isinstance(h.body[-1], ast.Raise):  # re-raising is fine
                self.report("fallback", h, "broad except in replacement code")

    on_TryStar = on_Try

    def on_Call(self, node: ast.Call) -> None:
        func, args, fname = node.func, node.args, self.builtin(node.func)
        if (member := _literal_getattr(node)) and self.qual(args[0]):
            self.check_chain(node)
        elif member:
            self.check_member(member, node)
        elif fname == "getattr":
            self.report("reflection", node, "getattr with a computed name")
        elif fname in {"setattr", "delattr"}:
            rule = "monkey-patch" if args and self.qual(args[0]) else "reflection"
            self.report(rule, node, f"{fname}()")
        elif fname in BUILTINS:
            self.report(BUILTINS[fname], node, f"{fname}()")
        elif fname == "next" and args and isinstance(args[0], ast.Name) and not self.local(
                args[0].id):
            self.report("mutable-cache", node, "next() on a shared iterator")
        owner = self.qual(func.value) if isinstance(func, ast.Attribute) else None
        if getattr(func, "attr", "") in MUTATORS and owner not in self.module_quals and (
                owner or "").split(".")[0] not in {"torch", "triton"}:  # torch.add is no write
            self.check_mutation(func, node)

    def on_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.MatMult):  # only tensors/arrays implement `@`
            self.check_member("__matmul__", node)

    def on_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("__") and node.attr not in DUNDER_OK:
            self.report("reflection", node, node.attr)
        info = self.qual(getattr(node.value, "func", None)) in {"torch.finfo", "torch.iinfo"}
        if node.attr in PATTERN_FUNCS and isinstance(node.ctx, ast.Load):
            self.report("pattern-reuse", node, f"uses {node.attr}")
        elif isinstance(node.ctx, ast.Load) and self.qual(node.value) is None and not info:
            self.check_member(node.attr, node)
        self.check_chain(node)

    def check_member(self, name: str, node: ast.AST) -> None:
        """Tensor members in wrapper code, called or not (``f = x.matmul`` counts too)."""
        if self.region in {"pattern", "triton"}:
            return
        if name in IDENTITY:
            self.report("identity", node, f".{name}")
        elif name in _tensor_methods():
            rule = "args-compute" if self.region == "args" else "tensor-method"
            self.report(rule, node, "the @ operator" if name == "__matmul__" else f".{name}")

    def on_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            return
        if node.id in PATTERN_FUNCS:
            self.report("pattern-reuse", node, f"uses {node.id}")
        called = getattr(self.parents.get(node), "func", None) is node
        if self.builtin(node) in BUILTINS and not called:
            self.report(BUILTINS[node.id], node, f"{node.id} used as a value")
        self.check_chain(node)

    def check_chain(self, node: ast.AST) -> None:
        """Judge the outermost dotted reference (``torch.cuda.Stream``, not ``torch.cuda``)."""
        parent = self.parents.get(node)
        if isinstance(parent, ast.Attribute) or (
                _literal_getattr(parent) and parent.args[0] is node):  # type: ignore[union-attr]
            return
        qual = self.qual(node)
        if qual is None or not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            return
        called = isinstance(parent, ast.Call) and parent.func is node
        hit = lookup(qual)
        if qual in self.module_quals and not called:
            if not (isinstance(parent, ast.Assign) and parent.value is node):  # `T = torch` ok
                self.report("reflection", node, f"module {qual} passed around as a value")
        elif self.region == "pattern":  # the reference code: any torch API, no global state
            if hit and hit[0] == "monkey-patch":
                self.report(hit[0], node, qual, hit[1])
        elif hit:
            self.report(hit[0], node, qual, hit[1])
        elif qual.split(".")[0] == "torch" and qual not in (
                TORCH_CALL_ALLOW if called else TORCH_REF_ALLOW):
            rule = "args-compute" if self.region == "args" else "torch-call"
            self.report(rule, node, f"{'call to' if called else 'reference to'} {qual}")


def check_source(source: str, filename: str, *, is_pass: bool = True,
                 local_modules: Collection[str] = (),
                 packages: Collection[str] = ("pass_dir",)) -> list[Violation]:
    """Check one module's source. ``is_pass=False`` (a helper) drops the pattern exemption;
    ``local_modules``/``packages`` name the folder's importable modules and package names."""
    try:
        tree = parse_source(source, filename)
    except SyntaxError as exc:
        return [Violation("syntax", filename, exc.lineno or 0, str(exc.msg))]
    checker = _Checker(filename, is_pass, local_modules, packages)
    checker.parents = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    checker.push_scope(tree)
    checker.visit(tree)
    return sorted(set(checker.out), key=lambda v: (v.line, v.rule, v.message))


_NATIVE_SUFFIXES = frozenset({".so", ".pyd", ".dll", ".dylib", ".pth", ".pyc"})
_SHADOWABLE = frozenset(sys.stdlib_module_names) | {"torch", "triton", "numpy", "passnet"}


def check_pass_dir(path: str | Path) -> list[Violation]:
    """Check a pass folder: listed passes and every other file, so each helper a pass can
    import (``pass_dir.x``, ``import x``, ``from . import x``) is covered; imports leaving the
    folder are violations. Files are named relative to the folder. Only listed passes get the
    pattern exemption, so torch code cannot hide in a helper's ``pattern``."""
    root = Path(path)
    listing = root / "sorted_output_pass_rule_names.json"
    try:
        stems = json.loads(listing.read_text(encoding="utf-8"))
        if not (isinstance(stems, list) and all(
                isinstance(s, str) and s and Path(s).name == s != ".." for s in stems)):
            raise ValueError("not a JSON list of file stems")
    except (OSError, ValueError) as exc:
        return [Violation("layout", listing.name, 0, f"unusable pass list: {exc}")]
    out = [Violation("layout", listing.name, 0, f"listed pass {s}.py is missing")
           for s in stems if not (root / f"{s}.py").is_file()]
    passes = {root / f"{s}.py" for s in stems}
    files = sorted(p for p in root.rglob("*") if "__pycache__" not in p.relative_to(root).parts)
    local = {p.relative_to(root).parts[0].removesuffix(".py") for p in files}
    for p in files:
        rel = p.relative_to(root).as_posix()
        if p.suffix == ".py" and p.is_file():
            out += check_source(p.read_text(encoding="utf-8", errors="replace"), rel,
                                is_pass=p in passes, local_modules=local,
                                packages={"pass_dir", root.name})
        if p.suffix in _NATIVE_SUFFIXES:
            out.append(Violation("native-code", rel, 0, "compiled file bypasses the source check"))
        elif p.suffix == ".py" and "/" not in rel and p.stem in _SHADOWABLE:
            out.append(Violation("shadow", rel, 0, f"{p.name} shadows the real {p.stem} module"))
    return sorted(out, key=lambda v: (v.file, v.line, v.rule, v.message))


def enforce(path: str | Path) -> None:
    """Raise :class:`PolicyError` listing every violation of the pass folder at ``path``."""
    if violations := check_pass_dir(path):
        raise PolicyError(violations)
