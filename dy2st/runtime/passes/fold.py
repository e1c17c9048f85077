"""Constant folding: an op whose inputs are all compile-time constants (`full`, `eye`, ... or
folded results) is computed once while optimizing and replaced by a `full` op.

    t_0 = full() {shape=[], value=2.0}            t_0 = full() {shape=[], value=2.0}
    t_1 = full() {shape=[], value=3.0}     ->     t_1 = full() {shape=[], value=3.0}
    t_2 = multiply(t_0, t_1)                      t_2 = full() {shape=[], value=6.0}

Only results that a `full` op reproduces bit for bit are folded (uniform, finite, small); random
and effectful ops (effects.py) never are. Persistable values are parameters read at run time,
so they are never constants."""
from __future__ import annotations

import math
import warnings
from typing import Any, Dict, Optional

import numpy as np

from ..dtype import dtype_name
from ..program import Block, Program
from ..registry import OPS
from .effects import blocks_inner_first, is_pure, keep_names
from .facts import Facts, facts_for

# Ops with no inputs whose kernel only depends on attrs.
SOURCES = frozenset({"full", "full_range", "eye"})
MAX_ELEMENTS = 1 << 16


def _evaluate(op, values):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            return OPS[op.type].kernel(*values, **op.attrs)


def _as_full(value: Any, var) -> Any:
    """attrs of a `full` op giving exactly `value`, or None."""
    if type(value) is not np.ndarray:
        # e.g. a ufunc on 0-d arrays gives a numpy scalar: a `full` op would give a 0-d array
        # instead, which some kernels treat differently, so the run would not be identical.
        return None
    arr = value
    if arr.dtype != var.dtype.np or tuple(arr.shape) != tuple(var._shape) or arr.size == 0:
        return None
    first = arr.reshape(-1)[0]
    if arr.dtype.kind == "b":
        py: Any = bool(first)
    elif arr.dtype.kind in "iu":
        py = int(first)
    elif arr.dtype.kind == "f":
        py = float(first)
        if not math.isfinite(py):
            return None
    else:
        return None
    same = np.full(arr.shape, py, dtype=arr.dtype)
    if same.tobytes() != np.ascontiguousarray(arr).tobytes():
        return None
    return {"shape": [int(d) for d in arr.shape], "value": py, "dtype": dtype_name(var.dtype)}


def _fold_block(program: Program, block: Block, facts: Facts) -> int:
    # constants all start at a source op: without one, nothing in the block can fold
    if not any(op.type in SOURCES and not op.inputs for op in block.ops):
        return 0
    consts: Dict[str, Any] = {}
    keep = keep_names(program, block)
    folded = 0
    for op in block.ops:
        # cheap tests first (each is a condition for folding, in any order)
        if len(op.outputs) != 1:
            continue
        if op.type in SOURCES and not op.inputs:
            if not is_pure(program, op, facts):
                continue
            try:
                consts[op.outputs[0]] = _evaluate(op, [])
            except Exception:  # noqa: BLE001 - left for the run to report
                pass
            continue
        if not op.inputs or not all(n in consts for n in op.inputs):
            continue
        if not is_pure(program, op, facts):
            continue
        out = op.outputs[0]
        var = facts.vars.get(out)
        if out in keep or var is None or any(d < 0 for d in var._shape):
            continue
        if int(np.prod(var._shape)) > MAX_ELEMENTS:
            continue
        try:
            value = _evaluate(op, [consts[n] for n in op.inputs])
        except Exception:  # noqa: BLE001 - errors and warnings still happen at run time
            continue
        attrs = _as_full(value, var)
        if attrs is None:
            continue
        op.type, op.inputs, op.attrs = "full", [], attrs
        consts[out] = np.full(attrs["shape"], attrs["value"], dtype=var.dtype.np)
        folded += 1
    return folded


def fold_constants(program: Program, facts: Optional[Facts] = None) -> int:
    """Fold every block; returns the number of ops folded. Inputs left unused go with DCE."""
    facts = facts_for(program, facts)
    n = sum(_fold_block(program, b, facts) for b in blocks_inner_first(program))
    if n:
        program.version += 1
    return n
