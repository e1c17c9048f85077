"""A list attribute that a Layer's forward grows without making it anew or clearing it first
(`self.acc.append(h)`, `self.acc = []` only in `__init__`) keeps its entries between calls: a
saved program cannot carry a list that grows, so jit.save refuses a forward that also reads it."""
from __future__ import annotations

import types
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

import gast

from ..transformers.analysis import dotted_name
from ..transformers.grown_lists import GROWING_METHODS, grown_lists
from .carried_state import CarriedStateError
from .transform import parse_function

# calls that leave a list without its entries from before (at the start of forward)
_EMPTYING = {"clear"}


class GrownStateError(CarriedStateError):
    """A forward grows and reads a list attribute whose entries outlive the call."""


def refuse_grown_lists(layer: Any) -> None:
    """Raise GrownStateError when the forward of `layer` or of one of its sublayers grows a list
    attribute it does not make anew (or clear) first, and reads it."""
    for sub in layer.sublayers(include_self=True):
        forward = _plain_function(type(sub).forward)
        if forward is None:
            continue
        found = kept_lists(forward)
        if found:
            path, grown_at, read_at = found[0]
            code = forward.__code__
            raise GrownStateError(
                f"jit.save: {type(sub).__name__}.forward grows the list `{path}` (File "
                f"\"{code.co_filename}\", line {grown_at}) without making it anew or clearing it "
                f"at its start, and reads it (line {read_at}): in eager code the list keeps its "
                "entries between calls and every call sees more of them, which a saved program "
                "cannot carry (it would see the entries of the save on every call). Make the "
                f"list anew at the start of forward (`{path} = []` or `{path}.clear()`), keep "
                "the state in a buffer, or return it; nothing was written")


def _plain_function(fn: Any) -> Optional[types.FunctionType]:
    fn = getattr(fn, "_function", fn)       # a forward decorated with to_static
    return fn if type(fn) is types.FunctionType else None


def kept_lists(fn: types.FunctionType) -> List[Tuple[str, int, int]]:
    """[(path, line grown, line read)] of the attribute lists of fn's first parameter (`self`)
    that fn grows and reads while no earlier statement of its body made them anew."""
    try:
        fdef, _nodes, _lines, first, _file = parse_function(fn)
    except Exception:  # noqa: BLE001 - no source: it is converted nowhere either
        return []
    args = fdef.args.posonlyargs + fdef.args.args
    if not args:
        return []
    owner = args[0].id
    made: Set[str] = set()
    kept: Dict[str, int] = {}
    for stmt in fdef.body:
        for path in grown_lists([stmt]):
            if path.startswith(owner + ".") and not _covered(path, made) and path not in kept:
                kept[path] = first + _line_of(stmt, path) - 1
        made |= _made_anew(stmt)
    out = []
    for path, grown_at in kept.items():
        read = _first_read(fdef, path)
        if read is not None:
            out.append((path, grown_at, first + read - 1))
    return out


def _covered(path: str, made: Set[str]) -> bool:
    """Whether path or an attribute/entry holding it (`self.d` for `self.d['k']`) was made anew."""
    return any(path == m or path.startswith(m + ".") or path.startswith(m + "[") for m in made)


def _made_anew(stmt: gast.stmt) -> Set[str]:
    """Paths a top-level statement gives a new value: `P = ...` or `P.clear()`."""
    if type(stmt) is gast.Assign:
        return {p for p in (dotted_name(t) for t in stmt.targets) if p}
    if type(stmt) is gast.Expr and type(stmt.value) is gast.Call:
        func = stmt.value.func
        if type(func) is gast.Attribute and func.attr in _EMPTYING:
            path = dotted_name(func.value)
            return {path} if path else set()
    return set()


def _line_of(stmt: gast.stmt, path: str) -> int:
    """The line of the first growth of path in stmt (the statement's own line otherwise)."""
    for node in gast.walk(stmt):
        if type(node) is gast.Call and type(node.func) is gast.Attribute and \
                node.func.attr in GROWING_METHODS and dotted_name(node.func.value) == path:
            return node.lineno
    return stmt.lineno


def _first_read(fdef: gast.FunctionDef, path: str) -> Optional[int]:
    """The line of the first read of path that is no growth of it (`P.append(v)`, `P += [v]`)."""
    for node, parent in _with_parents(fdef):
        if not isinstance(node, (gast.Attribute, gast.Subscript)) or \
                type(node.ctx) is not gast.Load or dotted_name(node) != path:
            continue
        if type(parent) is gast.Attribute and parent.attr in GROWING_METHODS | _EMPTYING:
            continue
        return node.lineno
    return None


def _with_parents(root: gast.AST) -> Iterator[Tuple[gast.AST, Optional[gast.AST]]]:
    stack: List[Tuple[gast.AST, Optional[gast.AST]]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        stack.extend((child, node) for child in gast.iter_child_nodes(node))
