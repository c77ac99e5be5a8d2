"""The data that ships with passnet: the bundled suite, the example task and pass, the pass
library, the held-out tasks and the larger GraphNet suites (as archives).

In a checkout they are ``examples/`` of the repository. The wheel holds a copy of that folder
as ``passnet/_data`` (``setup.py`` copies it when the wheel is built, so git holds the files
once). ``passnet data list`` shows what is there; ``passnet data get`` writes a copy into a
folder (``./examples`` by default, archives unpacked), so that every ``examples/...`` path of
the README works from any folder. Nothing here imports torch.
"""

from __future__ import annotations

import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""The installed ``passnet`` package folder."""
WHEEL_DATA = PACKAGE_DIR / "_data"
"""Where a wheel holds the bundled data (absent in a checkout)."""
CHECKOUT_EXAMPLES = PACKAGE_DIR.parent / "examples"
"""Where a checkout (or an editable install) holds it."""
LOCAL = Path("examples")
"""The folder ``passnet data get`` writes to, relative to the working directory."""


class BundledError(Exception):
    """Bundled data that cannot be found or written (the message names the fix)."""


@dataclass(frozen=True)
class Item:
    """One entry of ``examples/``: a folder, or an archive that unpacks to folder ``name``."""

    name: str
    what: str
    archive: str | None = None

    @property
    def source(self) -> str:
        """Its file or folder name under the data root."""
        return self.archive or self.name


ITEMS = (
    Item("suite", "the bundled suite: 30 fusible tasks, 198 variants (passnet bench's default)"),
    Item("tasks", "the example task tasks/bert_add_layer_norm (BERT add + LayerNorm)"),
    Item(
        "passes",
        "the hand-written passes: add_layer_norm (hidden-128 add + LayerNorm), "
        "linear_activation (linear + bias + activation, any size)",
    ),
    Item("synth_passes", "the synthesizer's pass library for the suite (-c library:DIR)"),
    Item("heldout", "12 held-out tasks from six model families outside the suite"),
    Item(
        "graphnet_suite",
        "201 fusible tasks (789 variants) cut from the GraphNet corpus",
        archive="graphnet_suite.tgz",
    ),
    Item(
        "graphnet_train",
        "the training split beside graphnet_suite",
        archive="graphnet_train.tgz",
    ),
)
DEFAULT_GET = ("suite", "tasks", "passes", "synth_passes", "heldout")
"""What ``passnet data get`` writes when no name is given (the archives only when named)."""
_BY_NAME = {i.name: i for i in ITEMS}


def data_root() -> Path | None:
    """The folder that holds the bundled data: a checkout's ``examples/`` (beside
    ``pyproject.toml``), else the wheel's ``passnet/_data``; None when this install has
    neither."""
    if (CHECKOUT_EXAMPLES / "suite").is_dir() and (PACKAGE_DIR.parent / "pyproject.toml").is_file():
        return CHECKOUT_EXAMPLES
    if (WHEEL_DATA / "suite").is_dir():
        return WHEEL_DATA
    return None


def item(name: str) -> Item:
    """The bundled item ``name``; else a BundledError that lists the known names."""
    if name not in _BY_NAME:
        raise BundledError(f"no bundled data named {name!r}; known: {', '.join(_BY_NAME)}.")
    return _BY_NAME[name]


def bundled_path(rel: str | Path) -> Path | None:
    """``rel`` (e.g. ``suite`` or ``passes/add_layer_norm``) in the bundled data; None when
    this install has no such file or folder."""
    root = data_root()
    if root is None:
        return None
    path = root / rel
    return path if path.exists() else None


def default_suite() -> Path | None:
    """The suite ``passnet bench`` runs when none is given: ``./examples/suite`` where the
    working directory has one (a checkout, or ``passnet data get``), else the bundled one."""
    here = LOCAL / "suite"
    if here.is_dir():
        return here.resolve()
    return bundled_path("suite")


def missing_hint(path: Path | str) -> str:
    """For a file or folder that does not exist: a clause naming the ``passnet data get``
    that writes the bundled one there (``examples/suite``, ``/tmp/graphnet_suite``,
    ``examples/passes/add_layer_norm``, ...); "" when ``path`` names nothing bundled."""
    root = data_root()
    p = Path(path)
    if p.is_absolute() and Path.cwd() in p.parents:
        p = p.relative_to(Path.cwd())
    parts = p.parts
    if root is None or not parts:
        return ""
    for i, part in enumerate(parts):
        if part not in _BY_NAME:
            continue
        it, rest = _BY_NAME[part], parts[i + 1 :]
        if rest and (it.archive is not None or not (root / part).joinpath(*rest).exists()):
            continue
        out = Path(*parts[:i]) if i else Path(".")
        where = "" if out == LOCAL else f" --out {out}"
        return f" (`passnet data get {part}{where}` writes the bundled one there)"
    return ""


def get(name: str, out: Path = LOCAL, *, force: bool = False) -> tuple[Path, str]:
    """Write bundled item ``name`` to ``out/name`` (an archive unpacked there): (that folder,
    what happened: ``written``, ``replaced``, ``kept`` (it exists; ``force`` replaces it) or
    ``bundled`` (it is the bundled copy itself)). BundledError when this install has no
    bundled data or the folder cannot be written."""
    it = item(name)
    root = data_root()
    src = root / it.source if root is not None else None
    if src is None or not src.exists():
        raise BundledError(
            f"this passnet install has no bundled {it.source} (looked in {CHECKOUT_EXAMPLES} and "
            f"{WHEEL_DATA}); reinstall passnet from its wheel, or use a checkout's examples/."
        )
    dest = out / it.name
    if _same_or_nested(src, dest):
        return dest, "bundled"
    status = "written"
    if dest.exists() or dest.is_symlink():
        if not force:
            return dest, "kept"
        _remove(dest)
        status = "replaced"
    try:
        out.mkdir(parents=True, exist_ok=True)
        if it.archive is None:
            shutil.copytree(src, dest, ignore=_ignored)
        else:
            _unpack(src, out, it.name)
    except OSError as exc:
        raise BundledError(f"cannot write {dest}: {exc.strerror or exc}") from exc
    return dest, status


def size(name: str) -> int:
    """Bytes of bundled item ``name`` as shipped (an archive: the archive's)."""
    root = data_root()
    path = root / item(name).source if root is not None else None
    if path is None or not path.exists():
        return 0
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not _hidden(f, path))


def _hidden(f: Path, root: Path) -> bool:
    rel = f.relative_to(root)
    return any(p.startswith(".") or p == "__pycache__" for p in rel.parts) or f.suffix == ".pyc"


def _ignored(folder: str, names: list[str]) -> list[str]:
    """What neither the wheel nor a copy holds: caches, hidden files and the repository's lint
    configuration (``ruff.toml`` extends the repository's ``pyproject.toml``)."""
    del folder
    return [
        n
        for n in names
        if n.startswith(".") or n == "__pycache__" or n.endswith(".pyc") or n == "ruff.toml"
    ]


def _same_or_nested(a: Path, b: Path) -> bool:
    a, b = a.resolve(), b.resolve()
    return a == b or a in b.parents or b in a.parents


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def _unpack(archive: Path, out: Path, name: str) -> None:
    """Unpack ``archive`` (whose members all lie under ``name/``) into ``out``; a member
    outside ``name/``, a link or a device file is refused."""
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        for m in members:
            top = Path(m.name).parts[:1]
            if top != (name,) or ".." in Path(m.name).parts or not (m.isfile() or m.isdir()):
                raise BundledError(f"{archive}: unexpected member {m.name!r}; not unpacked")
        if hasattr(tarfile, "data_filter"):
            tar.extractall(out, members=members, filter="data")
        else:  # Python < 3.10.12 / 3.11.4: the members were checked above
            tar.extractall(out, members=members)


def describe_root() -> str:
    """Where the bundled data of this install is, in words."""
    root = data_root()
    if root is None:
        return "none: this passnet install has no bundled data"
    kind = "the checkout's examples/" if root == CHECKOUT_EXAMPLES else "the installed package"
    return f"{root} ({kind})"
