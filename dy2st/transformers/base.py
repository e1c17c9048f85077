"""Base class of the passes: whatever replaces a node inherits that node's origin."""
from __future__ import annotations

from typing import Any, List, Optional

import gast

from . import anno
from .context import PassContext
from .walk import all_nodes


def copy_origin(src: gast.AST, dst: Any) -> None:
    origin = anno.getanno(src, anno.ORIGIN)
    if origin is None:
        return
    nodes = dst if isinstance(dst, list) else [dst]
    for top in nodes:
        if not isinstance(top, gast.AST):
            continue
        for n in all_nodes(top):
            if not anno.hasanno(n, anno.ORIGIN):
                anno.setanno(n, anno.ORIGIN, origin)


class Transformer(gast.NodeTransformer):
    """A NodeTransformer that copies the origin of a replaced node onto its replacements."""

    def __init__(self, ctx: PassContext) -> None:
        self.ctx = ctx
        self.func_stack: List[gast.FunctionDef] = []

    def visit(self, node: gast.AST) -> Any:
        result = super().visit(node)
        if result is not node and result is not None:
            copy_origin(node, result)
        return result

    def visit_FunctionDef(self, node: gast.FunctionDef) -> Any:
        self.func_stack.append(node)
        try:
            self.generic_visit(node)
        finally:
            self.func_stack.pop()
        return node

    @property
    def current_function(self) -> Optional[gast.FunctionDef]:
        return self.func_stack[-1] if self.func_stack else None
