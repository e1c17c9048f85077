"""Calls go through _jst.Call, which converts user functions, methods and Layers on the fly.

    y = helper(x)   ->   y = _jst.Call(helper)(x)
Calls of `_jst` helpers and of names that must see the caller's frame (super, locals, ...) are
left alone; a zero-argument `super()` gets its class and instance spelled out, because the call
may now sit inside a generated helper function."""
from __future__ import annotations

from typing import Optional

import gast

from . import templates
from .base import copy_origin
from .context import PassContext
from .walk import all_nodes

_FRAME_SENSITIVE = {"super", "locals", "globals", "vars", "eval", "exec", "dir"}
# Builtins that never run user code on tensors: wrapping them would only add noise. (`next`,
# `getattr`, `list`, `tuple`, `dict` and `iter` are wrapped: while a trace records, paths read
# off what they return are guarded, jit/guards/builtin_calls.py.)
_PLAIN_BUILTINS = {"isinstance", "issubclass", "setattr", "hasattr", "type", "print",
                   "slice", "set", "str", "repr", "id", "callable", "object"}


def _is_jst(node: gast.AST) -> bool:
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name) and node.id == "_jst"


def _wrap(call: gast.Call, self_name: Optional[str]) -> None:
    func = call.func
    if _is_jst(func):
        return
    if isinstance(func, gast.Name) and func.id in _PLAIN_BUILTINS:
        return
    if isinstance(func, gast.Name) and func.id in _FRAME_SENSITIVE:
        if func.id == "super" and not call.args and self_name:
            call.args = [templates.name("__class__"), templates.name(self_name)]
        return
    call.func = templates.replace_expr("_jst.Call(func)", func=func)
    copy_origin(call, call.func)


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    # Calls are rewritten in place (only their `func` changes), so a flat walk is enough.
    nodes = all_nodes(node, contexts=False)
    top = next((n for n in nodes if isinstance(n, gast.FunctionDef)), None)
    self_name = top.args.args[0].id if top is not None and top.args.args else None
    for call in [n for n in nodes if type(n) is gast.Call]:
        _wrap(call, self_name)
    return node
