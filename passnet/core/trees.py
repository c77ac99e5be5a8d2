"""Nested outputs (tuples, lists, dicts of tensors) as flat lists: one rule for every layer."""

from __future__ import annotations

from typing import Any


def leaves(obj: Any) -> list[Any]:
    """Every leaf of nested tuples, lists and dicts (dict values in insertion order)."""
    if isinstance(obj, (tuple, list)):
        return [x for item in obj for x in leaves(item)]
    if isinstance(obj, dict):
        return [x for item in obj.values() for x in leaves(item)]
    return [obj]


def dict_keys(obj: Any) -> list[tuple]:
    """The key sets of every dict in ``obj``, in traversal order (the part of its structure
    that ``leaves`` drops)."""
    if isinstance(obj, (tuple, list)):
        return [k for item in obj for k in dict_keys(item)]
    if isinstance(obj, dict):
        return [tuple(obj), *(k for item in obj.values() for k in dict_keys(item))]
    return []
