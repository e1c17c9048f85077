"""`loss.backward()` inside a tensor `if` branch of a traced function: its gradient ops run in
the branch (through the branch's ops and those of the enclosing blocks before it), so `.grad`
changes only on the path taken, as eager's does: the new gradients are the branch's pending
writes of the gradient slots, which the `if` merges (runtime/control_flow/cond.py). A backward
inside a tensor loop body is refused: a gradient slot cannot be updated inside a loop
(`paddle.grad`, which updates none, runs there: traced_paddle_grad.py)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..runtime import state
from ..runtime.program import Block, Program, Variable
from ..runtime.side_effects import RAISABLE, raise_when_run
from .engine import GradientError, UnusedInputError
from .static_backward import RootScope, accumulate, backprop, requires_grad

# a program raising eager's gradient errors raises their own types (runtime/side_effects.py)
RAISABLE.setdefault("GradientError", GradientError)
RAISABLE.setdefault("UnusedInputError", UnusedInputError)


def enclosing(program: Program, what: str, loops: bool = False) -> List[Block]:
    """The sub-blocks being traced, innermost first (empty at the top level); `what` (a
    backward or a clear_grad) inside a tensor loop body is refused unless `loops`."""
    chain = []
    b = state.current_block()
    while b is not None and b.idx != 0:
        chain.append(b)
        b = b.parent
    for b in chain:
        if b.owner_kind == "while" and not loops:
            raise GradientError(
                f"{what} inside a tensor loop body of a to_static function is not supported "
                "with full_graph=True: a loop cannot update `.grad` on each turn in one graph; "
                "move it out of the loop (one backward() after it, on the sum of the turns' "
                "losses), make the loop a Python loop, or use full_graph=False, which runs the "
                "loop eagerly")
    return chain


def fail(chain: List[Block], exc: BaseException) -> None:
    """Eager's error: raised now at the top level; inside a tensor `if` branch an op raises it
    when the program takes the branch (eager raises only then), and the trace goes on."""
    if not chain:
        raise exc
    raise_when_run(exc)


def chain_requires_grad(program: Program, chain: List[Block], start: Sequence[str]) -> Set[str]:
    """requires_grad from the global names `start`, through the blocks of `chain` too."""
    req = requires_grad(program, program.global_block(), start)
    for b in reversed(chain):       # outermost first: a branch's captures of needing values
        inner = [local for outer, local in b.captures.items() if outer in req]
        req |= requires_grad(program, b, inner + [n for n in start if n in b.vars])
    return req


def branch_gradients(program: Program, chain: List[Block], outputs: Sequence[Variable],
                     seeds: Sequence[Variable], wrt: Sequence[str], blocked: Sequence[str] = ()
                     ) -> Optional[Tuple[Dict[str, Optional[Variable]], List[str]]]:
    """The gradients of sum(output * seed) with respect to the names `wrt`, computed by ops in
    the innermost block of `chain` (no gradient flows through `blocked`), and the names before
    the `if` the gradient went through; None when no output needs a gradient."""
    top = program.global_block()
    req = chain_requires_grad(program, chain, wrt).difference(blocked)
    if not any(o.name in req for o in outputs):
        return None
    grads: Dict[str, Any] = {}
    for t, s in zip(outputs, seeds):
        if t.name in req:
            accumulate(grads, t.name, s)
    here = chain[0]
    # gradient ops may read values one path never assigned (see append_backward_ops)
    maybe_undefined, program.maybe_undefined = program.maybe_undefined, {}
    entered: List[str] = []
    try:
        for b in chain + [top]:
            scope = RootScope(b)
            scope.grad = here       # every gradient op runs in the branch, where the loss is
            backprop(scope, list(b.ops), grads, req)
            for outer, local in list(b.captures.items()):
                g = grads.get(local)
                if g is not None:
                    accumulate(grads, outer, g)
                    if b is chain[-1]:
                        entered.append(outer)
    finally:
        program.maybe_undefined = maybe_undefined
    return {n: grads.get(n) for n in wrt}, entered


def gives_grad(program: Program, idx: int, blocks: Set[int]) -> bool:
    """Whether every path through block `idx` runs a backward of one of `blocks`: it is one,
    or it holds a tensor `if` both of whose branches do."""
    if idx in blocks:
        return True
    for op in program.blocks[idx].ops:
        if op.type == "cond" and gives_grad(program, op.attrs["true_block"], blocks) and \
                gives_grad(program, op.attrs["false_block"], blocks):
            return True
    return False


def surely_given(program: Program, blocks: Set[int]) -> bool:
    """Whether, where the trace is now, a backward of one of the branch `blocks` has run on
    every path: the trace is inside one, or an enclosing block holds an `if` (already merged)
    both of whose branches ran one."""
    b = state.current_block()
    while b is not None:
        if gives_grad(program, b.idx, blocks):
            return True
        b = b.parent
    return False
