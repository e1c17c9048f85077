"""Static autodiff: append to a Program the ops that compute gradients, by running each op's
gradient rule on Variables in reverse order. `cond` and `while` have their own rules
(control_flow_grad.py); a Scope says how a forward value is reached from the gradient ops."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence, Set

from ..runtime import ops
from ..runtime.passes.loop_tapes import minimize_tapes
from ..runtime.program import Block, Operator, Program, Variable, block_guard
from ..runtime.registry import apply
from .absent_gradients import mask_untaken_paths
from .engine import GradientError
from .rules import KEEPS_NONE, NO_GRAD, RULES, VjpContext, mark_no_grad

# ops that only gradient programs contain: residual tapes carry no gradient
mark_no_grad("tape_create", "tape_push", "tape_read", "shape_holder")


def is_differentiable_value(v: Variable) -> bool:
    """Float tensors and tensor arrays of float items (their gradient is an array too)."""
    return v.dtype.is_inexact and (v.kind == "dense" or not _is_tape(v))


def _is_tape(v: Variable) -> bool:
    return v.kind == "array" and isinstance(v.elem, tuple) and len(v.elem) == 4


def zeros_like_value(v: Variable) -> Variable:
    """The zero gradient of v: zeros, or an empty array for a tensor array."""
    if v.kind == "array":
        return ops.create_array(v.dtype)
    return ops.zeros_like(v)


class RootScope:
    """The global block: gradient ops go after the forward ops and read forward values directly."""

    def __init__(self, block: Block) -> None:
        self.fwd = block
        self.grad = block

    def resolve(self, v: Variable) -> Variable:
        return v


def requires_grad(program: Program, block: Block, start: Iterable[str]) -> Set[str]:
    """Names whose value depends differentiably on the names in `start` (sub-blocks included)."""
    req = set(start)
    _mark(program, block, req)
    return req


def _mark(program: Program, block: Block, req: Set[str]) -> None:
    for op in block.ops:
        if op.type == "cond":
            tb, fb = program.blocks[op.attrs["true_block"]], program.blocks[op.attrs["false_block"]]
            for b in (tb, fb):
                for p, s in zip(b.params, op.inputs[1:]):
                    if s in req:
                        req.add(p)
                _mark(program, b, req)
            for i, o in enumerate(op.outputs):
                if (tb.results[i] in req or fb.results[i] in req) and \
                        is_differentiable_value(program.find_var(o)):
                    req.add(o)
        elif op.type == "while":
            _mark_while(program, op, req)
        elif op.type in RULES and any(n in req for n in op.inputs):
            for o in op.outputs:
                if is_differentiable_value(program.find_var(o)):
                    req.add(o)


def _mark_while(program: Program, op: Operator, req: Set[str]) -> None:
    cb, bb = program.blocks[op.attrs["cond_block"]], program.blocks[op.attrs["body_block"]]
    n = op.attrs["n_loop_vars"]
    while True:
        before = len(req)
        for b in (cb, bb):
            for p, s in zip(b.params, op.inputs):
                if s in req:
                    req.add(p)
        for j in range(n):
            if bb.params[j] in req:
                req.add(cb.params[j])
        _mark(program, bb, req)
        for j in range(n):
            if bb.results[j] in req and is_differentiable_value(program.find_var(bb.params[j])):
                req.add(bb.params[j])
                req.add(cb.params[j])
        if len(req) == before:
            break
    for j, o in enumerate(op.outputs[:n]):
        if bb.params[j] in req:
            req.add(o)


def accumulate(grads: Dict[str, Any], name: str, g: Any) -> None:
    old = grads.get(name)
    if old is None:
        grads[name] = g
    elif g.kind == "array":
        grads[name] = apply("array_grad_add", [old, g])
    else:
        grads[name] = ops.add(old, g)


def backprop(scope: Any, fwd_ops: Sequence[Operator], grads: Dict[str, Any], req: Set[str]) -> None:
    """Append, in scope.grad (the current block), the gradient ops of fwd_ops in reverse order;
    `grads` maps forward names to their gradient Variables and is updated in place."""
    # circle: autograd.control_flow_grad imports this module at import time
    from .control_flow_grad import cond_grad, while_grad
    program = scope.fwd.program
    for op in reversed(fwd_ops):
        out_grads = [grads.get(o) for o in op.outputs]
        if all(g is None for g in out_grads):
            continue
        inputs = list(op.inputs)
        needs = [n in req and is_differentiable_value(program.find_var(n)) for n in inputs]
        if not any(needs) or op.type in NO_GRAD:
            continue
        if op.type == "cond":
            in_grads = cond_grad(scope, op, inputs, out_grads, needs, req)
        elif op.type == "while":
            in_grads = while_grad(scope, op, inputs, out_grads, needs, req)
        else:
            in_grads = _op_grad(scope, op, inputs, out_grads, needs)
        for name, g, need in zip(inputs, in_grads, needs):
            if g is not None and need:
                accumulate(grads, name, g)


def _op_grad(scope: Any, op: Operator, inputs: List[str], out_grads: List[Any],
             needs: List[bool]) -> Sequence[Any]:
    program = scope.fwd.program
    rule = RULES.get(op.type)
    if rule is None:
        where = (f' (File "{op.origin.file}", line {op.origin.line}: {op.origin.source})'
                 if op.origin is not None else "")
        raise GradientError(f"op {op.type!r}{where} has no gradient rule: it cannot be "
                            "differentiated (detach its input or compute it under no_grad)")
    ins = [scope.resolve(program.find_var(n)) for n in inputs]
    outs = [scope.resolve(program.find_var(n)) for n in op.outputs]
    keep_none = op.type in KEEPS_NONE
    gs = [g if g is not None or keep_none else zeros_like_value(o)
          for g, o in zip(out_grads, outs)]
    block = scope.grad
    start = len(block.ops)
    result = rule.fn(VjpContext(op.type, ins, outs, op.attrs, needs), *gs)
    for new in block.ops[start:]:
        if new.origin is None or new.origin is not op.origin:
            new.origin = op.origin      # errors in gradient ops name the forward line
    if len(result) != len(inputs):
        raise GradientError(f"the gradient rule of {op.type} returned {len(result)} gradients "
                            f"for {len(inputs)} inputs")
    return result


def append_backward_ops(program: Program, targets: Sequence[Variable], seeds: Sequence[Variable],
                        wrt: Sequence[str], blocked: Iterable[str] = ()
                        ) -> Dict[str, Optional[Variable]]:
    """Append to the global block the ops computing the gradient of sum(target * seed) with
    respect to each name in `wrt` (None where a name does not reach any target); no gradient
    flows through the `blocked` names (an op reading one gives it none)."""
    block = program.global_block()
    req = requires_grad(program, block, wrt).difference(blocked)
    grads: Dict[str, Any] = {}
    # gradient ops may read forward values that one path never assigned (zeros of a returned
    # value, residuals): only the forward's own reads must check that they were assigned
    maybe_undefined, program.maybe_undefined = program.maybe_undefined, {}
    try:
        with block_guard(block):
            # before the seeds: the add of two seeds of a value returned twice is a gradient op
            forward = {id(op) for op in block.ops}
            for t, s in zip(targets, seeds):
                if t.name in req:
                    accumulate(grads, t.name, s)
            first_gradient_block = len(program.blocks)
            backprop(RootScope(block), list(block.ops), grads, req)
            # the gradient ops follow the last forward op (tapes go in before forward loops)
            start = 1 + max((i for i, op in enumerate(block.ops) if id(op) in forward),
                            default=-1)
            found = [None if grads.get(n) is None else grads[n].name for n in wrt]
            found = mask_untaken_paths(program, [s.name for s in seeds], start, found)
        # loops push per turn only what their gradient loops read, as they read it
        dropped = minimize_tapes(program, first_gradient_block)
        if dropped:
            # circle: autograd.control_flow_grad imports this module at import time
            from .control_flow_grad import forget_tapes
            forget_tapes(program, dropped)
    finally:
        program.maybe_undefined = maybe_undefined
    return {n: None if g is None else program.find_var(g) for n, g in zip(wrt, found)}
