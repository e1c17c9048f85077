"""assert on tensors becomes a run-time check; the message is only built when needed.

    assert paddle.all(x >= 0), "msg"   ->   _jst.Assert(paddle.all(x >= 0), lambda: "msg")
"""
from __future__ import annotations

from typing import Any

import gast

from . import templates
from .base import Transformer
from .context import PassContext


class AssertTransformer(Transformer):
    def visit_Assert(self, node: gast.Assert) -> Any:
        self.generic_visit(node)
        if node.msg is None:
            return templates.replace("_jst.Assert(test)", test=node.test)
        return templates.replace("_jst.Assert(test, lambda: msg)", test=node.test, msg=node.msg)


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return AssertTransformer(ctx).visit(node)
