"""try statements with `except` clauses are marked, so that tensor-dependent control flow (and
a tensor `assert`) inside them is refused: a Python `except` could never catch an error raised
when the program runs. A try with only `finally` catches nothing: it is left as it is.

    try:                         with _jst.TryBlock(12):
        body            ->           try:
    except E: ...                        body
                                     except E: ...
"""
from __future__ import annotations

from typing import Any

import gast

from . import anno, templates
from .base import Transformer
from .context import PassContext


class TryTransformer(Transformer):
    def visit_Try(self, node: gast.Try) -> Any:
        self.generic_visit(node)
        if not node.handlers:
            return node
        origin = anno.getanno(node, anno.ORIGIN)
        line = gast.Constant(value=origin.line if origin else 0, kind=None)
        return templates.replace("with _jst.TryBlock(line):\n    stmt", line=line, stmt=[node])


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return TryTransformer(ctx).visit(node)
