"""Fusions the numpy executor makes while generating code, leaving the Program as it is (exports,
the XLA backend and autograd see the unfused ops): an LSTM or GRU cell's gate math as one kernel."""
from __future__ import annotations

from typing import Collection, Dict, List, Optional, Tuple

import numpy as np

from .program import Operator, Variable

LSTM_GATES = "fused_lstm_gates"
GRU_GATES = "fused_gru_gates"


def lstm_gates(gates: np.ndarray, c: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(c', h) of an LSTM cell from its summed gates [..., 4H] (i, f, g, o, as Paddle orders
    them) and its cell state: c' = sigmoid(f) c + sigmoid(i) tanh(g), h = sigmoid(o) tanh(c').
    The same numpy operations as the unfused ops, in the same order, so the same bits: but one
    sigmoid over the whole gate block (contiguous, a quarter of it unused) instead of three over
    strided pieces, and every later step in place: 9 numpy calls instead of 20."""
    n = gates.shape[-1] // 4
    # one new buffer: gates may be shared
    s = _sigmoid_of_half(np.multiply(gates, 0.5))
    t = np.tanh(gates[..., 2 * n:3 * n])
    c_new = np.multiply(s[..., n:2 * n], c)
    t *= s[..., :n]
    c_new += t
    h = np.tanh(c_new)
    h *= s[..., 3 * n:]
    return c_new, h


def _gru_unfused(xg: np.ndarray, hg: np.ndarray, h: np.ndarray) -> np.ndarray:
    """gru_gates as the unfused ops compute it (any broadcasting shapes)."""
    n = xg.shape[-1] // 3
    rz = np.add(xg[..., :2 * n], hg[..., :2 * n]) if xg.shape[:-1] == hg.shape[:-1] else None
    r = _sigmoid(np.add(xg[..., :n], hg[..., :n]) if rz is None else rz[..., :n])
    z = _sigmoid(np.add(xg[..., n:2 * n], hg[..., n:2 * n]) if rz is None else rz[..., n:])
    c = np.tanh(np.add(xg[..., 2 * n:], np.multiply(r, hg[..., 2 * n:])))
    return np.add(np.multiply(np.subtract(h, c), z), c)


def _sigmoid(a: np.ndarray) -> np.ndarray:
    """sigmoid(a) in place on the fresh array a."""
    a *= 0.5
    return _sigmoid_of_half(a)


def _sigmoid_of_half(s: np.ndarray) -> np.ndarray:
    """sigmoid(x) in place on a fresh array s holding x / 2: the rest of the sigmoid kernel's
    own steps (ops/math.py: 0.5 * (1 + tanh(x / 2))), so the fused kernels give its bits."""
    np.tanh(s, out=s)
    s += 1.0
    s *= 0.5
    return s


def gru_gates(xg: np.ndarray, hg: np.ndarray, h: np.ndarray) -> np.ndarray:
    """h' of a GRU cell from its input gates xg and hidden gates hg [..., 3H] (r, z, c, as
    Paddle orders them) and its state h: r, z = sigmoid(x_rz + h_rz), c = tanh(x_c + r h_c),
    h' = (h - c) z + c. The same numpy operations as the unfused ops, in the same order, so the
    same bits: but the r and z sums and sigmoids over one [..., 2H] block, and every later step
    in place: 11 numpy calls instead of 17 on strided thirds."""
    n = xg.shape[-1] // 3
    if xg.shape != hg.shape or h.shape != xg.shape[:-1] + (n,):
        return _gru_unfused(xg, hg, h)
    rz = _sigmoid(np.add(xg[..., :2 * n], hg[..., :2 * n]))
    c = np.multiply(rz[..., :n], hg[..., 2 * n:])
    np.add(xg[..., 2 * n:], c, out=c)
    np.tanh(c, out=c)
    out = np.subtract(h, c)
    out *= rz[..., n:]
    out += c
    return out


KERNELS = {LSTM_GATES: lstm_gates, GRU_GATES: gru_gates}


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


def _act(ops: List[Operator], uses: _Uses, name: str, keep: Collection[str],
         act: str) -> Optional[int]:
    """The attr-less one-input op `act` that alone reads `name`."""
    k = _only_reader(ops, uses, name, keep, (act,))
    return None if k is None or ops[k].attrs or len(ops[k].inputs) != 1 else k


def _sum_of(ops: List[Operator], uses: _Uses, a: str, b: str, keep: Collection[str],
            op_type: str = "add") -> Optional[int]:
    """The op `op_type`(a, b) (either order) that alone reads a and b."""
    k = _only_reader(ops, uses, a, keep, (op_type,))
    if k is None or _other(ops[k], a) != b or _only_reader(ops, uses, b, keep, (op_type,)) != k:
        return None
    return k


def _match_gru(ops: List[Operator], uses: _Uses, vars: Dict[str, Variable], keep: Collection[str],
               first: List[int], second: List[int]) -> Optional[Tuple[List[int], Operator, int]]:
    """The GRU gate chain over the split pieces `first` and `second` (r, z, c of the input and
    the hidden gates, in either role): (the indices of its ops, the fused op, where it goes)."""
    a = [ops[k].outputs[0] for k in first]
    b = [ops[k].outputs[0] for k in second]
    k_sr, k_sz = _sum_of(ops, uses, a[0], b[0], keep), _sum_of(ops, uses, a[1], b[1], keep)
    if k_sr is None or k_sz is None:
        return None
    k_r, k_z = _act(ops, uses, ops[k_sr].outputs[0], keep, "sigmoid"), \
        _act(ops, uses, ops[k_sz].outputs[0], keep, "sigmoid")
    if k_r is None or k_z is None:
        return None
    r, z = ops[k_r].outputs[0], ops[k_z].outputs[0]
    k_m = _only_reader(ops, uses, r, keep, ("multiply",))
    h_c = None if k_m is None else _other(ops[k_m], r)
    if h_c not in (a[2], b[2]) or _only_reader(ops, uses, h_c, keep, ("multiply",)) != k_m:
        return None
    x_pieces, h_pieces = (second, first) if h_c == a[2] else (first, second)
    x_c = b[2] if h_c == a[2] else a[2]
    k_sc = _sum_of(ops, uses, ops[k_m].outputs[0], x_c, keep)
    k_c = None if k_sc is None else _act(ops, uses, ops[k_sc].outputs[0], keep, "tanh")
    if k_c is None:
        return None
    c = ops[k_c].outputs[0]
    # h' = (h - c) * z + c: c is read by the subtract and the last add, nothing else
    k_d = next((k for k, op in enumerate(ops) if op.type == "subtract" and len(op.inputs) == 2
                and op.inputs[1] == c and op.inputs[0] != c and not op.attrs
                and len(op.outputs) == 1), None)
    if k_d is None or uses.reads.get(c) != 2 or uses.writes.get(c) != 1 or c in keep:
        return None
    h = ops[k_d].inputs[0]
    k_e = _sum_of(ops, uses, ops[k_d].outputs[0], z, keep, "multiply")
    if k_e is None:
        return None
    e = ops[k_e].outputs[0]
    k_new = _only_reader(ops, uses, e, keep, ("add",))
    if k_new is None or _other(ops[k_new], e) != c or uses.writes.get(ops[k_new].outputs[0]) != 1:
        return None
    xg, hg = ops[x_pieces[0]].inputs[0], ops[h_pieces[0]].inputs[0]
    dtype = _float_dtype(vars, xg)
    if dtype is None or _float_dtype(vars, hg) != dtype or _float_dtype(vars, h) != dtype:
        return None
    members = sorted(first + second + [k_sr, k_sz, k_r, k_z, k_m, k_sc, k_c, k_d, k_e, k_new])
    start = members[0]          # as for the LSTM: its inputs must exist there, written once
    for x in (xg, hg, h):
        if uses.maker.get(x, -1) >= start or uses.writes.get(x, 0) > 1:
            return None
    return members, Operator(GRU_GATES, [xg, hg, h], [ops[k_new].outputs[0]], {},
                             ops[k_new].origin), start


def _gru_chains(ops: List[Operator], uses: _Uses, vars: Dict[str, Variable], keep: Collection[str],
                groups: List[List[int]]) -> List[Optional[Tuple[List[int], Operator, int]]]:
    """_match_gru over each two groups of three pieces whose first pieces are added."""
    first_piece = {ops[ks[0]].outputs[0]: g for g, ks in enumerate(groups)}
    found = []
    for g, ks in enumerate(groups):
        name = ops[ks[0]].outputs[0]
        k = _only_reader(ops, uses, name, keep, ("add",))
        partner = None if k is None else first_piece.get(_other(ops[k], name))
        if partner is not None and partner > g:
            found.append(_match_gru(ops, uses, vars, keep, ks, groups[partner]))
    return found


def _split_pieces(ops: List[Operator], vars: Dict[str, Variable], num: int) -> List[List[int]]:
    """Each set of `num` equal `split` pieces of one value along its last axis (i, f, g, o of an
    LSTM's gates for 4; r, z, c of a GRU's input or hidden gates for 3)."""
    groups: Dict[str, List[Optional[int]]] = {}
    for k, op in enumerate(ops):
        a = op.attrs
        if op.type != "split" or len(op.inputs) != 1 or len(op.outputs) != 1 or \
                a.get("num") != num or a.get("sections") is not None or a.get("index") not in range(num):
            continue
        v = vars.get(op.inputs[0])
        if v is None or not v._shape or a.get("axis") != len(v._shape) - 1:
            continue
        slots = groups.setdefault(op.inputs[0], [None] * num)
        if slots[a["index"]] is None:
            slots[a["index"]] = k
    return [s for s in groups.values() if None not in s]


def fuse_block_ops(ops: List[Operator], vars: Dict[str, Variable],
                   keep: Collection[str]) -> List[Operator]:
    """ops with each LSTM cell's gate math (split into i, f, g, o, three sigmoids, two tanhs,
    three multiplies, one add) and each GRU cell's (two splits into r, z, c, two sigmoids, ...)
    replaced by one fused op; ops itself when there is none. keep: values that leave the block
    (never fused away). vars: resolve_vars(program)."""
    if not any(op.type == "split" for op in ops):
        return ops
    lstm, gru = _split_pieces(ops, vars, 4), _split_pieces(ops, vars, 3)
    if not lstm and len(gru) < 2:
        return ops
    uses = _Uses(ops)
    found = [_match_lstm(ops, uses, vars, keep, pieces) for pieces in lstm]
    found += _gru_chains(ops, uses, vars, keep, gru)
    replaced: Dict[int, Optional[Operator]] = {}
    for match in found:
        if match is None or any(k in replaced for k in match[0]):
            continue
        members, fused, start = match
        for k in members:
            replaced[k] = None
        replaced[start] = fused
    if not replaced:
        return ops
    return [replaced[k] if k in replaced else op for k, op in enumerate(ops)
            if replaced.get(k, op) is not None]
