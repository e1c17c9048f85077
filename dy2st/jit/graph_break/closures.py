"""Closures across graph breaks: a nested function reads its enclosing function's variables when
it is called, so the statement that makes it and the later statements rebinding what it reads
run in the driver (one frame, one set of cells), not in region functions of their own."""
from __future__ import annotations

from typing import List, Sequence, Set, Tuple

import gast

from ...transformers.analysis import target_names, written_names
from ...transformers.walk import all_nodes

_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef)
_LOOPS = (gast.For, gast.While)
_WHOLE = (gast.Try, gast.With)      # not opened by the outline: a unit as a whole

# (statement the outline sees, names, ids of the loops around it)
_Use = Tuple[gast.stmt, Set[str], Tuple[int, ...]]


def closure_islands(body: Sequence[gast.stmt], local: Set[str]) -> Set[int]:
    """Ids of the statements of `body` (at any depth) that must run as Python: those making a
    nested function or lambda that reads a local of the function, and those rebinding such a
    local after it (later in the text, or in a loop around both). In separate regions the
    closure would keep the values of the region that made it (fuzz seed 2000824 of
    `--seed 2`: `g = h` after a break did not reach `inner`'s `g`)."""
    makers: List[_Use] = []
    writers: List[_Use] = []
    _visit(body, (), None, local, makers, writers)
    out: Set[int] = set()
    for m, captured, m_loops in makers:
        for w, names, w_loops in writers:
            if w is m or not captured & names:
                continue
            if w.lineno > m.lineno or id(w) in m_loops or set(m_loops) & set(w_loops):
                out.update((id(m), id(w)))
    return out


def statements_around(body: Sequence[gast.stmt], ids: Set[int]) -> Set[int]:
    """Ids of the if/for/while statements of `body` (at any depth) that hold one of the
    statements `ids`: the outline opens them, so that the island inside runs in the driver (a
    loop compiled whole would rebind a closure's name in a region's frame, where the closure
    made in the driver never sees it: fuzz seed 7001511 of `--seed 7`)."""
    out: Set[int] = set()

    def holds(stmts: Sequence[gast.stmt]) -> bool:
        found = False
        for s in stmts:
            if id(s) in ids:
                found = True
            if isinstance(s, (gast.If,) + _LOOPS) and (holds(s.body) | holds(s.orelse)):
                out.add(id(s))
                found = True
        return found
    holds(body)
    return out


def _visit(stmts: Sequence[gast.stmt], loops: Tuple[int, ...], whole: gast.stmt,
           local: Set[str], makers: List[_Use], writers: List[_Use]) -> None:
    for s in stmts:
        unit = whole or s
        if isinstance(s, _DEFS):
            makers.append((unit, _free(s) & local, loops))
            writers.append((unit, {s.name}, loops))
            continue
        if isinstance(s, (gast.If,) + _LOOPS) and whole is None:
            head = s.iter if isinstance(s, gast.For) else s.test
            _note(unit, [head], loops, local, makers, writers)
            if isinstance(s, gast.For):
                targets: Set[str] = set()
                target_names(s.target, targets)
                writers.append((unit, targets, loops))
            inner = loops + ((id(s),) if isinstance(s, _LOOPS) else ())
            _visit(s.body, inner, None, local, makers, writers)
            _visit(s.orelse, loops, None, local, makers, writers)
            continue
        if isinstance(s, _WHOLE) or (whole is not None and hasattr(s, "body")):
            inside = loops + ((id(s),) if isinstance(s, _LOOPS) else ())
            for field in ("body", "orelse", "finalbody"):
                _visit(getattr(s, field, None) or [], inside, unit, local, makers, writers)
            for handler in getattr(s, "handlers", None) or ():
                _visit(handler.body, inside, unit, local, makers, writers)
            _note(unit, getattr(s, "items", None) or [], loops, local, makers, writers)
            writers.append((unit, written_names([s], mutations=False), loops))
            continue
        _note(unit, [s], loops, local, makers, writers)
        writers.append((unit, written_names([s], mutations=False), loops))


def _note(unit: gast.stmt, nodes: List[gast.AST], loops: Tuple[int, ...], local: Set[str],
          makers: List[_Use], writers: List[_Use]) -> None:
    """The lambdas in nodes (an expression or a simple statement) make closures, and `:=`
    targets there are writes."""
    captured: Set[str] = set()
    walrus: Set[str] = set()
    for root in nodes:
        for n in all_nodes(root):
            if isinstance(n, gast.Lambda):
                captured |= _free(n)
            elif isinstance(n, gast.NamedExpr):
                target_names(n.target, walrus)
    if captured & local:
        makers.append((unit, captured & local, loops))
    if walrus:
        writers.append((unit, walrus, loops))


def _free(fn: gast.AST) -> Set[str]:
    """Names a nested function or lambda reads that it does not bind itself."""
    a = fn.args
    own = {x.id for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
           if isinstance(x, gast.Name)}
    body = fn.body if isinstance(fn.body, list) else [gast.Expr(value=fn.body)]
    declared = {x for s in body for n in all_nodes(s) if isinstance(n, gast.Nonlocal)
                for x in n.names}
    own |= written_names(body, mutations=False) - declared
    return {n.id for n in all_nodes(fn) if isinstance(n, gast.Name) and
            isinstance(n.ctx, gast.Load)} - own
