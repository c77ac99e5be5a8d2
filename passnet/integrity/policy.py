"""Static integrity policy for pass folders (layer A of SPEC §8): an allow-list.

Before any pass code is imported, every file of the folder is walked and every name resolved:
a pass may name its own folder's modules, functions, classes and constants, and otherwise only
what ``policy_allow`` lists (torch allocation and metadata, Triton, ``math``, PassNet's launch
and plan API, pure builtins, tensor metadata attributes). Writes go only into objects fresh in
the writing function (``policy_writes``). So what could compute with torch, keep state across
calls, hide work or tamper with the harness is refused because nobody allowed it, and
``policy_rules`` only names the rule. ``pattern`` (the reference torch code) keeps its own
looser rules, and ``@triton.jit`` bodies are device code. A pure AST walk cannot see through
values (``a + b``, ``float(t)`` on tensors, what a kernel writes): runtime guards cover those.
"""

from __future__ import annotations

import ast
import json
import keyword
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from passnet.graph.source import parse_source
from passnet.integrity.policy_allow import JIT, PASS_API_MODULES, PATTERN_FUNCS, allowed, importable
from passnet.integrity.policy_bindings import literal_default
from passnet.integrity.policy_reads import ReadChecks
from passnet.integrity.policy_rules import WHY, lookup
from passnet.integrity.policy_scope import (
    DEFS,
    FUNCS,
    ROOT,
    Folder,
    class_members,
    dunder,
    dunder_defs_ok,
    make_folder,
    outer_parts,
    reserved,
)


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


class _Checker(ReadChecks):
    """One file's AST walk: the region (module, code, pattern, args, triton) decides which rules
    apply; scopes and the folder resolve names (``import torch as T``, ``kernels.T``). Names
    and attributes: ``policy_reads``; writes: ``policy_writes``; scopes: ``policy_scope``."""

    def __init__(self, filename: str, is_pass: bool, folder: Folder) -> None:
        super().__init__(filename, folder, WHY)
        self.is_pass = is_pass

    def visit(self, node: ast.AST) -> None:
        if handler := getattr(self, f"on_{type(node).__name__}", None):
            handler(node)
        funcs = isinstance(node, FUNCS)  # a def's body is visited below, in its own scope
        for child in outer_parts(node) if funcs else ast.iter_child_nodes(node):
            self.visit(child)
        if not funcs:
            return
        saved, name = self.region, getattr(node, "name", "")
        if saved not in {"pattern", "args", "triton"}:  # nested code keeps its region
            ref = (
                self.is_pass
                and name in PATTERN_FUNCS
                and isinstance(self.parents.get(node), ast.Module)
            )
            decorators = getattr(node, "decorator_list", [])
            jit = any(self.qual(getattr(d, "func", d)) in JIT for d in decorators)
            self.region = (
                ("pattern" if name == "pattern" else "args")
                if ref
                else ("triton" if jit else "code")
            )
        self.push_scope(node)
        self.fns.append(node)
        body = getattr(node, "body", [])
        for stmt in body if isinstance(body, list) else [body]:
            self.visit(stmt)
        self.fns.pop()
        self.stack.pop()
        self.region = saved

    # -- definitions ------------------------------------------------------------------------
    def on_FunctionDef(self, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        for d in fn.args.defaults + [d for d in fn.args.kw_defaults if d]:
            if not literal_default(d, self.qual):  # an import's object: a module, a function
                self.report(
                    "reflection" if self.qual(d) else "mutable-cache",
                    d,
                    f"default {ast.unparse(d)}",
                    "defaults are made once and shared by every "
                    "call: only numbers, strings, None, booleans, tuples of them, dtypes",
                )
        name = getattr(fn, "name", "")
        if name in {"__torch_function__", "__torch_dispatch__"}:
            self.report("tensor-subclass", fn, name)
        elif (
            isinstance(self.parents.get(fn), ast.ClassDef)
            and dunder(name)
            and not dunder_defs_ok(name)
        ):
            self.report(
                "reflection",
                fn,
                f"defines {name}",
                "a pass's class may define only "
                "__init__, __repr__, comparisons, __len__, __getitem__, __iter__, "
                "__call__: other dunders run code behind operators and the interpreter",
            )

    on_AsyncFunctionDef = on_Lambda = on_FunctionDef

    def on_ClassDef(self, node: ast.ClassDef) -> None:
        if any((self.qual(b) or "").startswith("torch.") for b in node.bases):
            self.report("tensor-subclass", node, f"class {node.name} subclasses a torch type")
        if node.keywords:
            self.report("reflection", node, f"class {node.name} takes keywords (a metaclass)")
        for name, where in class_members(node):
            if dunder(name) and not isinstance(where, DEFS) and not dunder_defs_ok(name):
                self.report("reflection", where, f"class {node.name} binds {name}")
            elif reserved(name) and not dunder(name):
                self.report(
                    "attribute",
                    where,
                    f"class {node.name} defines {name!r}",
                    "the name of a tensor, kernel, plan or frame member: pick another name",
                )

    def on_Import(self, node: ast.Import) -> None:
        for al in node.names:
            self.check_module(al.name, node)

    def on_ImportFrom(self, node: ast.ImportFrom) -> None:
        for al in node.names:
            if al.name in PATTERN_FUNCS:
                self.report("pattern-reuse", node, f"imports {al.name}")
        if any(al.name == "*" for al in node.names):  # even the folder's: names it cannot see
            self.report(
                "forbidden-import",
                node,
                f"star import from {node.module or '.'}",
                "it binds names the check cannot see: import names one by one",
            )
        if node.level > 1:
            self.report("forbidden-import", node, "relative import outside the pass folder")
        elif not node.level and self.check_module(mod := node.module or "", node):
            for al in node.names:
                qual = f"{mod}.{al.name}"
                if al.name == "*":
                    continue
                if hit := lookup(qual):
                    self.report(hit[0], node, f"imports {qual}", hit[1])
                elif not (allowed(qual, called=False) or importable(qual)):
                    rule = "torch-call" if mod.split(".")[0] == "torch" else "forbidden-import"
                    self.report(
                        rule,
                        node,
                        f"imports {qual}",
                        "" if rule == "torch-call" else f"{qual} is not on the allow-list",
                    )

    def check_module(self, name: str, node: ast.AST) -> bool:
        """Flag a module off the allow-list; True when the names imported from it need checks."""
        if name.split(".")[0] in self.folder.roots or self.folder.split(name):
            return False  # the folder's own files are checked themselves
        if name in PASS_API_MODULES:
            return True  # its names are checked one by one against PASS_API
        if hit := lookup(name):
            self.report(hit[0], node, f"imports {name}", hit[1])
        elif not importable(name):
            self.report(
                "forbidden-import", node, f"imports {name}", f"{name} is not on the allow-list"
            )
        return not hit and importable(name)

    def on_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        self.report("mutable-cache", node, f"{type(node).__name__.lower()} {node.names}")

    on_Nonlocal = on_Global

    def on_Try(self, node: ast.Try) -> None:
        for h in node.handlers if self.region == "code" else []:
            ks = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
            broad = any(k is None or self.builtin(k) in {"Exception", "BaseException"} for k in ks)
            if broad and not isinstance(h.body[-1], ast.Raise):  # re-raising is fine
                self.report("fallback", h, "broad except in replacement code")

    on_TryStar = on_Try


def _check(tree: ast.Module, filename: str, is_pass: bool, folder: Folder) -> list[Violation]:
    checker = _Checker(filename, is_pass, folder)
    checker.parents = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    checker.push_scope(tree)
    checker.visit(tree)
    found = {Violation(rule, filename, line, message) for rule, line, message in checker.out}
    return sorted(found, key=lambda v: (v.line, v.rule, v.message))


def check_source(
    source: str,
    filename: str,
    *,
    is_pass: bool = True,
    local_modules: Collection[str] = (),
    packages: Collection[str] = ("pass_dir",),
) -> list[Violation]:
    """Check one module's source. ``is_pass=False`` (a helper) drops the pattern exemption;
    ``local_modules``/``packages`` name the folder's importable modules and package names."""
    try:
        tree = parse_source(source, filename)
    except SyntaxError as exc:
        return [Violation("syntax", filename, exc.lineno or 0, str(exc.msg))]
    folder = make_folder([(filename, tree)], {ROOT, *packages}, local_modules)
    return _check(tree, filename, is_pass, folder)


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
        if not (
            isinstance(stems, list)
            and all(isinstance(s, str) and s and Path(s).name == s != ".." for s in stems)
        ):
            raise ValueError("not a JSON list of file stems")
    except (OSError, ValueError) as exc:
        return [Violation("layout", listing.name, 0, f"unusable pass list: {exc}")]
    out = [
        Violation("layout", listing.name, 0, f"listed pass {s}.py is missing")
        for s in stems
        if not (root / f"{s}.py").is_file()
    ]
    passes = {root / f"{s}.py" for s in stems}
    files = sorted(p for p in root.rglob("*") if "__pycache__" not in p.relative_to(root).parts)
    sources: dict[str, ast.Module | None] = {}
    for p in files:
        rel = p.relative_to(root).as_posix()
        if p.suffix == ".py" and p.is_file():
            try:
                sources[rel] = parse_source(p.read_text(encoding="utf-8", errors="replace"), rel)
            except SyntaxError as exc:
                out.append(Violation("syntax", rel, exc.lineno or 0, str(exc.msg)))
                sources[rel] = None
        if p.suffix in _NATIVE_SUFFIXES:
            out.append(Violation("native-code", rel, 0, "compiled file bypasses the source check"))
        elif p.suffix == ".py" and "/" not in rel and p.stem in _SHADOWABLE:
            out.append(Violation("shadow", rel, 0, f"{p.name} shadows the real {p.stem} module"))
    roots = {ROOT} | (
        {root.name}
        if root.name.isidentifier()
        and not keyword.iskeyword(root.name)
        and root.name not in _SHADOWABLE
        else set()
    )
    dirs = [(p.relative_to(root).as_posix() + "/__init__.py", None) for p in files if p.is_dir()]
    folder = make_folder([*sources.items(), *dirs], roots, skip=_SHADOWABLE)
    for rel, tree in sources.items():
        if tree is not None:
            out += _check(tree, rel, root / rel in passes, folder)
    return sorted(out, key=lambda v: (v.file, v.line, v.rule, v.message))


def enforce(path: str | Path) -> None:
    """Raise :class:`PolicyError` listing every violation of the pass folder at ``path``."""
    if violations := check_pass_dir(path):
        raise PolicyError(violations)
