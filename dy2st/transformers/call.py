"""Calls go through _jst.Call, which converts user functions, methods and Layers on the fly.

    y = helper(x)   ->   y = _jst.Call(helper)(x)
Calls of `_jst` helpers and of names that must see the caller's frame (super, locals, ...) are
left alone; a zero-argument `super()` gets its class and instance spelled out, because the call
may now sit inside a generated helper function."""
from __future__ import annotations

from typing import Any, Optional

import gast

from . import templates
from .base import Transformer

_FRAME_SENSITIVE = {"super", "locals", "globals", "vars", "eval", "exec", "dir"}
# Builtins that never run user code on tensors: wrapping them would only add noise.
_PLAIN_BUILTINS = {"isinstance", "issubclass", "getattr", "setattr", "hasattr", "type", "print",
                   "slice", "list", "tuple", "dict", "set", "str", "repr", "id", "iter", "next",
                   "callable", "object"}


def _is_jst(node: gast.AST) -> bool:
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name) and node.id == "_jst"


class CallTransformer(Transformer):
    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.self_name: Optional[str] = None

    def visit_FunctionDef(self, node: gast.FunctionDef) -> Any:
        if not self.func_stack and node.args.args:
            self.self_name = node.args.args[0].id
        return super().visit_FunctionDef(node)

    def visit_Call(self, node: gast.Call) -> Any:
        self.generic_visit(node)
        func = node.func
        if _is_jst(func):
            return node
        if isinstance(func, gast.Name) and func.id in _PLAIN_BUILTINS:
            return node
        if isinstance(func, gast.Name) and func.id in _FRAME_SENSITIVE:
            if func.id == "super" and not node.args and self.self_name:
                node.args = [templates.name("__class__"), templates.name(self.self_name)]
            return node
        node.func = templates.replace_expr("_jst.Call(func)", func=func)
        return node


def transform(node: gast.AST, ctx) -> gast.AST:
    return CallTransformer(ctx).visit(node)
