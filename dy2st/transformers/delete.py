"""`del name` becomes an UndefinedVar binding, so a deleted name can flow through converted
branches and loops and still fail clearly when it is used afterwards.

    del tmp   ->   tmp = _jst.UndefinedVar('tmp')
"""
from __future__ import annotations

from typing import Any, List

import gast

from . import templates
from .base import Transformer
from .context import PassContext


class DeleteTransformer(Transformer):
    def visit_Delete(self, node: gast.Delete) -> Any:
        out: List[gast.stmt] = []
        rest = []
        for t in node.targets:
            if isinstance(t, gast.Name):
                out += templates.replace("name = _jst.UndefinedVar(text)", name=t.id,
                                         text=gast.Constant(value=t.id, kind=None))
            else:
                rest.append(t)
        if rest:
            out.append(gast.Delete(targets=rest))
        return out


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return DeleteTransformer(ctx).visit(node)
