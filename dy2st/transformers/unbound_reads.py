"""A name that may be unassigned where it is only passed along (`h = z`, `return z`, `f(z)`) is
read through `_jst.Defined`, so that the error is raised at the line that reads it, as in Python.

    h = z    ->   h = _jst.Defined(z)     (z assigned only under an `if`, in a loop, or deleted)

Operands of arithmetic and comparisons (`z + x[0]`) are read through it too, so the check runs
where Python reads the name, before the other operand is computed; other reads in operations
(`if z:`, `z.sum()`) fail at their own line already and stay as they are."""
from __future__ import annotations

from typing import Any, List, Optional, Set

import gast

from . import analysis, templates
from .base import Transformer
from .context import PassContext
from .walk import all_nodes, child_nodes

_SCOPES = frozenset((gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ListComp,
                     gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.ClassDef))


def _own(stmts) -> List[gast.AST]:
    """Nodes of the statements in their own scope (not inside nested functions or lambdas)."""
    out: List[gast.AST] = []
    stack = list(stmts)
    while stack:
        node = stack.pop()
        out.append(node)
        if type(node) not in _SCOPES:
            stack.extend(child_nodes(node))
    return out


def _params(fn: gast.FunctionDef) -> Set[str]:
    a = fn.args
    names = [x for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x for x in (a.vararg, a.kwarg) if x is not None]
    return {x.id for x in names if isinstance(x, gast.Name)}


def _is_unbinding(stmt: gast.stmt) -> bool:
    v = getattr(stmt, "value", None)
    return isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and \
        v.func.attr == "UndefinedVar"


_ENDS = (gast.Return, gast.Raise, gast.Break, gast.Continue)


class UnboundReadsTransformer(Transformer):
    def visit_FunctionDef(self, node: gast.FunctionDef) -> Any:
        nonlocals, globals_ = analysis.declarations(node)
        self._local = analysis.written_names(node.body, mutations=False) - _params(node) - \
            nonlocals - globals_
        if self._local:
            self._block(node.body, set())
        _loop_reads(node)
        return super().visit_FunctionDef(node)     # nested functions: their own locals

    def _block(self, stmts, assigned: Set[str]) -> Optional[Set[str]]:
        """Wrap the reads in stmts of names not surely assigned; the names surely assigned
        after them (None when they never fall through: return, raise, break, continue)."""
        assigned = set(assigned)
        for stmt in stmts:
            after = self._statement(stmt, assigned)
            if after is None:
                return None
            assigned = after
        return assigned

    def _statement(self, stmt: gast.stmt, assigned: Set[str]) -> Optional[Set[str]]:
        maybe = self._local - assigned
        if isinstance(stmt, gast.If):
            self._wrap_expr(stmt.test, maybe)
            a, b = self._block(stmt.body, assigned), self._block(stmt.orelse, assigned)
            if a is None or b is None:
                return b if a is None else a
            return a & b
        if isinstance(stmt, (gast.For, gast.While)):
            self._wrap_expr(stmt.iter if isinstance(stmt, gast.For) else stmt.test, maybe)
            targets = {n.id for n in all_nodes(stmt.target) if isinstance(n, gast.Name)} \
                if isinstance(stmt, gast.For) else set()
            self._block(stmt.body, assigned | targets)
            self._block(stmt.orelse, assigned)
            return assigned          # the body may not run
        if isinstance(stmt, (gast.With, gast.Try)):
            for field in ("body", "orelse", "finalbody"):
                self._block(getattr(stmt, field, []) or [], assigned)
            for h in getattr(stmt, "handlers", []):
                self._block(h.body, assigned)
            return assigned
        if maybe:
            self._wrap(stmt, maybe)
        if isinstance(stmt, _ENDS):
            return None
        if isinstance(stmt, gast.Assign):
            names = {n.id for t in stmt.targets for n in all_nodes(t)
                     if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            return assigned - names if _is_unbinding(stmt) else assigned | names
        return assigned

    def _wrap_expr(self, expr: gast.expr, names: Set[str]) -> None:
        if names:
            self._wrap(expr, names)

    def _wrap(self, stmt: gast.stmt, names: Set[str]) -> None:
        if _region_outputs(stmt):
            return
        indices: Optional[Set[int]] = None    # ids of stmt's subscript indices, read once
        for node in _own([stmt]):     # (not the Defined calls added here)
            if isinstance(node, gast.Assign) and not _is_unbinding(node):
                node.value = self._defined(node.value, names)
            elif isinstance(node, gast.Return) and node.value is not None:
                node.value = self._defined(node.value, names)
                if isinstance(node.value, gast.Tuple):
                    node.value.elts = [self._defined(e, names) for e in node.value.elts]
            elif isinstance(node, gast.Call):
                node.args = [self._defined(a, names) for a in node.args]
                for kw in node.keywords:
                    kw.value = self._defined(kw.value, names)
            elif isinstance(node, (gast.List, gast.Tuple, gast.Set)) and \
                    isinstance(getattr(node, "ctx", None) or gast.Load(), gast.Load):
                # (a set display has no ctx: it is always read)
                if indices is None:
                    indices = _index_ids(stmt)
                if id(node) not in indices:     # `x[:, t]`: a tuple of indices, not a display
                    node.elts = [self._defined(e, names) for e in node.elts]
            elif isinstance(node, gast.Dict):
                node.values = [self._defined(v, names) for v in node.values]
            elif isinstance(node, gast.BinOp):
                # checked where Python reads it, before the other operand is computed: `y + x[0]`
                # fails for `y` as eager code does, not with the IndexError of `x[0]`
                node.left = self._defined(node.left, names)
                node.right = self._defined(node.right, names)
            elif isinstance(node, gast.Compare):
                node.left = self._defined(node.left, names)
                node.comparators = [self._defined(c, names) for c in node.comparators]

    @staticmethod
    def _defined(expr: gast.expr, names: Set[str]) -> gast.expr:
        if isinstance(expr, gast.Name) and isinstance(expr.ctx, gast.Load) and expr.id in names:
            return templates.replace_expr("_jst.Defined(name)", name=expr)
        return expr


def _index_ids(stmt: gast.AST) -> Set[int]:
    """ids of the indices of stmt's subscripts (wrapping reads in Defined leaves them in place:
    one walk serves every display of the statement)."""
    return {id(n.slice) for n in all_nodes(stmt, contexts=False) if type(n) is gast.Subscript}


def transform(node: gast.AST, ctx: PassContext) -> gast.AST:
    return UnboundReadsTransformer(ctx).visit(node)


def _loop_reads(fn: gast.FunctionDef) -> None:
    """Where a tensor loop or `if` may leave a value without one known while tracing, the line
    reading it is where it fails, as in eager code: `return y` of a name set to None and
    reassigned in a loop or `if` (None cannot be returned from a graph), `h = d["k"]` /
    `return d["k"]` (a key a loop may add or delete: KeyError)."""
    own = _own(fn.body)
    loops = [n for n in own if isinstance(n, (gast.For, gast.While, gast.If))]
    if not loops:
        return
    in_loops = set().union(*(analysis.written_names(n.body + n.orelse, mutations=False)
                             for n in loops))
    nones = {t.id for n in own if isinstance(n, gast.Assign) and _is_none(n.value)
             for t in n.targets if isinstance(t, gast.Name)} & in_loops
    for node in own:
        if isinstance(node, gast.Return) and node.value is not None and \
                not _region_outputs(node):
            if isinstance(node.value, gast.Tuple):
                node.value.elts = [_checked(e, nones) for e in node.value.elts]
            else:
                node.value = _checked(node.value, nones)
        elif isinstance(node, gast.Assign) and _keyed(node.value):
            node.value = _checked(node.value, set())


def _region_outputs(stmt: gast.stmt) -> bool:
    """The return a graph-break region ends with (jit/graph_break/outline.py): its outputs may
    have no value on the path taken, which the read that needs them reports."""
    return getattr(stmt, "dy2st_region_outputs", False)


def _is_none(expr: gast.expr) -> bool:
    return isinstance(expr, gast.Constant) and expr.value is None


def _keyed(expr: gast.expr) -> bool:
    """`d["key"]`: a read by a string key (a dict's, never a tensor index)."""
    return isinstance(expr, gast.Subscript) and isinstance(expr.ctx, gast.Load) and \
        isinstance(expr.slice, gast.Constant) and isinstance(expr.slice.value, str)


def _checked(expr: gast.expr, names: Set[str]) -> gast.expr:
    if _keyed(expr) or (isinstance(expr, gast.Name) and expr.id in names):
        return templates.replace_expr("_jst.Defined(value)", value=expr)
    return expr
