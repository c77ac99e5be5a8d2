"""The compile caches workers use: one shared by baselines, one per pass for pass workers.

Baseline workers (eager, Inductor: no pass code) share Inductor's and Triton's caches and
Inductor's temp folder, so a variant reuses what another compiled; a worker that runs a pass
gets a Triton cache of its own pass's content, so a pass never reaches what a baseline or
another pass loads (docs/integrity.md). ``PASSNET_COMPILE_CACHE`` moves the shared cache or,
``off``, gives every worker a cold private one.
"""

from __future__ import annotations

import getpass
import os
import re
from pathlib import Path


def switched_off(value: str) -> bool:
    """Whether an environment setting says off (``off``, ``0``, ``no``, ``false``)."""
    return value.lower() in ("off", "0", "no", "false")


def compile_cache_dir() -> Path | None:
    """Inductor/Triton cache shared by baseline workers; None when ``PASSNET_COMPILE_CACHE``
    is ``off``. Without it every worker's private TMPDIR holds a cold cache and each Inductor
    variant rebuilds what it could reuse (what sharing saves: docs/workers.md)."""
    setting = os.environ.get("PASSNET_COMPILE_CACHE", "")
    if switched_off(setting):
        return None
    if setting:
        return Path(setting)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "passnet" / "compile"


def pass_cache_dir(content: str) -> Path | None:
    """The Triton cache of the workers that run the pass whose folder digest is ``content``:
    one folder per pass content, so the variants and re-evaluations of one pass share compiled
    kernels while no pass reaches another's (or a baseline's) cache. None when the compile
    cache is off (the worker then keeps a private cache in its TMPDIR)."""
    shared = compile_cache_dir()
    return None if shared is None else shared / "pass" / content[:24] / "triton"


def use_pass_cache(cache: str, tmpdir: str) -> None:
    """Point this pass worker's Triton at ``cache`` (or at its private TMPDIR) before any pass
    code runs: Triton reads ``TRITON_CACHE_DIR`` at each compile, and without it would use the
    user's ``~/.triton/cache``, which every pass worker would then share."""
    os.environ["TRITON_CACHE_DIR"] = cache or str(Path(tmpdir) / "triton-cache")


def share_compile_tmp(tmpdir: str) -> None:
    """Give a trusted worker's private TMPDIR the shared Inductor temp folder.

    Inductor keeps CPU precompiled headers (large, and seconds of g++ to build) under ``$TMPDIR/torchinductor_<user>``, not under TORCHINDUCTOR_CACHE_DIR, so a
    private TMPDIR rebuilt them for every CPU Inductor variant. The link makes baselines
    share them; pass workers never get it."""
    shared = compile_cache_dir()
    if shared is None:
        return
    try:  # named as Inductor's default_cache_dir names it
        user = re.sub(r'[\\/:*?"<>|]', "_", getpass.getuser())
    except (KeyError, OSError):
        user = f"uid_{os.getuid()}"
    try:
        target = shared / "tmp"
        target.mkdir(parents=True, exist_ok=True)
        os.symlink(target, Path(tmpdir) / f"torchinductor_{user}")
    except OSError:
        pass  # an unwritable cache: the worker builds its own headers, only slower
