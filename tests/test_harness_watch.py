"""The harness's callables as a pass found them (passnet.integrity.harness_watch): every
change a pass can make to a watched callable is named, and undone it is clean again."""

from __future__ import annotations

import types

import pytest
import torch

from passnet.integrity.harness_watch import HarnessWatch


def _module() -> types.ModuleType:
    mod = types.ModuleType("watched_for_test")

    def timer() -> int:
        return 1

    def other() -> int:
        return 2

    mod.timer, mod.other, mod.constant = timer, other, 3
    return mod


class Owner:
    def method(self) -> int:
        return 1

    @staticmethod
    def helper() -> int:
        return 2


def test_every_change_is_seen_and_undone_is_clean() -> None:
    """Replaced, removed, code swapped, a class member patched: each is named; put back, the
    watch is clean again. Constants are not watched."""
    mod = _module()
    watch = HarnessWatch([mod, Owner])
    assert {key for _, key, _, _ in watch.entries} == {"timer", "other", "method", "helper"}
    assert watch.changed() == []
    original = mod.timer
    mod.timer = lambda: 0
    assert watch.changed() == ["watched_for_test.timer"]
    mod.timer = original
    assert watch.changed() == []
    code = original.__code__
    original.__code__ = mod.other.__code__  # same object, other code
    assert watch.changed() == ["watched_for_test.timer"]
    original.__code__ = code
    assert watch.changed() == []
    del mod.other
    assert watch.changed() == ["watched_for_test.other"]
    mod.other = lambda: 2  # back under its name, but another function
    assert watch.changed() == ["watched_for_test.other"]
    method = Owner.method
    Owner.method = lambda self: 0  # type: ignore[method-assign]
    try:
        assert watch.changed() == ["watched_for_test.other", "Owner.method"]
    finally:
        Owner.method = method  # type: ignore[method-assign]
    mod.constant = 4  # not a callable: not watched
    assert watch.changed() == ["watched_for_test.other"]


def test_torch_rewrapping_is_clean_and_a_patch_over_it_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    watch = HarnessWatch([torch])
    assert watch.changed() == []
    monkeypatch.setattr(torch, "manual_seed", torch._disable_dynamo(torch.manual_seed))
    assert watch.changed() == []  # what importing Dynamo does to torch.manual_seed
    monkeypatch.setattr(torch, "manual_seed", lambda seed: None)
    assert watch.changed() == ["torch.manual_seed"]


def test_with_the_audit_hooks_record_code_swaps_come_from_it() -> None:
    """Given the hook's record of code writes (ids), the watch reads no code: a function in the
    record is named, whatever its code is now; replacements are still seen by identity."""
    mod = _module()
    swaps: set[int] = set()
    watch = HarnessWatch([mod, Owner], code_swaps=swaps)
    assert watch.changed() == []
    swaps.add(id(mod.timer))  # the hook saw ``timer.__code__ = ...`` (even if undone since)
    assert watch.changed() == ["watched_for_test.timer"]
    swaps.clear()
    swaps.add(id(object()))  # a code write elsewhere: nothing watched changed
    assert watch.changed() == []
    original = mod.other
    mod.other = lambda: 2
    assert watch.changed() == ["watched_for_test.other"]
    mod.other = original
    swaps.clear()
    Owner.helper = staticmethod(lambda: 3)  # type: ignore[method-assign]
    try:
        assert watch.changed() == ["Owner.helper"]
    finally:
        del Owner.helper
    assert watch.changed() == ["Owner.helper"]  # removed
