"""Differentiable backward of a to_static call (create_graph=True): the call's joint program
(forward then gradient ops) replayed op by op through the registry with the tape recording, so
its gradients are themselves differentiable to any order."""
from __future__ import annotations

from typing import Any, Dict, List, Sequence, Set

import numpy as np

from ..autograd.rules import GradientError
from ..autograd.static_backward import requires_grad
from ..autograd.tape import record
from ..runtime.ops import concat, stack
from ..runtime.passes.effects import EFFECTS, NONDETERMINISTIC
from ..runtime.program import Block, Operator, Program
from ..runtime.registry import OPS, apply
from ..runtime.tensor import Tensor


class JointProgram:
    """A to_static call's program before it was split in forward and backward: its feeds (the
    inputs), the seed feeds (one per differentiable output), the forward values the fast backward
    read (residuals, saved by the forward run) and the gradient fetches. Kept only to replay."""

    def __init__(self, program: Program, split: int, inputs: List[str], seeds: List[str],
                 residuals: List[str], fetch: List[str], wrt: List[str]) -> None:
        self.program = program
        self.split = split
        self.inputs = inputs
        self.seeds = seeds
        self.residuals = residuals
        self.fetch = fetch
        self.wrt = wrt
        block = program.global_block()
        self.req = requires_grad(program, block, wrt)
        saved = set(residuals)
        # forward ops whose values are taken from the forward run instead of being computed
        # again: deterministic values that do not depend on any tensor needing a gradient, and
        # random draws (their values must be the ones the call used)
        self.reuse: Set[int] = set()
        self.draws: Set[int] = set()
        for op in block.ops[:split]:
            if op.type in NONDETERMINISTIC:
                self.draws.add(id(op))
            elif op.type not in EFFECTS and op.outputs and all(
                    o in saved and o not in self.req and _dense(program, o) for o in op.outputs):
                self.reuse.add(id(op))
        # a draw that depends on a tensor needing a gradient (dropout) is recorded: it reads its
        # inputs; the others read nothing
        taken = self.reuse | {i for i in self.draws if not _draw_recorded(block, i, self.req)}
        self.live = _live_ops(block.ops, split, fetch, taken)


def snapshot(program: Program) -> Program:
    """A copy of program's blocks and ops that later passes on program leave alone (they edit
    ops and blocks in place), sharing its variables and tensors: much cheaper than a clone, so
    a training call that never asks for create_graph pays little for keeping it."""
    new = Program()
    new.blocks = []
    for b in program.blocks:
        nb = Block(new, b.idx, b.parent_idx)
        nb.vars = dict(b.vars)
        nb.ops = [Operator(op.type, list(op.inputs), list(op.outputs), dict(op.attrs), op.origin)
                  for op in b.ops]
        nb.params, nb.results = list(b.params), list(b.results)
        new.blocks.append(nb)
    new.persistables = dict(program.persistables)
    new.absent_masks = set(program.absent_masks)
    return new


def _draw_recorded(block: Block, op_id: int, req: Set[str]) -> bool:
    op = next(o for o in block.ops if id(o) == op_id)
    return any(o in req for o in op.outputs)


def random_outputs(block: Block, split: int) -> List[str]:
    """The values of the forward's random draws, which a replay must read from the forward run."""
    return [o for op in block.ops[:split] if op.type in NONDETERMINISTIC for o in op.outputs]


def _dense(program: Program, name: str) -> bool:
    v = program.find_var(name)
    return v is not None and v.kind == "dense"


def _live_ops(ops: Sequence[Operator], split: int, fetch: List[str], taken: Set[int]) -> Set[int]:
    """ids of the global ops the gradient fetches need (ops whose values are taken from the
    forward run read nothing)."""
    needed = set(fetch)
    live: Set[int] = set()
    for i in range(len(ops) - 1, -1, -1):
        op = ops[i]
        if not any(o in needed for o in op.outputs) and not (i >= split and not op.outputs):
            continue
        live.add(id(op))
        if id(op) not in taken:
            needed.update(op.inputs)
    return live


def replay(joint: JointProgram, inputs: Sequence[Tensor], saved: Sequence[Any],
           seeds: Sequence[Tensor]) -> List[Any]:
    """The gradient fetches, computed from the input tensors (as recorded on the tape), the
    saved residual arrays and the seed tensors, with every op recorded."""
    program = joint.program
    env: Dict[str, Any] = dict(program.persistables)
    env.update(zip(joint.inputs, inputs))
    env.update(zip(joint.seeds, seeds))
    saved_of = dict(zip(joint.residuals, saved))
    for i, op in enumerate(program.global_block().ops):
        if id(op) not in joint.live:
            continue
        if id(op) in joint.reuse:
            for o in op.outputs:
                env[o] = Tensor(np.asarray(saved_of[o]))
        elif id(op) in joint.draws:
            _replay_draw(op, env, saved_of, joint.req)
        else:
            _run_op(program, op, env)
    return [env[n] for n in joint.fetch]


def _replay_draw(op: Operator, env: Dict[str, Any], saved_of: Dict[str, Any],
                 req: Set[str]) -> None:
    """A random op as recorded with the values the forward drew (not drawn again)."""
    outs = tuple(Tensor(np.asarray(saved_of[o])) for o in op.outputs)
    ins = [env.get(n) for n in op.inputs]
    if any(o in req for o in op.outputs) and any(isinstance(x, Tensor) and not x.stop_gradient for x in ins):
        record(OPS[op.type], ins, op.attrs, outs if len(outs) > 1 else outs[0])
        _name_origin(outs, op)
    env.update(zip(op.outputs, outs))


def _run_block(program: Program, block: Block, args: Sequence[Any]) -> List[Any]:
    env = dict(zip(block.params, args))
    for op in block.ops:
        if op.type in NONDETERMINISTIC:
            raise GradientError(
                f"create_graph=True through a to_static call: the random op {op.type!r}"
                f"{_where(op)} runs inside a tensor if or loop, and its gradient cannot be "
                "replayed with the values it drew; compute the second derivative eagerly")
        _run_op(program, op, env)
    return [env[r] for r in block.results]


def _run_op(program: Program, op: Operator, env: Dict[str, Any]) -> None:
    try:
        ins = [env[n] for n in op.inputs]
    except KeyError as e:
        raise GradientError(f"create_graph=True through a to_static call: the value {e} that "
                            f"{op.type}{_where(op)} reads is not available") from None
    kind = op.type
    if kind == "cond":
        a = op.attrs
        block = program.blocks[a["true_block"] if _truth(ins[0]) else a["false_block"]]
        outs = _run_block(program, block, ins[1:])
    elif kind == "while":
        n = op.attrs["n_loop_vars"]
        cb, bb = program.blocks[op.attrs["cond_block"]], program.blocks[op.attrs["body_block"]]
        carried, captured = list(ins[:n]), list(ins[n:])
        while _truth(_run_block(program, cb, carried + captured)[0]):
            carried = _run_block(program, bb, carried + captured)
        outs = carried
    elif kind == "where" and op.outputs[0] in program.absent_masks:
        # a gradient absent on this run: zeros that lead back to none of its ops, whose
        # `0 * inf` a second-order gradient would meet (eager never ran them)
        outs = [ins[1] if _truth(ins[0]) else Tensor(np.zeros_like(np.asarray(ins[1]._value)))]
    elif any(type(x) is list for x in ins) or kind in _ARRAY_OPS:
        outs = [_array_op(op, ins)]
    else:
        out = apply(kind, ins, op.attrs)
        outs = list(out) if type(out) is tuple else [out]
        _name_origin(outs, op)
    env.update(zip(op.outputs, outs))


def _truth(v: Any) -> bool:
    return bool(np.asarray(v._value if isinstance(v, Tensor) else v))


def _index(i: Any) -> int:
    return int(np.asarray(i._value if isinstance(i, Tensor) else i).reshape(()))


# Arrays hold the recorded tensors themselves, so a value read back carries its tape.
_ARRAY_OPS = {
    "create_array": lambda op, ins: [],
    "tape_create": lambda op, ins: [],
    "array_write": lambda op, ins: _write(ins[0], _index(ins[1]), ins[2]),
    "tape_push": lambda op, ins: ins[0].append(ins[1]) or ins[0],
    "array_read": lambda op, ins: ins[0][_index(ins[1])],
    "tape_read": lambda op, ins: ins[0][_index(ins[1])],
    "array_length": lambda op, ins: Tensor(np.array(len(ins[0]), dtype=np.int64)),
    "array_stack": lambda op, ins: stack(ins[0], **op.attrs),
    "array_concat": lambda op, ins: concat(ins[0], **op.attrs),
}


def _write(array: List[Any], i: int, x: Any) -> List[Any]:
    if i == len(array):
        array.append(x)
    else:
        array[i] = x
    return array


def _array_op(op: Operator, ins: List[Any]) -> Any:
    fn = _ARRAY_OPS.get(op.type)
    if fn is None:
        raise GradientError(
            f"create_graph=True through a to_static call: the tensor-array op {op.type!r}"
            f"{_where(op)} has no second-order replay; compute the second derivative eagerly")
    return fn(op, ins)


def _name_origin(outs: Sequence[Any], op: Operator) -> None:
    """Recorded nodes name the user's line the op came from (errors of a later backward)."""
    if op.origin is None:
        return
    for t in outs:
        node = getattr(t, "_node", None)
        if node is not None and node.origin is not op.origin:
            node.origin = op.origin


def _where(op: Operator) -> str:
    o = op.origin
    return f' (File "{o.file}", line {o.line}: {o.source})' if o is not None else ""
