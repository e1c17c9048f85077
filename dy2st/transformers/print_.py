"""print(...) becomes _jst.Print(...): tensor values are printed every time the program runs.

    print("loss", y)   ->   _jst.Print("loss", y)
"""
from __future__ import annotations

import gast

from . import templates
from .context import PassContext
from .walk import all_nodes


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    # only a call's `func` changes, in place: a flat walk over the calls is enough
    for call in [n for n in all_nodes(node) if isinstance(n, gast.Call)]:
        if isinstance(call.func, gast.Name) and call.func.id == "print":
            call.func = templates.replace_expr("_jst.Print")
    return node
