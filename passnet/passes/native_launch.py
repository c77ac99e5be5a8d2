"""Build and load ``native_launch.c``, the C hot path of :class:`passnet.passes.launch.CachedKernel`.

The module is plain CPython API (no torch or CUDA headers), compiled once per source, Python
version and platform with the C compiler Triton itself needs on a GPU host, and cached under
``~/.cache/passnet/native`` (``PASSNET_NATIVE_CACHE`` moves it). Where no compiler or no
Python headers exist, or ``PASSNET_NATIVE_LAUNCH=0``, :func:`load` returns None and says why
in :func:`status`: the launch path then keys and launches in Python, correct but slower.
Loading touches no device, so a fork server's zygote can load it before forking.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from types import ModuleType

__all__ = ["cache_dir", "load", "status"]

NAME = "_passnet_native_launch"
SOURCE = Path(__file__).with_name("native_launch.c")

_module: ModuleType | None = None
_status = "not loaded yet"
_tried = False


def cache_dir() -> Path:
    """Where built modules live: ``PASSNET_NATIVE_CACHE`` or ``~/.cache/passnet/native``."""
    setting = os.environ.get("PASSNET_NATIVE_CACHE")
    if setting:
        return Path(setting)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "passnet" / "native"


def _target() -> Path:
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    digest = hashlib.sha256(SOURCE.read_bytes())
    digest.update(f"{sys.version}|{sys.platform}|{suffix}".encode())
    return cache_dir() / digest.hexdigest()[:16] / f"{NAME}{suffix}"


def _compiler() -> str | None:
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return name
    return None


def _build(target: Path) -> None:
    """Compile into a temporary file beside ``target`` and rename it: concurrent builders
    (workers, zygotes) never load a half-written module."""
    cc = _compiler()
    if cc is None:
        raise RuntimeError("no C compiler (cc, gcc, clang; or $CC)")
    include = sysconfig.get_paths()["include"]
    if not Path(include, "Python.h").is_file():
        raise RuntimeError(f"no Python.h under {include}")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".build-", suffix=target.suffix)
    os.close(fd)
    try:
        cmd = [cc, "-O2", "-shared", "-fPIC", f"-I{include}", str(SOURCE), "-o", tmp]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.strip()[-600:]}")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def load() -> ModuleType | None:
    """The built module, initialised with torch's tensor type and stream getter; None where it
    cannot be built (see :func:`status`). Tries once per process."""
    global _module, _status, _tried
    if _tried:
        return _module
    _tried = True
    if os.environ.get("PASSNET_NATIVE_LAUNCH", "").strip().lower() in ("0", "off", "false", "no"):
        _status = "switched off (PASSNET_NATIVE_LAUNCH=0)"
        return None
    try:
        import torch

        target = _target()
        if not target.is_file():
            _build(target)
        spec = importlib.util.spec_from_file_location(NAME, target)
        if spec is None or spec.loader is None:
            raise RuntimeError(f"cannot load {target}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.init(torch.Tensor, getattr(torch._C, "_cuda_getCurrentRawStream", None))
    except (OSError, RuntimeError, ImportError, subprocess.SubprocessError) as exc:
        _status = f"unavailable: {exc}"
        return None
    _module, _status = module, f"loaded from {target}"
    return module


def status() -> str:
    """Whether the native hot path is in use, and why not."""
    return _status
