"""Facts that passes look up per name or per op many times (the variable a name denotes, whether
it is dense, its float dtype), computed once per optimize() call and then read from dicts/sets."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Set, Tuple

import numpy as np

from ..program import Operator, Program, Variable
from ..registry import INTO, OPS
from .effects import UNTOUCHABLE, elementwise_ufunc, into_kernel


def resolve_vars(program: Program) -> Dict[str, Variable]:
    """name -> the Variable program.find_var(name) gives, for every name it finds (a name not in
    the dict is one find_var finds nothing for)."""
    merged: Dict[str, Variable] = {}
    for block in reversed(program.blocks):     # earlier blocks win, as in find_var's scan
        merged.update(block.vars)
    if len(merged) != sum(len(b.vars) for b in program.blocks):
        # a name held by two blocks: find_var's index decides which one it gives
        seen: Set[str] = set()
        for block in program.blocks:
            for name in block.vars:
                if name in seen:
                    merged[name] = program.find_var(name)
                seen.add(name)
    return merged


class Facts:
    """Lookup tables shared by the passes of one optimize() call. Valid while no variable is added
    to the program; a pass removing one calls forget()."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.vars = resolve_vars(program)
        dense = {n: v for n, v in self.vars.items() if v.kind == "dense"}
        self.dense: Set[str] = set(dense)
        floats: Dict[Any, np.dtype] = {}
        for dtype in {v.dtype for v in dense.values()}:
            dt = np.dtype(dtype.np)
            if dt.kind == "f":
                floats[dtype] = dt
        # name -> numpy dtype of a dense floating-point variable (other names are absent)
        self.float_dtypes: Dict[str, np.dtype] = {
            n: floats[v.dtype] for n, v in dense.items() if v.dtype in floats}
        self.pure_types = _PureTypes()
        self._ufuncs: Dict[Tuple[str, int, bool], Optional[Callable]] = {}

    def ufunc(self, op: Operator, in_dtype: np.dtype) -> Optional[Callable]:
        """effects.elementwise_ufunc(op, in_dtype), computed once per (type, arity, float input):
        all it depends on besides attrs, which must be empty; or the op's into-kernel with its
        attrs bound (effects.into_kernel)."""
        if op.type in INTO:
            return into_kernel(op, in_dtype)
        if op.attrs:
            return None
        key = (op.type, len(op.inputs), in_dtype.kind == "f")
        try:
            return self._ufuncs[key]
        except KeyError:
            f = self._ufuncs[key] = elementwise_ufunc(op, in_dtype)
            return f

    def forget(self, name: str) -> None:
        """The variable was removed from its block."""
        self.vars.pop(name, None)
        self.dense.discard(name)
        self.float_dtypes.pop(name, None)


class _PureTypes(dict):
    """op type -> ops of the type may be folded or merged (when their values are dense)."""

    def __missing__(self, op_type: str) -> bool:
        # cond / while (the only ops with sub-blocks) are in UNTOUCHABLE
        pure = self[op_type] = op_type not in UNTOUCHABLE and op_type in OPS
        return pure


def facts_for(program: Program, facts: Optional[Facts] = None) -> Facts:
    """The given tables, or new ones for a pass run on its own."""
    return facts if facts is not None else Facts(program)
