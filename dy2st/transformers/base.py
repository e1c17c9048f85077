"""Base class of the passes: whatever replaces a node inherits that node's origin."""
from __future__ import annotations

from typing import Any, List, Optional

import gast

from . import anno
from .context import PassContext
from .walk import CHILD_FIELDS, child_fields, child_nodes

_AST = gast.AST


def copy_origin(src: gast.AST, dst: Any) -> None:
    """src's origin onto the new nodes of dst (a node or a list). A node that has an origin
    keeps it, and so does everything below it: what has none there takes that node's when the
    code is compiled (gast_bridge.gast_to_ast), so the walk stops at it."""
    origin = anno.getanno(src, anno.ORIGIN)
    if origin is None:
        return
    stack = [n for n in (dst if isinstance(dst, list) else [dst]) if isinstance(n, gast.AST)]
    while stack:
        n = stack.pop()
        if anno.hasanno(n, anno.ORIGIN) or isinstance(n, gast.expr_context):
            continue
        anno.setanno(n, anno.ORIGIN, origin)
        if type(n) is gast.Name:      # its children: ctx (skipped) and a parameter's annotation
            if n.annotation is not None:
                stack.append(n.annotation)
        else:
            stack.extend(child_nodes(n))


class Transformer(gast.NodeTransformer):
    """A NodeTransformer that copies the origin of a replaced node onto its replacements.

    visit and generic_visit do what ast.NodeTransformer's do, in the same order, at a fraction
    of the cost (the visitor of a node class is looked up once per pass class; fields are read
    from the node's __dict__): every function's first conversion walks its tree many times."""

    def __init__(self, ctx: PassContext) -> None:
        self.ctx = ctx
        self.func_stack: List[gast.FunctionDef] = []

    def visit(self, node: gast.AST) -> Any:
        cls = type(self)
        visitors = cls.__dict__.get("_visitors")
        if visitors is None:
            visitors = {}
            cls._visitors = visitors
        visitor = visitors.get(type(node))
        if visitor is None:
            visitor = getattr(cls, "visit_" + type(node).__name__, cls.generic_visit)
            visitors[type(node)] = visitor
        result = visitor(self, node)
        if result is not node and result is not None:
            copy_origin(node, result)
        return result

    def generic_visit(self, node: gast.AST) -> gast.AST:
        fields = node.__dict__
        names = CHILD_FIELDS.get(node.__class__)
        for field in names if names is not None else child_fields(node.__class__):
            old_value = fields.get(field)
            if type(old_value) is list:
                new_values = []
                for value in old_value:
                    if isinstance(value, _AST):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, _AST):
                            new_values.extend(value)
                            continue
                    new_values.append(value)
                old_value[:] = new_values
            elif isinstance(old_value, _AST):
                new_node = self.visit(old_value)
                if new_node is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new_node)
        return node

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
