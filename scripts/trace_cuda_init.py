"""Which Python call starts the CUDA driver's threads while a worker image is preloaded.

The fork server's zygote must stay single-threaded to be forked safely; on a GPU host the
Inductor zygote's image had a thread named ``cuda...`` (the driver's, started by ``cuInit``)
after ``import torch._inductor.compile_fx``, so Inductor workers fall back to a light zygote.
This imports the prelude (default ``torch``, known not to start the driver), then the target
modules under ``sys.setprofile``: after every Python return and C-function return it compares
the thread count (one ``stat`` of ``/proc/self/task``), and at the first new thread whose name
matches ``--name`` it prints that thread and the Python stack that was running (the innermost
frame is the caller of the native call that started it). Diagnosis only: no pass code, no
sandbox. Usage: python scripts/trace_cuda_init.py [--prelude torch] [--name cuda]
                [MODULE ...]   (default: torch._inductor.compile_fx; exit 1 if a match)
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from types import FrameType
from typing import Any

TASKS = "/proc/self/task"


def thread_names() -> dict[str, str]:
    """This process's native threads, id -> name."""
    names = {}
    for tid in os.listdir(TASKS):
        try:
            with open(f"{TASKS}/{tid}/comm") as f:
                names[tid] = f.read().strip()
        except OSError:
            pass
    return names


class Watch:
    """A profile function that catches the first new thread whose name starts with a prefix.

    A new thread still named like this process (a creator names it after starting it) is
    looked at again on the next events, up to ``RECHECKS`` of them."""

    RECHECKS = 1000

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.count = os.stat(TASKS).st_nlink
        self.known = thread_names()
        self.default = self.known.get(str(os.getpid()), "")
        self.pending: dict[str, int] = {}  # new thread, still unnamed -> checks left
        self.found: tuple[str, list[str]] | None = None
        self.others: list[str] = []

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:  # noqa: ANN401
        if event not in ("return", "c_return") or self.found:
            return
        count = os.stat(TASKS).st_nlink
        if count == self.count and not self.pending:
            return
        self.count = count
        names = thread_names()
        new = {t: n for t, n in names.items() if t not in self.known or t in self.pending}
        self.known = names
        for tid, name in new.items():
            if name.startswith(self.prefix):
                where = "after the C function" if event == "c_return" else "on return of"
                callee = getattr(arg, "__qualname__", repr(arg)) if event == "c_return" else ""
                stack = traceback.format_stack(frame)
                self.found = (f"thread {name!r} appeared {where} {callee}".rstrip(), stack)
                return
            left = self.pending.pop(tid, self.RECHECKS) - 1
            if name == self.default and left > 0:
                self.pending[tid] = left
            else:
                self.others.append(name)


def trace(modules: list[str], prelude: list[str], prefix: str) -> Watch:
    for name in prelude:
        importlib.import_module(name)
    watch = Watch(prefix)
    already = [n for n in watch.known.values() if n.startswith(prefix)]
    if already:
        raise SystemExit(f"the prelude already started {already}: trace it instead")
    sys.setprofile(watch)
    try:
        for name in modules:
            importlib.import_module(name)
    finally:
        sys.setprofile(None)
    return watch


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="*", default=["torch._inductor.compile_fx"])
    ap.add_argument("--prelude", action="append", help="imported untraced first [torch]")
    ap.add_argument("--name", default="cuda", help="prefix of the thread name to catch")
    args = ap.parse_args(argv)
    watch = trace(args.modules, args.prelude or ["torch"], args.name)
    if watch.others:
        print(f"other threads started meanwhile: {', '.join(watch.others)}")
    if watch.found is None:
        print(f"no thread named {args.name}* started while importing {', '.join(args.modules)}")
        return 0
    what, stack = watch.found
    print(what + ", under:")
    print("".join(stack[-25:]), end="")
    return 1


if __name__ == "__main__":
    sys.exit(main())
