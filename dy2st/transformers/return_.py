"""Returns inside if / loops become a flag and a value, so every path ends at one return.

    if x.mean() < 0:                 return_flag_0 = False
        return -x                    return_value_0 = _jst.UndefinedVar('return_value_0')
    y = x + 1.0           ->         if x.mean() < 0:
    return y                             return_flag_0 = True
                                         return_value_0 = -x
                                     if not return_flag_0:
                                         y = x + 1.0
                                         return_flag_0 = True
                                         return_value_0 = y
                                     return _jst.ReturnValue(return_value_0)
A return inside a loop also breaks out of it (the break pass converts that break next)."""
from __future__ import annotations

from typing import Any, List

import gast

from . import templates
from .base import Transformer, copy_origin
from .context import PassContext
from .walk import all_statements, child_nodes

_NESTED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def _has_return(node: gast.AST) -> bool:
    if isinstance(node, gast.Return):
        return True
    if isinstance(node, _NESTED) or isinstance(node, gast.expr):
        return False      # only statements hold returns: expressions need no walk
    return any(_has_return(c) for c in child_nodes(node))


def _needs_rewrite(fn: gast.FunctionDef) -> bool:
    return any(not isinstance(s, gast.Return) and _has_return(s) for s in fn.body)


class _Rewriter:
    def __init__(self, flag: str, value: str) -> None:
        self.flag = flag
        self.value = value

    def block(self, stmts: List[gast.stmt], in_loop: bool) -> List[gast.stmt]:
        out: List[gast.stmt] = []
        for i, s in enumerate(stmts):
            if isinstance(s, gast.Return):
                value = s.value if s.value is not None else gast.Constant(value=None, kind=None)
                new = templates.replace("flag = True\nvalue = expr", flag=self.flag,
                                        value=self.value, expr=value)
                if in_loop:
                    new.append(gast.Break())
                copy_origin(s, new)
                out.extend(new)
                return out          # the rest of the block is dead code
            if not _has_return(s):
                out.append(s)
                continue
            self.compound(s, in_loop)
            out.append(s)
            if in_loop and isinstance(s, (gast.For, gast.While)):
                # A return in the inner loop only broke that loop; leave this one too.
                leave = templates.replace("if flag:\n    break", flag=self.flag)
                copy_origin(s, leave)
                out.extend(leave)
            rest = self.block(stmts[i + 1:], in_loop)
            if rest:
                guard = templates.replace("if not flag:\n    rest", flag=self.flag, rest=rest)
                copy_origin(stmts[i + 1], guard)
                out.extend(guard)
            return out
        return out

    def compound(self, s: gast.stmt, in_loop: bool) -> None:
        if isinstance(s, (gast.For, gast.While)):
            s.body = self.block(s.body, True)
            s.orelse = self.block(s.orelse, in_loop)
        elif isinstance(s, gast.If):
            s.body = self.block(s.body, in_loop) or [gast.Pass()]
            s.orelse = self.block(s.orelse, in_loop)
        elif isinstance(s, gast.With):
            s.body = self.block(s.body, in_loop)
        elif isinstance(s, gast.Try):
            s.body = self.block(s.body, in_loop)
            for h in s.handlers:
                h.body = self.block(h.body, in_loop) or [gast.Pass()]
            s.orelse = self.block(s.orelse, in_loop)
            s.finalbody = self.block(s.finalbody, in_loop)


class ReturnTransformer(Transformer):
    def visit_FunctionDef(self, node: gast.FunctionDef) -> Any:
        if not _needs_rewrite(node):
            return node
        flag = self.ctx.namer.new("return_flag")
        value = self.ctx.namer.new("return_value")
        head = templates.replace("flag = False\nvalue = _jst.UndefinedVar(value_name)", flag=flag,
                                 value=value, value_name=gast.Constant(value=value, kind=None))
        stmts = node.body
        if not _always_returns(stmts):
            # the end of the function returns None: made explicit, so that a tensor `if` whose
            # other path returns a tensor gives None on this path (eager's value), not the
            # unassigned return value's placeholder
            end = gast.Return(value=None)
            copy_origin(stmts[-1], [end])
            stmts = stmts + [end]
        body = _Rewriter(flag, value).block(stmts, False)
        tail = templates.replace("return _jst.ReturnValue(value)", value=value)
        copy_origin(node, head)
        copy_origin(node.body[-1], tail)
        node.body = _docstring(node.body) + head + _after_docstring(body) + tail
        return node


def _always_returns(stmts: List[gast.stmt]) -> bool:
    """Whether every path through the statements ends in a return or a raise: the last one is
    a return, a raise, an `if` both of whose branches always return, or a loop that no `break`
    of its own leaves and whose `else` always returns (`while ...: ... else: return v`; an end
    of the function after it, returning None, would be a path eager code never takes)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (gast.Return, gast.Raise)):
        return True
    if isinstance(last, gast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    if isinstance(last, (gast.For, gast.While)):
        return _always_returns(last.orelse) and not any(_breaks(s) for s in last.body)
    return False


def _breaks(node: gast.AST) -> bool:
    """Whether node holds a `break` of the loop around it (not of a loop or function inside)."""
    if isinstance(node, gast.Break):
        return True
    if isinstance(node, _NESTED + (gast.For, gast.While)) or isinstance(node, gast.expr):
        return isinstance(node, (gast.For, gast.While)) and any(_breaks(s) for s in node.orelse)
    return any(_breaks(c) for c in child_nodes(node))


def _docstring(body: List[gast.stmt]) -> List[gast.stmt]:
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) and \
            isinstance(body[0].value.value, str):
        return [body[0]]
    return []


def _after_docstring(body: List[gast.stmt]) -> List[gast.stmt]:
    return body[len(_docstring(body)):]


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    # Only function bodies change: visit each def, inner ones first, without walking expressions.
    rewriter = ReturnTransformer(ctx)
    for fn in reversed(_functions(node)):
        rewriter.visit_FunctionDef(fn)
    return node


def _functions(tree: gast.AST) -> List[gast.FunctionDef]:
    """The defs in tree, each before the defs inside it."""
    return [n for n in all_statements(tree) if type(n) is gast.FunctionDef]