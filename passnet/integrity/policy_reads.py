"""The read rules of the static integrity policy: which names and attributes a pass may use.

Dotted names of imports are judged against ``policy_allow`` (and ``policy_rules`` for the rule
name); an attribute of anything else (a tensor, a kernel object, a plan, a frame) must be on
the attribute allow-list: tensor metadata and the methods of ``METHOD_ALLOW``, dtype, device and
finfo fields, read-only str/tuple/dict methods, and the members of the folder's own classes.
Bare names must be bound in the file or be allowed builtins. ``pattern`` keeps only the deny
rules, and ``@triton.jit`` bodies skip the attribute and builtin lists (device code).
"""

from __future__ import annotations

import ast
import builtins

from passnet.integrity.policy_allow import (
    BUILTIN_ALLOW,
    DUNDER_OK,
    FRAME_ATTRS,
    HARNESS_ATTRS,
    INFO_FIELDS,
    MUTATORS,
    PATTERN_FUNCS,
    READ_METHODS,
    VALUE_ATTRS,
    allowed,
    importable,
)
from passnet.integrity.policy_bindings import CONTAINER, DEVICE, INFO, stored_iterator
from passnet.integrity.policy_rules import BUILTINS, IDENTITY, lookup
from passnet.integrity.policy_scope import (
    CHECKED,
    DEFS,
    dunder,
    literal_getattr,
    self_name,
    tensor_methods,
)
from passnet.integrity.policy_writes import WriteChecks

#: Names that exist without being bound in the file (others are a NameError, not a hole).
RUNTIME = frozenset(dir(builtins)) | {
    "__file__",
    "__loader__",
    "__spec__",
    "__package__",
    "__cached__",
    "__builtins__",
    "__annotations__",
    "__path__",
}
#: Refused builtins that ``pattern`` and ``@triton.jit`` bodies may still name (their rules
#: predate the allow-list).
_LOOSE = frozenset({"hash", "hasattr", "dir", "type"})
_INTERNALS = (
    "reads interpreter state (frames, tracebacks) or the harness's kernel and plan internals"
)


class ReadChecks(WriteChecks):
    """Names, attributes, calls and iterators; mixed into ``policy._Checker``."""

    def super_init(self, node: ast.Attribute) -> bool:
        """``super().__init__`` directly in a class's ``__init__``: runs on the new object."""
        call = node.value
        return (
            node.attr == "__init__"
            and isinstance(call, ast.Call)
            and not call.args
            and not call.keywords
            and self.builtin(call.func) == "super"
            and bool(self.fns)
            and self_name(self.fns[-1], self.parents) is not None
        )

    def on_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if dunder(attr) and attr not in DUNDER_OK and not self.super_init(node):
            self.report("reflection", node, attr)
        if not isinstance(node.ctx, ast.Load):
            self.check_write(node.value, node)
            return
        if attr in FRAME_ATTRS:
            self.report("reflection", node, f".{attr}", _INTERNALS)
        if attr in PATTERN_FUNCS:
            self.report("pattern-reuse", node, f"uses {attr}")
        if self.qual(node) is not None:
            owner = self.qual(node.value) or ""
            if (
                attr in MUTATORS
                and not self.is_module(owner)
                and owner.split(".")[0] not in {"torch", "triton"}
            ):  # torch.add is no write
                rule = "mutable-cache" if self.folder.split(owner) else "monkey-patch"
                self.report(rule, node, f"{attr}() writes into {owner}")
            self.check_chain(node)
        elif self.region in CHECKED:
            self.check_value_attr(node)

    def check_value_attr(self, node: ast.Attribute) -> None:
        """``value.attr`` on anything but an import: the attribute allow-list, and mutating
        methods only on a fresh local."""
        attr, base = node.attr, node.value
        if attr in MUTATORS and not self.fresh_name(target := self.mutated(node)):
            self.report(
                rule := self.write_rule(target),
                node,
                f".{attr}() writes through {ast.unparse(target)}",
                ""
                if rule != "write"
                else "mutating methods "
                "only on a local bound in this function to a fresh list, dict or set",
            )
            if attr not in tensor_methods():
                return
        if (
            attr in VALUE_ATTRS
            or attr in self.folder.members
            or dunder(attr)
            and (attr in DUNDER_OK or self.super_init(node))
            or self.fresh_name(base, {CONTAINER})
            and (attr in MUTATORS | READ_METHODS)
            or attr in INFO_FIELDS
            and self.base_kind(base, INFO, {"torch.finfo", "torch.iinfo"})
            or attr == "type"
            and self.base_kind(base, DEVICE, {"torch.device"})
        ):
            return
        if attr in IDENTITY:
            self.report("identity", node, f".{attr}")
        elif attr in tensor_methods():
            rule = "args-compute" if self.region == "args" else "tensor-method"
            self.report(rule, node, f".{attr}")
        elif attr in HARNESS_ATTRS:
            self.report("reflection", node, f".{attr}", _INTERNALS)
        elif not dunder(attr) and attr not in FRAME_ATTRS:  # those were reported above
            self.report("attribute", node, f".{attr} is not on the attribute allow-list")

    def mutated(self, node: ast.Attribute) -> ast.AST:
        """The object ``node``'s mutating method changes: its base, or for an unbound method
        (``dict.update(d, ...)``, ``type(d).update(d, ...)``) the call's first argument."""
        base, call = node.value, self.parents.get(node)
        unbound = (
            self.builtin(base) in BUILTIN_ALLOW
            or isinstance(base, ast.Call)
            and (self.builtin(base.func) == "type")
        )
        if unbound and isinstance(call, ast.Call) and call.func is node and call.args:
            return call.args[0]
        return base

    def base_kind(self, base: ast.AST, kind: str, calls: set[str]) -> bool:
        """``base`` is a finfo/iinfo (``INFO``) or a device (``DEVICE``): a call that makes
        one, a tensor's ``.device``, or a name every binding of which is one."""
        if isinstance(base, ast.Call):
            return self.qual(base.func) in calls
        if isinstance(base, ast.Attribute):
            return kind == DEVICE and base.attr == "device"
        return isinstance(base, ast.Name) and self.kinds(base.id) == {kind}

    def on_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.MatMult) and self.region in CHECKED:
            rule = "args-compute" if self.region == "args" else "tensor-method"
            self.report(rule, node, "the @ operator")  # only tensors/arrays implement `@`

    def on_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            return
        if node.id in PATTERN_FUNCS:
            self.report("pattern-reuse", node, f"uses {node.id}")
        if name := self.builtin(node):
            if name in BUILTINS and (self.region in CHECKED or name not in _LOOSE):
                self.report(BUILTINS[name], node, f"{name}")
            elif name in RUNTIME and name not in BUILTIN_ALLOW and self.region in CHECKED:
                self.report("builtin", node, f"{name} is not a builtin a pass may use")
        self.check_chain(node)

    def on_Call(self, node: ast.Call) -> None:
        if literal_getattr(node) and self.qual(node.args[0]):
            self.check_chain(node)
        if (
            self.builtin(node.func) in {"setattr", "delattr"}
            and node.args
            and self.qual(node.args[0])
        ):
            self.report("monkey-patch", node, f"{self.builtin(node.func)}() on an import")
        self.check_iterator(node)

    def check_iterator(self, node: ast.AST) -> None:
        if self.region in CHECKED and stored_iterator(
            node, self.parents, self.imported, self.builtin
        ):
            self.report(
                "mutable-cache",
                node,
                "iterator kept past the expression that made it",
                "an iterator carries its position across calls: consume it where it is "
                "made (for loop, comprehension, list()/tuple()/sorted()/...)",
            )

    on_GeneratorExp = check_iterator

    def imported(self, func: ast.AST) -> bool:
        """A call to an allowed import's function (not one of the folder's own)."""
        qual = self.qual(func)
        return qual is not None and self.folder.split(qual) is None

    def on_Yield(self, node: ast.Yield | ast.YieldFrom) -> None:
        if self.region in CHECKED:
            self.report(
                "mutable-cache",
                node,
                "generator",
                "a generator keeps its frame and "
                "position across calls: return a list or tuple instead",
            )

    on_YieldFrom = on_Yield

    def alias_assign(self, node: ast.AST) -> bool:
        """``T = torch`` in a function or module body: an alias the scopes resolve."""
        stmt = self.parents.get(node)
        if not (
            isinstance(stmt, ast.Assign)
            and stmt.value is node
            and all(isinstance(t, ast.Name) for t in stmt.targets)
        ):
            return False
        owner = self.parents.get(stmt)
        while owner is not None and not isinstance(owner, (*DEFS, ast.Lambda, ast.Module)):
            owner = self.parents.get(owner)
        return not isinstance(owner, ast.ClassDef)

    def check_chain(self, node: ast.AST) -> None:
        """Judge the outermost dotted reference (``torch.cuda.Stream``, not ``torch.cuda``)."""
        parent = self.parents.get(node)
        if isinstance(parent, ast.Attribute) or (
            isinstance(parent, ast.Call) and literal_getattr(parent) and parent.args[0] is node
        ):
            return
        qual = self.qual(node)
        if qual is None or not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            return
        called = isinstance(parent, ast.Call) and parent.func is node
        hit = lookup(qual)
        if self.is_module(qual) and not called:
            if not self.alias_assign(node):
                self.report("reflection", node, f"module {qual} passed around as a value")
        elif self.region == "pattern":  # the reference code: any torch API, no global state
            if hit and hit[0] == "monkey-patch":
                self.report(hit[0], node, qual, hit[1])
        elif hit:
            self.report(hit[0], node, qual, hit[1])
        elif (
            self.folder.split(qual) is None
            and importable(qual.split(".")[0])
            and not allowed(qual, called)
        ):
            what = f"{'call to' if called else 'reference to'} {qual}"
            if qual.startswith("torch."):
                self.report("args-compute" if self.region == "args" else "torch-call", node, what)
            else:
                self.report("forbidden-import", node, what, f"{qual} is not on the allow-list")
