"""The write rule of the static integrity policy: where a pass may change an object.

State that outlives a call is what stale-output caches and call counters are made of. So a
write (subscript or attribute store, ``del``, augmented assignment, a mutating method such as
``append``/``update``/``setdefault``) is legal only through a local name that every binding in
its function sets to a *fresh* object (``policy_bindings``): a literal or comprehension,
``list()``/``dict()``/``set()``, or a torch allocation. Such an object is new on every call, so
what is written into it dies with the call unless it is returned. The one exception is
``self.x = v`` in a class's own ``__init__``: construction, which never reaches an existing
object (``__init__`` is not reachable as an attribute but as ``super().__init__`` there).
A refused write is ``monkey-patch`` into an import's object, ``mutable-cache`` into state that
outlives the call (a module or closure name, a default, a local bound from one) and ``write``
through anything else (a parameter, a call's result).
"""

from __future__ import annotations

import ast
from collections.abc import Collection

from passnet.integrity.policy_bindings import FRESH, VALUE, fresh, write_root
from passnet.integrity.policy_scope import CHECKED, Resolver, self_name


class WriteChecks(Resolver):
    """The write rule, mixed into ``policy._Checker``."""

    def on_Subscript(self, node: ast.Subscript) -> None:
        if not isinstance(node.ctx, ast.Load):
            self.check_write(node.value, node)

    def on_AugAssign(self, node: ast.AugAssign) -> None:
        """``n += v`` updates a list, set, dict or tensor in place: only a fresh object or a
        number may be updated so; ``d[k] += v`` only inside a fresh tensor."""
        target = node.target
        if self.region not in CHECKED:
            return
        if isinstance(target, ast.Name) and not fresh(
            self.stack[-1].kinds, target.id, FRESH | {VALUE}
        ):
            self.report(
                "write",
                node,
                f"augmented assignment to {target.id}",
                "it may update a "
                f"shared object in place: write {target.id} = {target.id} <op> value",
            )
        elif (
            isinstance(target, ast.Subscript)
            and self.fresh_name(target.value)
            and not self.fresh_name(target.value, {"tensor"})
        ):  # elsewhere check_write reports
            self.report(
                "write",
                node,
                f"augmented assignment into {ast.unparse(target)}",
                "it may update a shared element in place: write d[k] = d[k] <op> value",
            )

    def fresh_name(self, obj: ast.AST, only: Collection[str] = FRESH) -> bool:
        return (
            isinstance(obj, ast.Name)
            and self.local(obj.id)
            and fresh(self.stack[-1].kinds, obj.id, frozenset(only))
        )

    def write_rule(self, obj: ast.AST) -> str:
        """The rule a write through ``obj`` breaks: into an import's object (monkey-patch),
        into state that outlives the call (mutable-cache) or through anything else (write)."""
        root = write_root(obj)
        if qual := self.qual(root):  # the folder's own module: its state outlives calls
            return "mutable-cache" if self.folder.split(qual) else "monkey-patch"
        return "mutable-cache" if isinstance(root, ast.Name) and self.outlives(root) else "write"

    def outlives(self, name: ast.Name, depth: int = 0) -> bool:
        """``name`` may hold an object that outlives the call: a name of an enclosing scope, a
        parameter with a non-literal default, or a local bound from one (``m = _MEMO``,
        ``slot = _plan[k]``, ``t = _STORE.table``)."""
        if not self.local(name.id):
            return not self.builtin(name)
        scope = self.stack[-1]
        if name.id in scope.kept:
            return True
        roots = [write_root(v, calls=True) for v in scope.values.get(name.id, []) if v]
        return depth < 4 and any(
            isinstance(r, ast.Name)
            and r.id != name.id
            and not self.qual(r)
            and self.outlives(r, depth + 1)
            for r in roots
        )

    def check_write(self, obj: ast.AST, node: ast.AST) -> None:
        """A store or ``del`` into ``obj`` (``obj[k] = v``, ``obj.x = v``)."""
        if self.region == "triton":
            return
        if self.region == "pattern":  # the reference's own rule: judged by the root name only
            root = write_root(obj)
            if isinstance(root, ast.Name) and (self.qual(root) or not self.local(root.id)):
                self.report(self.write_rule(root), node, f"writes into {root.id}")
            return
        attribute = isinstance(node, ast.Attribute)
        if self.init_self(obj, node) or not attribute and self.fresh_name(obj):
            return
        if attribute and self.fresh_name(obj):  # a tensor's .data, .grad, .__class__, ...
            self.report(
                "write",
                node,
                f"sets {ast.unparse(node)}",
                "attributes are set only as self.x = ... in a class's own __init__",
            )
            return
        self.report(
            rule := self.write_rule(obj),
            node,
            f"writes through {ast.unparse(obj)}",
            ""
            if rule != "write"
            else f"{ast.unparse(obj)} is not bound in this "
            "function to a fresh object (literal, comprehension, list()/dict()/set(), "
            "torch allocation)",
        )

    def init_self(self, obj: ast.AST, node: ast.AST) -> bool:
        """``self.x = v`` in a class's ``__init__``: construction, so no state across calls
        (``__init__`` is never reachable on an existing object, see ``on_Attribute``)."""
        stmt = self.parents.get(node)
        while isinstance(stmt, ast.Tuple):
            stmt = self.parents.get(stmt)
        return (
            isinstance(node, ast.Attribute)
            and isinstance(stmt, (ast.Assign, ast.AnnAssign))
            and bool(self.fns)
            and isinstance(obj, ast.Name)
            and obj.id == self_name(self.fns[-1], self.parents)
        )
