"""Fusions the numpy executor makes while generating code, leaving the Program as it is (exports,
the XLA backend and autograd see the unfused ops): an LSTM cell's gate math as one kernel."""
from __future__ import annotations

from typing import Collection, Dict, List, Optional, Tuple

import numpy as np

from .program import Operator, Variable

LSTM_GATES = "fused_lstm_gates"


def lstm_gates(gates: np.ndarray, c: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(c', h) of an LSTM cell from its summed gates [..., 4H] (i, f, g, o, as Paddle orders
    them) and its cell state: c' = sigmoid(f) c + sigmoid(i) tanh(g), h = sigmoid(o) tanh(c').
    The same numpy operations as the unfused ops, in the same order, so the same bits: but one
    sigmoid over the whole gate block (contiguous, a quarter of it unused) instead of three over
    strided pieces, and every later step in place: 9 numpy calls instead of 20."""
    n = gates.shape[-1] // 4
    # the sigmoid kernel's own steps (ops/math.py), into one new buffer: gates may be shared
    s = np.multiply(gates, 0.5)
    np.tanh(s, out=s)
    s += 1.0
    s *= 0.5
    t = np.tanh(gates[..., 2 * n:3 * n])
    c_new = np.multiply(s[..., n:2 * n], c)
    t *= s[..., :n]
    c_new += t
    h = np.tanh(c_new)
    h *= s[..., 3 * n:]
    return c_new, h


KERNELS = {LSTM_GATES: lstm_gates}


class _Uses:
    """How often each value is read and written in a list of ops, and by which op it is made."""

    def __init__(self, ops: List[Operator]) -> None:
        self.reads: Dict[str, int] = {}
        self.writes: Dict[str, int] = {}
        self.maker: Dict[str, int] = {}
        self.reader: Dict[str, int] = {}
        for k, op in enumerate(ops):
            for n in op.inputs:
                self.reads[n] = self.reads.get(n, 0) + 1
                self.reader[n] = k
            for n in op.outputs:
                self.writes[n] = self.writes.get(n, 0) + 1
                self.maker[n] = k


def _only_reader(ops: List[Operator], uses: _Uses, name: str, keep: Collection[str],
                 types: Tuple[str, ...]) -> Optional[int]:
    """The op reading the one-use intermediate `name`, when it is one of `types` with one output."""
    if uses.reads.get(name) != 1 or uses.writes.get(name) != 1 or name in keep:
        return None
    k = uses.reader[name]
    op = ops[k]
    return k if op.type in types and len(op.outputs) == 1 else None


def _other(op: Operator, name: str) -> Optional[str]:
    """The input of a binary op besides `name` (x * x gives None)."""
    if len(op.inputs) != 2 or op.attrs:
        return None
    a, b = op.inputs
    if a == name and b != name:
        return b
    if b == name and a != name:
        return a
    return None


def _float_dtype(vars: Dict[str, Variable], name: str) -> Optional[np.dtype]:
    v = vars.get(name)
    if v is None or v.kind != "dense":
        return None
    dt = np.dtype(v.dtype.np)
    return dt if dt in (np.float32, np.float64) else None


def _match_lstm(ops: List[Operator], uses: _Uses, vars: Dict[str, Variable], keep: Collection[str],
                pieces: List[int]) -> Optional[Tuple[List[int], Operator, int]]:
    """The LSTM gate chain fed by the four split ops `pieces` (i, f, g, o of one gate block):
    (the indices of its ops, the fused op, where it goes), or None."""
    i, f, g, o = (ops[k].outputs[0] for k in pieces)
    found = {}
    for name, act in ((i, "sigmoid"), (f, "sigmoid"), (g, "tanh"), (o, "sigmoid")):
        k = _only_reader(ops, uses, name, keep, (act,))
        if k is None or ops[k].attrs or len(ops[k].inputs) != 1:
            return None
        found[name] = k
    si, sf, tg, so = (ops[found[n]].outputs[0] for n in (i, f, g, o))
    k_fc = _only_reader(ops, uses, sf, keep, ("multiply",))
    k_ig = _only_reader(ops, uses, si, keep, ("multiply",))
    if k_fc is None or k_ig is None or k_fc == k_ig or _other(ops[k_ig], si) != tg:
        return None
    c = _other(ops[k_fc], sf)
    fc, ig = ops[k_fc].outputs[0], ops[k_ig].outputs[0]
    k_add = _only_reader(ops, uses, fc, keep, ("add",))
    if c is None or k_add is None or _other(ops[k_add], fc) != ig or \
            _only_reader(ops, uses, ig, keep, ("add",)) != k_add:
        return None
    c_new = ops[k_add].outputs[0]
    # c' is the cell state carried on: read by the tanh of the chain and maybe by others
    k_tc = next((k for k, op in enumerate(ops) if op.type == "tanh" and op.inputs == [c_new]
                 and not op.attrs and len(op.outputs) == 1), None)
    if k_tc is None or uses.writes.get(c_new) != 1:
        return None
    tc = ops[k_tc].outputs[0]
    k_h = _only_reader(ops, uses, so, keep, ("multiply",))
    if k_h is None or _other(ops[k_h], so) != tc or \
            _only_reader(ops, uses, tc, keep, ("multiply",)) != k_h:
        return None
    h = ops[k_h].outputs[0]
    gates = ops[pieces[0]].inputs[0]
    dtype = _float_dtype(vars, gates)
    if dtype is None or _float_dtype(vars, c) != dtype or uses.writes.get(h) != 1:
        return None
    members = sorted(pieces + list(found.values()) + [k_fc, k_ig, k_add, k_tc, k_h])
    # it runs where the chain's first op ran: the gates and c must exist by then (c may be
    # made later in the block by another op only in odd code: then nothing is fused)
    start = members[0]
    for x in (c, gates):
        if uses.maker.get(x, -1) >= start or uses.writes.get(x, 0) > 1:
            return None
    fused = Operator(LSTM_GATES, [gates, c], [c_new, h], {}, ops[k_h].origin)
    return members, fused, start


def _lstm_pieces(ops: List[Operator], vars: Dict[str, Variable]) -> List[List[int]]:
    """Each set of four equal `split` pieces i, f, g, o of one value along its last axis."""
    groups: Dict[str, List[Optional[int]]] = {}
    for k, op in enumerate(ops):
        a = op.attrs
        if op.type != "split" or len(op.inputs) != 1 or len(op.outputs) != 1 or \
                a.get("num") != 4 or a.get("sections") is not None or a.get("index") not in range(4):
            continue
        v = vars.get(op.inputs[0])
        if v is None or not v._shape or a.get("axis") != len(v._shape) - 1:
            continue
        slots = groups.setdefault(op.inputs[0], [None] * 4)
        if slots[a["index"]] is None:
            slots[a["index"]] = k
    return [s for s in groups.values() if None not in s]


def fuse_block_ops(ops: List[Operator], vars: Dict[str, Variable],
                   keep: Collection[str]) -> List[Operator]:
    """ops with each LSTM cell's gate math (split into i, f, g, o, three sigmoids, two tanhs,
    three multiplies, one add) replaced by one fused op; ops itself when there is none. keep:
    values that leave the block (never fused away). vars: resolve_vars(program)."""
    if not any(op.type == "split" for op in ops):
        return ops
    candidates = _lstm_pieces(ops, vars)
    if not candidates:
        return ops
    uses = _Uses(ops)
    replaced: Dict[int, Optional[Operator]] = {}
    for pieces in candidates:
        found = _match_lstm(ops, uses, vars, keep, pieces)
        if found is None or any(k in replaced for k in found[0]):
            continue
        members, fused, start = found
        for k in members:
            replaced[k] = None
        replaced[start] = fused
    if not replaced:
        return ops
    return [replaced[k] if k in replaced else op for k, op in enumerate(ops)
            if replaced.get(k, op) is not None]
