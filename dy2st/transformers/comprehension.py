"""A list comprehension over one iterable becomes _jst.ListComp, which loops in Python over
Python values and tensors of known length, and builds a tensor array when the length is only
known at run time (rows of a tensor with an unknown batch dim).

    [r * 2.0 for r in x]   ->   _jst.ListComp(lambda r: r * 2.0, x)
"""
from __future__ import annotations

from typing import Any

import gast

from . import anno, templates
from .analysis import closure_reads
from .base import Transformer
from .comprehension_walrus import assigns
from .context import PassContext


class ComprehensionTransformer(Transformer):
    def visit_ListComp(self, node: gast.ListComp) -> Any:
        self.generic_visit(node)
        if len(node.generators) != 1:
            return node
        gen = node.generators[0]
        if gen.ifs or gen.is_async or not isinstance(gen.target, gast.Name):
            return node        # filters and unpacking stay Python comprehensions
        if gen.target.id in closure_reads([node.elt]):
            return node        # closures made here share the one loop variable (late binding)
        if assigns(node.elt):
            return node        # `:=` binds the function's name (one the walrus pass left here)
        call = templates.replace_expr("_jst.ListComp(lambda target: elt, iterable)",
                                      target=gen.target.id, elt=node.elt, iterable=gen.iter)
        anno.setanno(call.args[0], anno.SKIP, True)     # a helper, not a user closure
        return call


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return ComprehensionTransformer(ctx).visit(node)
