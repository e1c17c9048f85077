"""while and for loops become _jst.While / _jst.For calls over a condition and a body function.

    while i < n:                      def while_cond_0():
        s = s + x                         return i < n
        i = i + 1             ->      def while_body_0():
                                          nonlocal i, s
                                          s = s + x
                                          i = i + 1
                                      ... get_args_0 / set_args_0 over (i, s) ...
                                      _jst.While(while_cond_0, while_body_0, get_args_0,
                                                 set_args_0, ('i', 's'))
    for k in range(n): body   ->      def for_body_0(__item): nonlocal ...; k = __item; body
                                      _jst.For(_jst.Range(n), for_body_0, get_args_0, set_args_0,
                                               (...), None)
Only loop-carried names (written in the body and read before being written there, in the
condition, or after the loop) are nonlocal; other names stay local to the body function."""
from __future__ import annotations

from typing import Any, List, Set

import gast

from . import analysis, anno, templates
from .base import copy_origin
from .context import PassContext
from .grown_lists import carried_attributes, grown_lists
from .ifelse import generated_helpers, mark_helpers
from .scope import ControlFlowTransformer, names_tuple
from .walk import all_nodes

_ITER_HELPERS = {"range": "Range", "enumerate": "Enumerate", "zip": "Zip",
                 "reversed": "Reversed"}


def _carried(node: Any, extra: Set[str]) -> Set[str]:
    written = analysis.written_names(node.body) - generated_helpers(node.body)
    if isinstance(node, gast.For):
        analysis.target_names(node.target, written)
    # a closure made in the body reads the function's variable when called (late binding)
    extra = extra | (written & analysis.closure_reads(node.body))
    live_out = anno.getanno(node, anno.LIVE_OUT)
    body_in = anno.getanno(node, anno.BODY_LIVE_IN)
    if live_out is None or body_in is None:
        return written | extra
    head = analysis.read_names(node.test) if isinstance(node, gast.While) else set()
    return (written & (set(live_out) | set(body_in) | head)) | extra


class LoopTransformer(ControlFlowTransformer):
    converts = (gast.For, gast.While)

    def visit_While(self, node: gast.While) -> Any:
        self.generic_visit(node)
        names = self.nonlocal_names(_carried(node, self.called_local_writes(node.body)))
        attrs = carried_attributes(node.body)
        cond_name = self.ctx.namer.new("while_cond")
        body_name = self.ctx.namer.new("while_body")
        cond_fn = templates.replace("def cond():\n    return test", cond=cond_name, test=node.test)
        body_fn = templates.replace("def body():\n    nonlocal names\n    stmts", body=body_name,
                                    names=names, stmts=node.body)
        get_name, set_name, accessors = self.get_set_helpers(names, attrs)
        call = templates.replace("_jst.While(cond, body, get_args, set_args, names)",
                                 cond=cond_name, body=body_name, get_args=get_name,
                                 set_args=set_name, names=names_tuple(names + attrs))
        _add_arrays(call, node.body, names, attrs)
        return mark_helpers(cond_fn + body_fn + accessors) + call

    def visit_For(self, node: gast.For) -> Any:
        self.generic_visit(node)
        if node.orelse:
            return node   # the break pass moved every else clause out; keep Python otherwise
        flag = anno.getanno(node, anno.BREAK_FLAG)
        extra = ({flag} if flag else set()) | self.called_local_writes(node.body)
        names = self.nonlocal_names(_carried(node, extra))
        attrs = carried_attributes(node.body)
        _index_by_target(node)
        body_name = self.ctx.namer.new("for_body")
        body_fn = templates.replace(
            "def body(item):\n    nonlocal names\n    target = item\n    stmts", body=body_name,
            item="__item", names=names, target=node.target, stmts=node.body)
        get_name, set_name, accessors = self.get_set_helpers(names, attrs)
        extra = (templates.replace_expr("lambda: _jst.Not(flag)", flag=flag) if flag
                 else gast.Constant(value=None, kind=None))
        call = templates.replace("_jst.For(iterable, body, get_args, set_args, names, extra)",
                                 iterable=_iter_expr(node.iter), body=body_name,
                                 get_args=get_name, set_args=set_name,
                                 names=names_tuple(names + attrs), extra=extra)
        _add_arrays(call, node.body, names, attrs)
        return mark_helpers(body_fn + accessors) + call


class _TargetIndexing(gast.NodeTransformer):
    """`seq[i]` with the loop variable i in the index -> `_jst.GetItem(seq, i)`: when the loop
    becomes a tensor loop, i is symbolic, and a Python list cannot be indexed by it."""

    def __init__(self, targets: Set[str]) -> None:
        self.targets = targets

    def visit_Subscript(self, node: gast.Subscript) -> Any:
        self.generic_visit(node)
        if _indexed_by(node, self.targets):
            new = templates.replace_expr("_jst.GetItem(seq, index)", seq=node.value,
                                         index=node.slice)
            copy_origin(node, new)
            return new
        return node

    def visit_FunctionDef(self, node: gast.FunctionDef) -> Any:
        return node                      # another scope: its names are not the loop's


def _indexed_by(node: gast.AST, targets: Set[str]) -> bool:
    """Whether node reads `seq[index]` with a loop target in the index. A list takes one index:
    tuples and slices are tensor indexing, left as they are."""
    return type(node) is gast.Subscript and type(node.ctx) is gast.Load and \
        type(node.slice) not in (gast.Slice, gast.Tuple) and \
        any(type(n) is gast.Name and n.id in targets for n in all_nodes(node.slice))


def _index_by_target(node: gast.For) -> None:
    targets: Set[str] = set()
    analysis.target_names(node.target, targets)
    if not any(_indexed_by(n, targets) for s in node.body for n in all_nodes(s, contexts=False)):
        return                           # nothing to rewrite: spare the transformer's visit
    node.body = [_TargetIndexing(targets).visit(s) for s in node.body]


def _add_arrays(call: List[gast.stmt], body: List[gast.stmt], names: List[str],
                attrs: List[str]) -> None:
    """`arrays=(...)`: the lists the body grows or shrinks that the loop carries, as loop
    variables (`acc`), their entries (`d['acc']`) or attributes (`self.acc`): tensor arrays in a
    tensor loop; left out when there are none."""
    carried = set(names) | set(attrs)
    grown = [n for n in grown_lists(body) if n.split("[", 1)[0] in carried]
    if grown:
        call[0].value.keywords.append(gast.keyword(arg="arrays", value=names_tuple(grown)))


def _iter_expr(node: gast.expr) -> gast.expr:
    """range / enumerate / zip in a loop header (nested ones too) accept tensors."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id in _ITER_HELPERS:
        node.func = templates.replace_expr(f"_jst.{_ITER_HELPERS[node.func.id]}")
        node.args = [_iter_expr(a) for a in node.args]
    return node


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return LoopTransformer(ctx).visit(node)
