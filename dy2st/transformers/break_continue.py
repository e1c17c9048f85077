"""break / continue become flags that guard the rest of the loop body.

    while i < n:                     break_0 = False
        i += 1                       while not break_0 and i < n:
        if x.sum() > limit:    ->        i += 1
            break                        if x.sum() > limit:
        x = x + 1                            break_0 = True
                                         if not break_0:
                                             x = x + 1
A `for` loop records its break flag (anno BREAK_FLAG) for the loop pass; `else:` clauses run
when the flag is still False."""
from __future__ import annotations

from typing import Any, List, Type

import gast

from . import anno, templates
from .base import Transformer, copy_origin
from .context import PassContext
from .walk import child_nodes

_NESTED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef, gast.For,
           gast.While, gast.AsyncFor)


def _contains(node: gast.AST, kind: Type[gast.AST]) -> bool:
    if isinstance(node, kind):
        return True
    if isinstance(node, _NESTED):
        return False
    return any(_contains(c, kind) for c in child_nodes(node))


def _block_contains(stmts: List[gast.stmt], kind: Type[gast.AST]) -> bool:
    return any(_contains(s, kind) for s in stmts)


def _rewrite(stmts: List[gast.stmt], kind: Type[gast.AST], flag: str) -> List[gast.stmt]:
    out: List[gast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            new = templates.replace("flag = True", flag=flag)
            copy_origin(s, new)
            out.extend(new)
            return out
        if not _contains(s, kind):
            out.append(s)
            continue
        if isinstance(s, gast.If):
            s.body = _rewrite(s.body, kind, flag) or [gast.Pass()]
            s.orelse = _rewrite(s.orelse, kind, flag)
        elif isinstance(s, gast.With):
            s.body = _rewrite(s.body, kind, flag)
        elif isinstance(s, gast.Try):
            s.body = _rewrite(s.body, kind, flag)
            for h in s.handlers:
                h.body = _rewrite(h.body, kind, flag) or [gast.Pass()]
            s.orelse = _rewrite(s.orelse, kind, flag)
        out.append(s)
        rest = _rewrite(stmts[i + 1:], kind, flag)
        if rest:
            guard = templates.replace("if not flag:\n    rest", flag=flag, rest=rest)
            copy_origin(stmts[i + 1], guard)
            out.extend(guard)
        return out
    return out


class BreakContinueTransformer(Transformer):
    def _loop(self, node: Any) -> Any:
        self.generic_visit(node)
        has_break = _block_contains(node.body, gast.Break)
        has_continue = _block_contains(node.body, gast.Continue)
        before: List[gast.stmt] = []
        after: List[gast.stmt] = []
        if has_continue:
            flag = self.ctx.namer.new("continue")
            init = templates.replace("flag = False", flag=flag)
            copy_origin(node, init)
            node.body = init + _rewrite(node.body, gast.Continue, flag)
        if has_break:
            flag = self.ctx.namer.new("break")
            node.body = _rewrite(node.body, gast.Break, flag)
            before = templates.replace("flag = False", flag=flag)
            if isinstance(node, gast.While):
                node.test = templates.replace_expr("not flag and test", flag=flag, test=node.test)
            else:
                anno.setanno(node, anno.BREAK_FLAG, flag)
            if node.orelse:
                after = templates.replace("if not flag:\n    body", flag=flag, body=node.orelse)
        elif node.orelse:
            after = node.orelse
        node.orelse = []
        if not before and not after:
            return node
        copy_origin(node, before)
        return before + [node] + after

    visit_While = _loop
    visit_For = _loop


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return BreakContinueTransformer(ctx).visit(node)
