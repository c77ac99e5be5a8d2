"""Scopes and the pass folder as the static policy sees them: what a name stands for.

The walker (``policy``) resolves every name to a dotted import name (``torch.empty``), a name the
folder defines, a builtin, or an opaque value. A pass folder is several files, so a helper's
``import torch as T`` makes ``kernels.T`` stand for ``torch``: :class:`Folder` carries each
module's import aliases across files, and the member names of the folder's own classes (the
only attribute names a pass adds to the attribute allow-list).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from passnet.integrity.policy_allow import (
    DUNDER_DEFS,
    FRAME_ATTRS,
    HARNESS_ATTRS,
    METHOD_ALLOW,
    TRUSTED,
    VALUE_ATTRS,
    importable,
)
from passnet.integrity.policy_bindings import kinds_of, literal_default, values_of
from passnet.integrity.policy_rules import IDENTITY

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
ROOT = "pass_dir"  # the package name the loader gives every pass folder
CHECKED = frozenset({"module", "code", "args"})  # regions under the allow-lists (not pattern,
# the reference torch code, nor triton, device code)


@functools.cache
def tensor_methods() -> frozenset[str]:
    """Every torch.Tensor method (dunders like __add__ too, properties not) but allowed ones."""
    import torch

    names = {n for n in dir(torch.Tensor) if callable(getattr(torch.Tensor, n, None))}
    return frozenset(names - set(dir(object)) - METHOD_ALLOW - IDENTITY)


@functools.cache
def _tensor_reserved() -> frozenset[str]:
    import torch

    return frozenset(set(dir(torch.Tensor)) - VALUE_ATTRS) | TRUSTED


def dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def reserved(name: str) -> bool:
    """Names a pass's class may not define: a tensor's compute methods and trusted metadata,
    the harness's kernel and plan internals, interpreter state (and dunders, judged apart)."""
    return (
        name in HARNESS_ATTRS
        or name in FRAME_ATTRS
        or name in IDENTITY
        or dunder(name)
        or name in _tensor_reserved()
    )


@dataclass
class Scope:
    """One function's (or the module's) names; class bodies belong to the enclosing scope."""

    aliases: dict[str, str]  # name -> dotted name it is bound to (imports, `F = torch.x`)
    names: set[str]  # every name bound in the scope: params, stores, defs, imports
    is_function: bool
    kinds: dict[str, set[str]] = field(default_factory=dict)  # see policy_writes.kinds_of
    values: dict[str, list[ast.AST | None]] = field(default_factory=dict)  # what names are bound to
    kept: set[str] = field(default_factory=set)  # parameters with a non-literal default


def outer_parts(fn: ast.AST) -> list[ast.expr]:
    """Decorators, defaults and annotations: evaluated once, in the enclosing scope."""
    a = fn.args  # type: ignore[attr-defined]
    notes = [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs]
    rest = [x for x in a.kw_defaults + notes + [getattr(fn, "returns", None)] if x]
    return getattr(fn, "decorator_list", []) + a.defaults + rest


def own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Walk a scope's body without entering nested function bodies (their own scopes)."""
    body = node.body  # type: ignore[attr-defined]
    todo = list(body) if isinstance(body, list) else [body]
    while todo:
        cur = todo.pop()
        yield cur
        todo.extend(outer_parts(cur) if isinstance(cur, FUNCS) else ast.iter_child_nodes(cur))


def params_of(node: ast.AST) -> list[str]:
    a = getattr(node, "args", None)
    return (
        [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p]
        if a
        else []
    )


def literal_getattr(node: ast.AST | None) -> str | None:
    """The name in ``getattr(obj, "name")`` (an attribute access in disguise), else None."""
    if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr"
            and len(node.args) == 2):  # fmt: skip
        return None
    name = node.args[1]
    return name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None


def import_alias(node: ast.Import | ast.ImportFrom, al: ast.alias, package: str) -> str | None:
    """The dotted name an import binds (``from . import k`` in ``pass_dir`` -> pass_dir.k)."""
    if isinstance(node, ast.Import):
        return al.name if al.asname else al.name.split(".")[0]
    if node.level == 1:
        return ".".join(p for p in (package, node.module, al.name) if p)
    return f"{node.module}.{al.name}" if node.module and not node.level else None


def self_name(fn: ast.AST, parents: dict[ast.AST, ast.AST]) -> str | None:
    """``self`` of an ``__init__`` defined in a class body that never rebinds it, else None:
    only there may a pass set attributes (on an object new on every construction)."""
    names = params_of(fn)
    if (
        getattr(fn, "name", "") != "__init__"
        or not isinstance(parents.get(fn), ast.ClassDef)
        or not names
    ):
        return None
    rebound = any(
        isinstance(n, ast.Name) and n.id == names[0] and not isinstance(n.ctx, ast.Load)
        for n in own_nodes(fn)
    )
    return None if rebound else names[0]


def class_members(cls: ast.ClassDef) -> list[tuple[str, ast.AST]]:
    """(name, node) of what a class defines: methods, class attributes, ``self.x`` of
    ``__init__``."""
    out: list[tuple[str, ast.AST]] = []
    for stmt in cls.body:
        if isinstance(stmt, DEFS):
            out.append((stmt.name, stmt))
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        out += [
            (t.id, stmt)
            for t in targets
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(t, ast.Name)
        ]
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__" and params_of(stmt):
            first = params_of(stmt)[0]
            out += [
                (n.attr, n)
                for n in own_nodes(stmt)
                if isinstance(n, ast.Attribute)
                and isinstance(n.ctx, ast.Store)
                and getattr(n.value, "id", "") == first
            ]
    return out


def dunder_defs_ok(name: str) -> bool:
    return name in DUNDER_DEFS or name in {"__slots__", "__doc__"}


def module_path(rel: str) -> str:
    """``sub/ref.py`` -> ``sub.ref``; a package's ``__init__.py`` is the package itself."""
    parts = list(PurePosixPath(rel).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(rel: str) -> str:
    """The package a file's ``from . import x`` reads from."""
    return ".".join((ROOT, *PurePosixPath(rel).parent.parts))


@dataclass(frozen=True)
class Folder:
    """What a pass folder defines across its files (see the module docstring)."""

    roots: frozenset[str]  # package names the folder is imported as: pass_dir, its own name
    modules: frozenset[str]  # module paths below a root (``kernels``, ``sub``, ``sub.ref``)
    aliases: dict[str, dict[str, str]]  # module path ('' for the root) -> name -> dotted name
    members: frozenset[str]  # member names of the folder's classes, less reserved ones

    def split(self, qual: str) -> tuple[str, list[str]] | None:
        """(module path, the rest) when ``qual`` starts at one of the folder's modules."""
        parts = qual.split(".")
        rooted = parts[0] in self.roots
        bare = parts[1:] if rooted else parts
        n = next((n for n in range(len(bare), 0, -1) if ".".join(bare[:n]) in self.modules), 0)
        return (".".join(bare[:n]), bare[n:]) if n or rooted else None

    def is_module(self, qual: str) -> bool:
        found = self.split(qual)
        return found is not None and not found[1]

    def resolve(self, qual: str) -> str | None:
        """Follow the folder's aliases (``kernels.T.empty`` -> ``torch.empty``); None where a
        name reads an attribute of a value the folder defines (``kernels.f.x``): the walker
        then judges ``x`` as a value's attribute."""
        for _ in range(8):
            found = self.split(qual)
            if found is None or not found[1]:
                return qual
            module, rest = found
            target = self.aliases.get(module, {}).get(rest[0])
            if target is None:
                return qual if len(rest) == 1 else None
            qual = ".".join([target, *rest[1:]])
        return None


def make_folder(
    files: Iterable[tuple[str, ast.Module | None]],
    roots: Iterable[str],
    extra_modules: Iterable[str] = (),
    skip: Collection[str] = (),
) -> Folder:
    """A :class:`Folder` from ``(relative path, parsed tree or None)`` pairs; modules named in
    ``skip`` (files shadowing torch or the stdlib, refused on their own) resolve as the real
    ones."""
    modules, aliases, members = set(extra_modules), dict[str, dict[str, str]](), set[str]()
    for rel, tree in files:
        path = module_path(rel)
        parts = path.split(".") if path else []
        if parts and parts[0] in skip:
            continue
        modules.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
        if tree is None:
            continue
        table = aliases.setdefault(path, {})
        package = package_of(rel)
        nodes = list(own_nodes(tree))  # module level, class bodies and branches included
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                table.update(
                    (al.asname or al.name.split(".")[0], q)
                    for al in node.names
                    if (q := import_alias(node, al, package))
                )
        for _ in range(3):  # alias chains: `G = F` after `F = torch.nn`
            table.update(
                (t.id, q)
                for node in nodes
                if isinstance(node, ast.Assign) and (q := _dotted(node.value, table))
                for t in node.targets
                if isinstance(t, ast.Name)
            )
        members.update(
            name
            for cls in ast.walk(tree)
            if isinstance(cls, ast.ClassDef)
            for name, _ in class_members(cls)
            if not reserved(name)
        )
    return Folder(frozenset(roots), frozenset(modules), aliases, frozenset(members))


def _dotted(node: ast.AST, table: dict[str, str]) -> str | None:
    """``T.nn`` over a module's own import table (``T = torch.nn`` re-exports a module)."""
    if isinstance(node, ast.Name):
        return table.get(node.id)
    if not isinstance(node, ast.Attribute):
        return None
    base = _dotted(node.value, table)
    return f"{base}.{node.attr}" if base else None


class Resolver:
    """A file's names as the walk goes: the scope stack, import aliases and binding kinds.
    Mixed with the write and read rules into ``policy._Checker``; ``report`` collects
    ``(rule, line, message)``."""

    def __init__(self, filename: str, folder: Folder, why: dict[str, str]) -> None:
        self.filename, self.folder, self.why, self.region = filename, folder, why, "module"
        self.package = package_of(filename)
        self.out: list[tuple[str, int, str]] = []
        self.module_quals: set[str] = set()  # what `import x` statements bind: module objects
        self.stack: list[Scope] = []
        self.fns: list[ast.AST] = []  # the enclosing function definitions, innermost last
        self.parents: dict[ast.AST, ast.AST] = {}

    def report(self, rule: str, node: ast.AST, what: str, why: str = "") -> None:
        self.out.append((rule, getattr(node, "lineno", 0), f"{what}: {why or self.why[rule]}"))

    def qual(self, node: ast.AST | None) -> str | None:
        """The dotted name an expression stands for, or None when it is not an import's."""
        if isinstance(node, ast.Name):
            hit = [s for s in self.stack if node.id in s.names or node.id in s.aliases]
            found = hit[-1].aliases.get(node.id) if hit else None
        else:
            name = node.attr if isinstance(node, ast.Attribute) else literal_getattr(node)
            if name is None:
                return None
            inner = node.value if isinstance(node, ast.Attribute) else node.args[0]  # type: ignore
            base = self.qual(inner)
            found = f"{base}.{name}" if base else None
        return self.folder.resolve(found) if found else None

    def builtin(self, node: ast.AST) -> str:
        """The builtin a bare name refers to ('' when the file binds that name itself)."""
        name = node.id if isinstance(node, ast.Name) else ""
        return "" if any(name in s.names or name in s.aliases for s in self.stack) else name

    def local(self, name: str) -> bool:
        """Bound in the innermost function; anything else outlives a call."""
        return not self.stack[-1].is_function or name in self.stack[-1].names

    def kinds(self, name: str) -> set[str]:
        """The binding kinds of ``name`` in the innermost scope that binds it."""
        hit = [s for s in self.stack if name in s.names]
        return hit[-1].kinds.get(name, set()) if hit else set()

    def is_module(self, qual: str) -> bool:
        return qual in self.module_quals or importable(qual) or self.folder.is_module(qual)

    def push_scope(self, node: ast.AST) -> None:
        params = set(params_of(node))
        self.stack.append(scope := Scope({}, set(params), isinstance(node, FUNCS)))
        scope.kept = self.kept_params(node)
        own, declared, others = list(own_nodes(node)), set(), set()
        for n in own:
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                scope.names.add(n.id)
            elif isinstance(n, (*DEFS, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and (
                name := getattr(n, "name", None)
            ):
                others.add(name)
            elif isinstance(n, ast.MatchMapping) and n.rest:
                others.add(n.rest)
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                declared.update(n.names)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                for al in n.names:
                    bound, found = (
                        al.asname or al.name.split(".")[0],
                        import_alias(n, al, self.package),
                    )
                    if found:
                        scope.aliases[bound] = found
                        if isinstance(n, ast.Import) or self.is_module(found):
                            self.module_quals.add(found)
                    others.add(bound)
        scope.names |= others
        scope.names -= declared
        for _ in range(3):  # alias chains: `G = F` after `F = torch.nn.functional`
            for n in own:
                if isinstance(n, ast.Assign) and (q := self.qual(n.value)):
                    scope.aliases.update((t.id, q) for t in n.targets if isinstance(t, ast.Name))
        scope.values = values_of(own)
        scope.kinds = kinds_of(scope.values, params, others, self.qual, self.builtin)

    def kept_params(self, node: ast.AST) -> set[str]:
        """Parameters whose default is not a literal: the default object outlives calls."""
        a = getattr(node, "args", None)
        if a is None:
            return set()
        pos = (a.posonlyargs + a.args)[len(a.posonlyargs + a.args) - len(a.defaults) :]
        pairs = [*zip(pos, a.defaults, strict=True), *zip(a.kwonlyargs, a.kw_defaults, strict=True)]
        return {p.arg for p, d in pairs if d is not None and not literal_default(d, self.qual)}
