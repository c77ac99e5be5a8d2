"""Whether memory an in-place op writes is private: followed back through views and in-place
ops to the op that allocated it, nothing else reads it and it is no input of the region.

Both the synthesizer (an in-place activation it computes out of place) and the matcher (an
``inplace=True`` literal it may set aside) ask this of an FX graph; each says how one node
relates to its input (``Link``) and phrases the answer for its users.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from torch.fx import Node

Link = Callable[[Node], "Node | Literal['fresh'] | None"]
"""For a node inside the region: ``"fresh"`` when its result is newly allocated memory, the
node whose memory it shares (its base: a view's or in-place op's input), or None when that
cannot be told."""


@dataclass(frozen=True)
class SharedWrite:
    """Why a write is not private: ``kind`` is ``literal`` (the chain reaches a constant),
    ``input`` (a value made outside the region), ``read`` (``node`` also feeds ``other``) or
    ``unknown`` (``node`` may share memory in a way ``Link`` cannot tell)."""

    kind: str
    node: Any
    other: Node | None = None


def shared_write(
    writer: Node, first: Any, inside: Callable[[Node], bool], link: Link
) -> SharedWrite | None:
    """None when the memory ``writer`` writes, reached as its argument ``first``, is private
    to the region ``inside``; else why not."""
    user, v = writer, first
    while True:
        if not isinstance(v, Node):
            return SharedWrite("literal", v)
        if not inside(v):
            return SharedWrite("input", v)
        if len(v.users) != 1:
            return SharedWrite("read", v, next(u for u in v.users if u is not user))
        base = link(v)
        if base == "fresh":
            return None
        if base is None:
            return SharedWrite("unknown", v)
        user, v = v, base
