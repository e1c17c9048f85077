"""print(...) becomes _jst.Print(...): tensor values are printed every time the program runs.

    print("loss", y)   ->   _jst.Print("loss", y)
"""
from __future__ import annotations

from typing import Any

import gast

from .context import PassContext
from . import templates
from .base import Transformer


class PrintTransformer(Transformer):
    def visit_Call(self, node: gast.Call) -> Any:
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id == "print":
            node.func = templates.replace_expr("_jst.Print")
        return node


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return PrintTransformer(ctx).visit(node)
