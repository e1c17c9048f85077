"""if / else and conditional expressions become _jst.IfElse calls over branch functions.

    if x.mean() > 0:                  def true_fn_0():
        y = x * 2                         nonlocal y
    else:                      ->         y = x * 2
        y = 1.5 - x                   def false_fn_0():
                                          nonlocal y
                                          y = 1.5 - x
                                      def get_args_0(): ...      # reads (y,)
                                      def set_args_0(__args): ...  # writes (y,)
                                      _jst.IfElse(x.mean() > 0, true_fn_0, false_fn_0,
                                                  get_args_0, set_args_0, ('y',), (0,))
The last argument lists which names are live afterwards (the branch outputs); the other written
names are restored between the branches but not merged.  `a if c else b` becomes
`_jst.IfElseExpr(c, lambda: a, lambda: b)`."""
from __future__ import annotations

from typing import Any, List

import gast

from . import analysis, anno, templates
from .context import PassContext
from .grown_lists import carried_attributes
from .scope import ControlFlowTransformer, int_tuple, names_tuple
from .walk import all_nodes


def generated_helpers(stmts: List[gast.stmt]) -> set:
    return {s.name for s in stmts if isinstance(s, gast.FunctionDef) and anno.getanno(s, anno.SKIP)}


def mark_helpers(stmts: List[gast.stmt]) -> List[gast.stmt]:
    for s in stmts:
        if isinstance(s, gast.FunctionDef):
            anno.setanno(s, anno.SKIP, True)
    return stmts


class IfElseTransformer(ControlFlowTransformer):
    converts = (gast.If,)

    def visit_If(self, node: gast.If) -> Any:
        self.generic_visit(node)
        live_out = anno.getanno(node, anno.LIVE_OUT)
        branches = node.body + node.orelse
        written = (analysis.written_names(branches) - generated_helpers(branches)) | \
            self.called_local_writes(branches)
        names = self.nonlocal_names(written)
        attrs = carried_attributes(branches)
        outputs = [i for i, n in enumerate(names) if live_out is None or n in live_out]
        outputs += [len(names) + i for i in range(len(attrs))]
        true_name = self.ctx.namer.new("true_fn")
        false_name = self.ctx.namer.new("false_fn")
        fn_template = "def fn():\n    nonlocal names\n    body"
        true_fn = templates.replace(fn_template, fn=true_name, names=names, body=node.body)
        false_fn = templates.replace(fn_template, fn=false_name, names=names,
                                     body=node.orelse or [gast.Pass()])
        get_name, set_name, accessors = self.get_set_helpers(names, attrs)
        call = templates.replace(
            "_jst.IfElse(test, true_fn, false_fn, get_args, set_args, names, outputs)",
            test=node.test, true_fn=true_name, false_fn=false_name, get_args=get_name,
            set_args=set_name, names=names_tuple(names + attrs), outputs=int_tuple(outputs))
        return mark_helpers(true_fn + false_fn + accessors) + call

    def visit_IfExp(self, node: gast.IfExp) -> Any:
        self.generic_visit(node)
        return templates.replace_expr("_jst.IfElseExpr(test, lambda: body, lambda: orelse)",
                                      test=node.test, body=node.body, orelse=node.orelse)


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    t = IfElseTransformer(ctx)
    # no pass before this one writes `a if c else b`: the features read before them tell
    t.visit_expressions = "ifexp" in ctx.features if ctx.features is not None else any(
        isinstance(n, gast.IfExp) for n in all_nodes(node))
    return t.visit(node)
