"""A code object's instructions in one vocabulary, Python 3.11's, whatever Python runs: the one
place where the guards' bytecode scan (reads.py) meets the changes of CPython's bytecode."""
from __future__ import annotations

import dis
import sys
import types
from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional

# 3.9 and 3.10 load a function's qualified name before MAKE_FUNCTION (3.11 dropped it), and
# count a comprehension's iterator as its call's argument (3.11: `CALL 0` after GET_ITER)
_PY39_310 = sys.version_info < (3, 11)
# 3.12: `A or B` is COPY 1 / POP_JUMP_IF_TRUE / POP_TOP (3.11: JUMP_IF_TRUE_OR_POP); list, set
# and dict comprehensions are inlined (PEP 709: no code object, LOAD_FAST_AND_CLEAR saves
# the loop names and stores put them back); `a[i:j]` is BINARY_SLICE; `super().x` is
# LOAD_SUPER_ATTR
_PY312 = sys.version_info >= (3, 12)
# 3.13 pairs LOAD_FAST / STORE_FAST into superinstructions, adds TO_BOOL before conditional
# jumps, CALL_KW, and SET_FUNCTION_ATTRIBUTE after MAKE_FUNCTION
_SPLIT = {"LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
          "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
          "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST")}
# ops renamed to the 3.11 op that does the same for the scan
_RENAMED = {"CALL_KW": "CALL",                          # 3.13
            "LOAD_FROM_DICT_OR_DEREF": "LOAD_CLASSDEREF"}   # 3.12, in class bodies
# ops that only change how a value is held or how an argument is encoded (no new value for
# the scan): folded into the op after them (TO_BOOL: the jump it feeds ends a path, as in
# 3.11; EXTENDED_ARG, which dis lists on its own, more often from 3.12's longer code, would
# part a loop's GET_ITER from its FOR_ITER) or before them
_FOLD_FORWARD = frozenset(("TO_BOOL", "EXTENDED_ARG"))
_FOLD_BACK = frozenset(("SET_FUNCTION_ATTRIBUTE",))
_JUMP_OPS: FrozenSet[int] = frozenset(getattr(dis, "hasjump", ())) | \
    frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
_COND_JUMPS = {"POP_JUMP_IF_TRUE": "JUMP_IF_TRUE_OR_POP",
               "POP_JUMP_IF_FALSE": "JUMP_IF_FALSE_OR_POP"}
_BUILDS = frozenset(("BUILD_LIST", "BUILD_SET", "BUILD_MAP"))


class Op(NamedTuple):
    """One instruction as the scan sees it."""
    opname: str
    arg: Optional[int]
    argval: Any
    jump: bool                  # a jump (conditional or not, FOR_ITER too)
    target: Optional[int]       # index (in the list) of the op a jump goes to
    is_jump_target: bool
    effect: Optional[int]       # stack effect when not jumping (None: unknown)


class _Raw:
    """An op being normalized: the offsets it stands for, its jump target offset."""
    __slots__ = ("opname", "arg", "argval", "jump_to", "offsets", "labelled", "effect")

    def __init__(self, opname: str, arg: Optional[int], argval: Any, jump_to: Optional[int],
                 offsets: List[int], labelled: bool, effect: Optional[int]) -> None:
        self.opname, self.arg, self.argval, self.jump_to = opname, arg, argval, jump_to
        self.offsets, self.labelled, self.effect = offsets, labelled, effect

    def absorb(self, other: "_Raw") -> None:
        """`other` (next to this op) is folded into it."""
        self.offsets = self.offsets + other.offsets
        self.labelled = self.labelled or other.labelled
        self.effect = None if self.effect is None or other.effect is None else \
            self.effect + other.effect


def _effect(opcode: int, arg: Optional[int]) -> Optional[int]:
    try:
        return dis.stack_effect(opcode, arg if opcode >= dis.HAVE_ARGUMENT else None,
                                jump=False)
    except ValueError:
        return None


def _raw(ins: dis.Instruction) -> List[_Raw]:
    """The ops of one instruction: superinstructions and BINARY_SLICE split."""
    jump_to = ins.argval if ins.opcode in _JUMP_OPS else None
    parts = _SPLIT.get(ins.opname)
    if parts is not None:
        return [_Raw(name, ins.arg, value, None, [ins.offset] if n == 0 else [],
                     ins.is_jump_target and n == 0, _effect(dis.opmap[name], 0))
                for n, (name, value) in enumerate(zip(parts, ins.argval))]
    if ins.opname == "BINARY_SLICE":    # 3.12: `a[i:j]` as 3.11's BUILD_SLICE, BINARY_SUBSCR
        return [_Raw("BUILD_SLICE", 2, 2, None, [ins.offset], ins.is_jump_target,
                     _effect(dis.opmap["BUILD_SLICE"], 2)),
                _Raw("BINARY_SUBSCR", None, None, None, [], False,
                     _effect(dis.opmap["BINARY_SUBSCR"], None))]
    return [_Raw(_RENAMED.get(ins.opname, ins.opname), ins.arg, ins.argval, jump_to,
                 [ins.offset], ins.is_jump_target, _effect(ins.opcode, ins.arg))]


def _folded(ops: List[_Raw]) -> List[_Raw]:
    """TO_BOOL, EXTENDED_ARG and SET_FUNCTION_ATTRIBUTE folded into their neighbours;
    3.9/3.10's qualified name before MAKE_FUNCTION folded into it, and their call of a
    comprehension counted as 3.11 counts it."""
    out: List[_Raw] = []
    carry: Optional[_Raw] = None
    for k, op in enumerate(ops):
        folded_forward = op.opname in _FOLD_FORWARD and k + 1 < len(ops)
        if _PY39_310 and op.opname == "CALL_FUNCTION" and op.arg == 1 and out and \
                out[-1].opname == "GET_ITER":
            op.arg = 0          # the comprehension's call: its `.0`, as 3.11 counts it
        if _PY39_310 and op.opname == "LOAD_CONST" and k + 1 < len(ops) and \
                ops[k + 1].opname == "MAKE_FUNCTION" and isinstance(op.argval, str) and \
                out and isinstance(out[-1].argval, types.CodeType):
            folded_forward = True
        if folded_forward:
            if carry is None:
                carry = op
            else:
                carry.absorb(op)
            continue
        if carry is not None:
            carry.absorb(op)
            carry.opname, carry.arg, carry.argval, carry.jump_to = \
                op.opname, op.arg, op.argval, op.jump_to
            op, carry = carry, None
        if op.opname in _FOLD_BACK and out:
            out[-1].absorb(op)
            continue
        out.append(op)
    return out


def _static_swaps(ops: List[_Raw]) -> List[_Raw]:
    """3.9/3.10's `a, b = X, Y` (ROT_TWO, or ROT_THREE and ROT_TWO, before stores to locals)
    as 3.11 compiles it: the stores reversed, with no rotation (each store right after what
    it stores when that is the last value, as the scan follows it)."""
    out: List[_Raw] = []
    k = 0
    while k < len(ops):
        n = 2 if ops[k].opname == "ROT_TWO" else 3 if ops[k].opname == "ROT_THREE" and \
            k + 1 < len(ops) and ops[k + 1].opname == "ROT_TWO" else 0
        rot = n - 1
        stores = ops[k + rot:k + rot + n] if n else []
        if n and len(stores) == n and all(s.opname == "STORE_FAST" and not s.labelled
                                          for s in stores) and \
                len({s.argval for s in stores}) == n:
            for r in ops[k + 1:k + rot]:
                ops[k].absorb(r)
            stores = stores[::-1]
            stores[0].offsets = ops[k].offsets + stores[0].offsets
            stores[0].labelled = stores[0].labelled or ops[k].labelled
            out.extend(stores)
            k += rot + n
            continue
        out.append(ops[k])
        k += 1
    return out


def _or_jumps(ops: List[_Raw]) -> List[_Raw]:
    """3.12's COPY 1 / POP_JUMP_IF_X / POP_TOP (`A or B`, `A and B`) as JUMP_IF_X_OR_POP."""
    out: List[_Raw] = []
    k = 0
    while k < len(ops):
        op = ops[k]
        if op.opname == "COPY" and op.arg == 1 and k + 2 < len(ops) and \
                ops[k + 1].opname in _COND_JUMPS and ops[k + 2].opname == "POP_TOP" and \
                not ops[k + 1].labelled and not ops[k + 2].labelled:
            jump = ops[k + 1]
            op.absorb(jump)
            op.absorb(ops[k + 2])
            op.opname, op.arg, op.argval, op.jump_to = \
                _COND_JUMPS[jump.opname], jump.arg, jump.argval, jump.jump_to
            out.append(op)
            k += 3
            continue
        out.append(op)
        k += 1
    return out


def _super_attrs(ops: List[_Raw]) -> List[_Raw]:
    """3.12's LOAD_SUPER_ATTR as 3.11's call of `super` and the attribute of its result; the
    loads of `__class__` and `self` that zero-argument `super()` compiles to are folded in."""
    out: List[_Raw] = []
    for op in ops:
        if op.opname != "LOAD_SUPER_ATTR" or len(out) < 3:
            out.append(op)
            continue
        implicit = out[-2].opname == "LOAD_DEREF" and out[-2].argval == "__class__"
        call = _Raw("CALL", 0 if implicit else 2, None, None, [], False, -2)
        if implicit:
            self_load = out.pop()
            cls_load = out.pop()
            call.offsets = cls_load.offsets + self_load.offsets
            call.labelled = cls_load.labelled or self_load.labelled
            call.effect = 0
        out.append(call)
        out.append(_Raw("LOAD_ATTR", op.arg, op.argval, None, op.offsets, op.labelled, 0))
    return out


def _inlined_comprehensions(ops: List[_Raw]) -> List[_Raw]:
    """3.12's inlined comprehensions (PEP 709) as plain loops: the saves of the loop names
    (LOAD_FAST_AND_CLEAR, the SWAPs around the new list) are folded into GET_ITER, and the
    stores that put the saved values back (after the loop, and in its exception handler) are
    dropped: they bind no new value."""
    out: List[_Raw] = []
    restores: Dict[int, List[str]] = {}     # END_FOR offset of a comprehension: its names
    saved: set = set()                      # every name a comprehension saves
    pending: List[str] = []                 # names still to be put back after an END_FOR
    k = 0
    while k < len(ops):
        op = ops[k]
        if op.opname == "GET_ITER" and k + 1 < len(ops) and \
                ops[k + 1].opname == "LOAD_FAST_AND_CLEAR":
            j, names = k + 1, []
            while j < len(ops) and ops[j].opname == "LOAD_FAST_AND_CLEAR":
                names.append(ops[j].argval)
                j += 1
            while j < len(ops) and (ops[j].opname == "SWAP" or ops[j].opname in _BUILDS):
                j += 1
            if j < len(ops) and ops[j].opname == "FOR_ITER" and ops[j].jump_to is not None:
                for folded in ops[k + 1:j]:
                    op.absorb(folded)
                restores[ops[j].jump_to] = names
                saved.update(names)
                out.append(op)
                k = j
                continue
        if op.opname == "END_FOR" and op.offsets and op.offsets[0] in restores:
            pending = list(restores.pop(op.offsets[0]))
        elif pending and op.opname == "STORE_FAST" and op.argval in pending:
            pending.remove(op.argval)
            out[-1].absorb(op)
            k += 1
            continue
        elif pending and op.opname not in ("SWAP", "POP_TOP", "STORE_FAST"):
            pending = []
        if op.opname == "STORE_FAST" and op.argval in saved and out and \
                out[-1].opname == "SWAP" and _restores_then_reraise(ops, k, saved):
            while ops[k].opname == "STORE_FAST":
                out[-1].absorb(ops[k])
                k += 1
            continue
        out.append(op)
        k += 1
    return out


def _restores_then_reraise(ops: List[_Raw], k: int, saved: set) -> bool:
    """Whether stores of saved names from k lead straight to RERAISE (the exception handler
    of an inlined comprehension)."""
    while k < len(ops) and ops[k].opname == "STORE_FAST" and ops[k].argval in saved:
        k += 1
    return k < len(ops) and ops[k].opname == "RERAISE"


def instructions(code: types.CodeType) -> List[Op]:
    """The instructions of `code` as Python 3.11 would show them to the scan."""
    ops = [r for ins in dis.get_instructions(code) for r in _raw(ins)]
    ops = _folded(ops)
    if _PY39_310:
        ops = _static_swaps(ops)
    if _PY312:
        ops = _super_attrs(_inlined_comprehensions(_or_jumps(ops)))
    index: Dict[int, int] = {}
    for n, op in enumerate(ops):
        for offset in op.offsets:
            index[offset] = n
    return [Op(op.opname, op.arg, op.argval, op.jump_to is not None,
               index.get(op.jump_to) if op.jump_to is not None else None,
               op.labelled, op.effect) for op in ops]
