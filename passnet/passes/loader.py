"""Load a PassNet pass folder: `sorted_output_pass_rule_names.json` plus one module per rule.

Each load gets its own `pass_dir` package object: while the folder's modules execute, `pass_dir.x`
and a bare `import x` (for a file x.py of the folder) resolve to this folder's files, as one
module object, as they would with the folder first on `sys.path`; afterwards the previous
`sys.modules` entries come back, so two folders loaded in one process never share helper modules.
Modules are compiled from source on every load (no `.pyc`), so an edit made within the same second
as the previous load is never hidden by a stale bytecode cache.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import json
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

RULES_FILE = "sorted_output_pass_rule_names.json"
PACKAGE = "pass_dir"
# Names a folder's file never shadows: the standard library and the packages a pass is written
# against (a helper `triton.py` must not replace Triton for the harness while the folder loads).
_UNSHADOWED = frozenset(sys.stdlib_module_names) | {"torch", "triton", "numpy", "passnet"}


class PassLoadError(Exception):
    """A pass folder cannot be used; the message names the file (and line) and the reason."""


@dataclass
class PassRule:
    """One pattern/replacement rule, as loaded from `<stem>.py`; ``free``: its
    ``FREE_LITERALS`` (keyword -> "call.parameter" or a tuple of them; docs/passes.md)."""

    name: str
    path: Path
    pattern: Callable
    replacement_args: Callable
    replacement: Callable  # the object replacement_func() returned
    module: ModuleType
    free: dict[str, str | tuple[str, ...]] = field(default_factory=dict)


@dataclass
class PassSet:
    """The rules of one pass folder, in application order."""

    path: Path
    rules: list[PassRule] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.rules]


class _SourceLoader(importlib.abc.Loader):
    """Executes a file from its source (never a cached .pyc) so edits are always seen."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        source = self.path.read_text(encoding="utf-8")
        code = compile(source, str(self.path), "exec", dont_inherit=True)
        exec(code, module.__dict__)


class _EmptyLoader(importlib.abc.Loader):
    """The `pass_dir` package of a folder without __init__.py."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        return None


class _AliasLoader(importlib.abc.Loader):
    """Makes a bare `import helper` return the module object of `pass_dir.helper`."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        return None


class _PassDirFinder(importlib.abc.MetaPathFinder):
    """Resolves `pass_dir`, `pass_dir.x` and bare `x` to files of one folder."""

    def __init__(self, folder: Path, bare: set[str]) -> None:
        self.folder, self.bare = folder, bare

    def _locate(self, parts: Sequence[str]) -> tuple[Path, bool] | None:
        base = self.folder.joinpath(*parts)
        if (base / "__init__.py").is_file():
            return base / "__init__.py", True
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py"), False
        return None

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname == PACKAGE:
            init = self.folder / "__init__.py"
            loader = _SourceLoader(init) if init.is_file() else _EmptyLoader()
            spec = importlib.machinery.ModuleSpec(PACKAGE, loader, is_package=True)
            spec.submodule_search_locations = [str(self.folder)]
            return spec
        parts = fullname.split(".")
        if parts[0] == PACKAGE:
            found = self._locate(parts[1:])
            if found is None:
                return None
            file, is_pkg = found
            return importlib.util.spec_from_file_location(
                fullname,
                file,
                loader=_SourceLoader(file),
                submodule_search_locations=[str(file.parent)] if is_pkg else None,
            )
        if fullname in self.bare:
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(f"{PACKAGE}.{fullname}"))
        return None


def _owned(name: str, bare: set[str]) -> bool:
    return name == PACKAGE or name.startswith(PACKAGE + ".") or name.split(".")[0] in bare


@contextmanager
def _isolated_pass_dir(folder: Path) -> Iterator[None]:
    """Route `pass_dir` and the folder's bare module names to `folder`, then restore sys.modules.

    A folder file shadows an installed module of the same name even when that module is already
    imported (a helper `kernels.py` beside Hugging Face's `kernels` package, which transformers
    imports), except for the standard library and the packages in `_UNSHADOWED`.
    """
    stems = {p.stem for p in folder.glob("*.py")} | {
        p.parent.name for p in folder.glob("*/__init__.py")
    }
    bare = {s for s in stems if s.isidentifier() and s not in _UNSHADOWED and s != PACKAGE}
    saved = {k: v for k, v in sys.modules.items() if _owned(k, bare)}
    for k in saved:
        del sys.modules[k]
    finder = _PassDirFinder(folder, bare)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for k in [k for k in sys.modules if _owned(k, bare)]:
            del sys.modules[k]
        sys.modules.update(saved)


def _rel(path: Path | str, folder: Path) -> str:
    p = Path(path)
    try:
        return str(p.relative_to(folder.parent))
    except ValueError:
        return str(p)


def _read_rule_names(folder: Path) -> list[str]:
    rules_file = folder / RULES_FILE
    where = _rel(rules_file, folder)
    if not rules_file.is_file():
        raise PassLoadError(f"{where}: missing (a pass folder needs a JSON list of rule stems)")
    try:
        names = json.loads(rules_file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise PassLoadError(f"{where}: invalid JSON: {e}") from e
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise PassLoadError(f'{where}: must be a JSON list of module stems, e.g. ["FuseAddRelu"]')
    if not names:
        raise PassLoadError(f"{where}: lists no rules")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise PassLoadError(f"{where}: rule(s) listed twice: {', '.join(dupes)}")
    for n in names:
        stem = n[:-3] if n.endswith(".py") else n
        if not stem.isidentifier():
            raise PassLoadError(f"{where}: {n!r} is not a module stem (a Python identifier)")
        if not (folder / f"{stem}.py").is_file():
            raise PassLoadError(
                f"{where}: lists {n!r} but {_rel(folder / (stem + '.py'), folder)} does not exist"
            )
    return [n[:-3] if n.endswith(".py") else n for n in names]


def _import_error(exc: BaseException, file: Path, folder: Path) -> PassLoadError:
    """Describe an exception raised while importing `file`, pointing at the deepest frame of the folder."""
    if isinstance(exc, SyntaxError):
        where = _rel(exc.filename or file, folder)
        line = f":{exc.lineno}" if exc.lineno else ""
        text = f" -> {exc.text.strip()}" if exc.text else ""
        return PassLoadError(f"{where}{line}: SyntaxError: {exc.msg}{text}")
    location = _rel(file, folder)
    frames = [
        f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).parent == folder
    ]
    if frames:
        location = f"{_rel(frames[-1].filename, folder)}:{frames[-1].lineno}"
    return PassLoadError(f"{location}: import of {file.name} failed: {type(exc).__name__}: {exc}")


def _check_callable(module: ModuleType, attr: str, where: str) -> Callable:
    fn = getattr(module, attr, None)
    if fn is None:
        raise PassLoadError(f"{where}: missing module-level function `{attr}`")
    if not callable(fn):
        raise PassLoadError(f"{where}: `{attr}` is a {type(fn).__name__}, not a function")
    return fn


def _line_of(fn: Callable) -> str:
    try:
        return f":{inspect.getsourcelines(fn)[1]}"
    except (OSError, TypeError):
        return ""


def _resolve_replacement(factory: Callable, where: str) -> Callable:
    """Call `replacement_func()` twice and demand the same stable, module-level callable."""
    loc = f"{where}{_line_of(factory)}"
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        required = [
            p.name
            for p in sig.parameters.values()
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        if required:
            raise PassLoadError(
                f"{loc}: replacement_func() must take no arguments (it takes {', '.join(required)})"
            )
    try:
        first, second = factory(), factory()
    except Exception as e:
        raise PassLoadError(f"{loc}: replacement_func() raised {type(e).__name__}: {e}") from e
    if not callable(first):
        raise PassLoadError(
            f"{loc}: replacement_func() returned a {type(first).__name__}, not a callable"
        )
    qualname = getattr(first, "__qualname__", "") or ""
    if "<lambda>" in qualname or "<locals>" in qualname:
        kind = "a lambda" if "<lambda>" in qualname else "a nested function"
        raise PassLoadError(
            f"{loc}: replacement_func() is unstable: it returns {kind} ({qualname}); "
            "return a module-level (@torch.fx.wrap) function instead"
        )
    if first is not second:
        raise PassLoadError(
            f"{loc}: replacement_func() is unstable: two calls returned different objects; "
            "return one module-level function"
        )
    return first


def _free_literals(module: ModuleType, where: str) -> dict[str, str | tuple[str, ...]]:
    """The module's ``FREE_LITERALS`` (docs/passes.md#free-literals), checked for shape: a
    dict from keywords to ``"call.parameter"`` strings or lists of them. Whether the pattern
    has those calls and arguments is checked where the pattern is traced."""
    free = getattr(module, "FREE_LITERALS", None)
    if free is None:
        return {}
    shape = 'a dict such as {"eps": "layer_norm.eps"}'
    if not isinstance(free, dict):
        raise PassLoadError(f"{where}: FREE_LITERALS is a {type(free).__name__}, not {shape}")
    out: dict[str, str | tuple[str, ...]] = {}
    for keyword, names in free.items():
        many = isinstance(names, (tuple, list))
        items = list(names) if many else [names]
        if not (isinstance(keyword, str) and keyword.isidentifier() and items
                and all(isinstance(n, str) and "." in n for n in items)):  # fmt: skip
            raise PassLoadError(f"{where}: FREE_LITERALS[{keyword!r}] = {names!r}: {shape} "
                                "(a keyword to one \"call.parameter\" or a list of them)")  # fmt: skip
        out[keyword] = tuple(items) if many else items[0]
    return out


def _load_rule(stem: str, folder: Path) -> PassRule:
    file = folder / f"{stem}.py"
    where = _rel(file, folder)
    try:
        module = importlib.import_module(f"{PACKAGE}.{stem}")
    except PassLoadError:
        raise
    except (Exception, SystemExit) as e:  # any import-time failure is the pass's fault
        raise _import_error(e, file, folder) from e
    pattern = _check_callable(module, "pattern", where)
    replacement_args = _check_callable(module, "replacement_args", where)
    factory = _check_callable(module, "replacement_func", where)
    replacement = _resolve_replacement(factory, where)
    free = _free_literals(module, where)
    return PassRule(stem, file, pattern, replacement_args, replacement, module, free)


def write_pass_dir(folder: Path, modules: Sequence[tuple[str, str]]) -> None:
    """Write a pass folder: one ``<stem>.py`` per (stem, source), listed in order in
    ``RULES_FILE``. ``folder`` must not exist yet."""
    folder.mkdir(parents=True)
    for stem, source in modules:
        (folder / f"{stem}.py").write_text(source, encoding="utf-8")
    (folder / RULES_FILE).write_text(json.dumps([stem for stem, _ in modules]) + "\n")


def load_pass_dir(path: str | Path) -> PassSet:
    """Load every rule listed in the folder's JSON, in order; raise PassLoadError on any defect."""
    folder = Path(path).resolve()
    if not folder.is_dir():
        raise PassLoadError(f"{path}: pass folder does not exist")
    names = _read_rule_names(folder)
    importlib.invalidate_caches()
    with _isolated_pass_dir(folder):
        rules = [_load_rule(stem, folder) for stem in names]
    return PassSet(folder, rules)
