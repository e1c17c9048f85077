"""What a function's code reads from outside its frame, found from its bytecode: the globals,
the closure cells, and the attribute chains rooted at a global, a cell or a parameter."""
from __future__ import annotations

import dis
import types
from functools import lru_cache
from typing import FrozenSet, NamedTuple, Tuple

# ops that load a root an attribute chain may start from
_ROOTS = {"LOAD_GLOBAL": "global", "LOAD_DEREF": "cell", "LOAD_CLASSDEREF": "cell",
          "LOAD_FAST": "local", "LOAD_FAST_CHECK": "local"}
_ATTRS = frozenset(("LOAD_ATTR", "LOAD_METHOD"))
MAX_DEPTH = 4        # attribute chains longer than this are guarded up to this depth


class CodeReads(NamedTuple):
    """The outside reads of one code object (and of the code nested in it)."""
    globals: FrozenSet[str]
    cells: FrozenSet[str]
    # (root kind "global" | "cell" | "local", root name, attribute path)
    chains: FrozenSet[Tuple[str, str, Tuple[str, ...]]]


def _walk(code: types.CodeType, free: FrozenSet[str], top: bool, out: Tuple[set, set, set]) -> None:
    globals_, cells, chains = out
    root = None
    path: Tuple[str, ...] = ()
    for ins in dis.get_instructions(code):
        op = ins.opname
        if op in _ATTRS and root is not None:
            if len(path) < MAX_DEPTH:
                path = path + (ins.argval,)
                chains.add((root[0], root[1], path))
            continue
        root, path = None, ()
        kind = _ROOTS.get(op)
        if kind is None:
            continue
        name = ins.argval
        if kind == "global":
            globals_.add(name)
        elif kind == "cell":
            if name not in free:
                continue        # a cell of this frame: a local variable
            cells.add(name)
        elif not top:
            continue            # a nested function's own local
        root = (kind, name)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _walk(const, free, False, out)


@lru_cache(maxsize=2048)
def reads_of(code: types.CodeType) -> CodeReads:
    """The outside reads of `code` (cached per code object)."""
    out: Tuple[set, set, set] = (set(), set(), set())
    _walk(code, frozenset(code.co_freevars), True, out)
    globals_, cells, chains = out
    return CodeReads(frozenset(globals_), frozenset(cells), frozenset(chains))


def parameter_names(code: types.CodeType) -> Tuple[str, ...]:
    """Names of the parameters of `code`, in order (positional, *args, keyword-only, **kw)."""
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    return code.co_varnames[:n]
