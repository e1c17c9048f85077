"""`paddle.grad` on Variables: inside a to_static trace it follows eager `paddle.grad` (which
outputs and inputs need a gradient, `allow_unused`, `no_grad_vars`, `create_graph`, a graph an
earlier backward freed); in a static-mode program it is `static.gradients`."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Set

from ..runtime.dtype import INEXACT_NUMPY
from ..runtime.program import Block, Program, Variable, is_to_static_trace
from ..runtime.registry import apply
from ..runtime.tensor import Parameter, Tensor
from .engine import GradientError, unused_input
from .static_api import as_var, gradients, seed_gradients
from .static_backward import append_backward_ops, zeros_like_value
from .traced_branch import branch_gradients, chain_requires_grad, enclosing, fail
from .traced_inputs import note_input_grads_used
from .traced_leaves import traced_leaves
from .traced_reach import none_where, path_reach, raise_unless
from .traced_retain import backward_path, check_not_freed, has_loop, holds_loop


def grad_of_variables(outputs: List[Variable], inputs: List[Any], grad_outputs: Any,
                      create_graph: bool, allow_unused: bool, no_grad_vars: List[Any]
                      ) -> List[Optional[Variable]]:
    program = outputs[0].block.program
    if not is_to_static_trace(program):
        return gradients(outputs, inputs, grad_outputs, no_grad_vars)
    return traced_paddle_grad(program, outputs, inputs, grad_outputs, create_graph,
                              allow_unused, no_grad_vars)


def _leaves_needing(program: Program) -> List[str]:
    """Names of what eager autograd starts from: the inputs with stop_gradient=False and the
    captured tensors that need a gradient (trainable parameters, leaves set so)."""
    names = [info.name for info in program.__dict__["grad_inputs"].values() if info.needs]
    for name, t in program.persistables.items():
        if isinstance(t, Parameter):
            if t.trainable and not t.stop_gradient:
                names.append(name)
        elif isinstance(t, Tensor) and not t.stop_gradient and t._value.dtype in INEXACT_NUMPY:
            names.append(name)
    return names


def needing_gradient(program: Program, chain: List[Block]) -> Set[str]:
    """The names of the traced function whose eager tensors would have stop_gradient=False
    (in the blocks of `chain` too)."""
    # whether an input needs a gradient decides the program: its callers key it by that
    note_input_grads_used(program)
    start = _leaves_needing(program)
    return chain_requires_grad(program, chain, start + traced_leaves(program, start, chain))


def _check_reachable(program: Program, chain: List[Block], outputs: List[Variable],
                     ins: List[Variable], blocked: List[str]) -> None:
    """Refuse a gradient that may also flow through eager operations before the program: an
    input computed by eager ops that need a gradient (a feed that is not a leaf) reaching the
    outputs may depend on any other input, parameter or feed, which the program cannot see."""
    block = program.global_block()
    outs = {o.name for o in outputs}
    computed = [info.name for info in program.__dict__["grad_inputs"].values()
                if info.needs and not info.leaf and info.name not in blocked]
    reaching = [n for n in computed
                if outs & chain_requires_grad(program, chain, [n]).difference(blocked)]
    for v in ins:
        if not (v.name in block.vars and (v.name in program.persistables
                                          or v.name in program.feed_names)):
            continue        # computed in the program: its gradient stays in the program
        others = [n for n in reaching if n != v.name]
        if others:
            raise GradientError(
                f"paddle.grad inside a to_static function: the input `{others[0]}` was computed "
                "by eager operations that need a gradient, and the gradient may flow through "
                "them, which the program cannot reach; call paddle.grad after the function "
                f"returns, or pass a leaf tensor (`{others[0]}.detach()` with "
                "stop_gradient=False)")


def _check_turn(program: Program, chain: List[Block], outputs: List[Variable],
                create_graph: bool) -> None:
    """Inside a tensor loop body the gradient ops run in the body, through this turn's ops and
    those before the loop: refused when the outputs depend on a value the loop carries from
    earlier turns (their ops are not in this turn's graph), or with create_graph=True."""
    bodies = [b for b in chain if b.owner_kind == "while"]
    if not bodies:
        return
    if create_graph:
        raise GradientError(
            "paddle.grad(create_graph=True) inside a tensor loop body of a to_static function "
            "is not supported: the second derivative of a `while` cannot be taken in the same "
            "program; call it after the loop, or use full_graph=False, which runs the loop "
            "eagerly")
    carried = [p for b in bodies for p in b.params if p not in b.captures.values()
               and program.find_var(p).dtype.is_inexact]
    depends = chain_requires_grad(program, chain, carried) if carried else set()
    if any(o.name in depends for o in outputs):
        raise GradientError(
            "paddle.grad() inside a tensor loop body of a to_static function, of an output that "
            "depends on a value the loop carries from earlier turns, is not supported with "
            "full_graph=True: the earlier turns' operations are not in this turn's graph; take "
            "the gradient after the loop, or of values computed in this turn from tensors "
            "before the loop, or use full_graph=False, which runs the loop eagerly")


def traced_paddle_grad(program: Program, outputs: List[Variable], inputs: List[Any],
                       grad_outputs: Any, create_graph: bool, allow_unused: bool,
                       no_grad_vars: List[Any]) -> List[Optional[Variable]]:
    """The gradient ops of `paddle.grad` appended to the traced program, with eager's results:
    None (or eager's error) for an input the outputs do not reach through tensors needing a
    gradient, a gradient that is a constant unless create_graph=True. Like eager paddle.grad
    (Paddle 3.3.1's), it frees nothing, but fails where an earlier backward freed the graph."""
    chain = enclosing(program, "paddle.grad()", loops=True)   # tensor `if`s and loops
    _check_turn(program, chain, outputs, create_graph)
    need = needing_gradient(program, chain)
    for out in outputs:
        if out.name not in need:
            fail(chain, GradientError(
                f"paddle.grad: the tensor (shape {list(out._shape)}) does not depend on any "
                "tensor that needs a gradient (stop_gradient=True everywhere); set "
                "stop_gradient=False on an input or use Parameters"))
            return [zeros_like_value(as_var(program, x)) for x in inputs]
    given = grad_outputs if isinstance(grad_outputs, (list, tuple)) else \
        ([] if grad_outputs is None else [grad_outputs])
    if given and len(given) != len(outputs):
        raise ValueError(f"{len(given)} gradients given for {len(outputs)} outputs")
    ins = [as_var(program, x) for x in inputs]
    blocked = [as_var(program, v).name for v in no_grad_vars]
    if not chain:
        check_not_freed(program, outputs, need.difference(blocked), True)
    _check_reachable(program, chain, outputs, ins, blocked)
    if create_graph and (has_loop(program, backward_path(program, outputs,
                                                         need.difference(blocked)))
                         or chain and holds_loop(program, [op for b in chain for op in b.ops])):
        # the gradient of a `while` reads its turns' values from tapes that carry no
        # gradient, so a second derivative through it would miss terms: refused, not wrong
        raise GradientError(
            "paddle.grad(create_graph=True) inside a to_static function through a tensor loop "
            "is not supported: the second derivative of a `while` cannot be taken in the same "
            "program; call paddle.grad outside the function (the converted call is "
            "differentiable twice) or use full_graph=False, which runs this line eagerly")
    seeds = seed_gradients(program, outputs, grad_outputs)
    wrt = [v.name for v in ins if v.name in need]
    reached = {}
    if chain and wrt:
        found = branch_gradients(program, chain, outputs, seeds, wrt, blocked)
        grads, entered = found if found is not None else ({}, [])
        check_not_freed(program, entered, need.difference(blocked), True)
        if all(b.owner_kind != "while" for b in chain):
            reached = _reach_from_before(program, chain, outputs, wrt)
    else:
        # the inputs the outputs depend on along some paths only (a loop that ran no turn, a
        # branch not taken): eager's gradient is None (or its error) on the others
        reached = path_reach(program, outputs, wrt) if wrt else {}
        grads = append_backward_ops(program, outputs, seeds, wrt, blocked) if wrt else {}
    result = []
    for i, v in enumerate(ins):
        g = grads.get(v.name)
        if g is None:
            if not allow_unused:
                fail(chain, unused_input(i, v._shape))
                g = zeros_like_value(v)         # (the branch raises before reading it)
            else:
                result.append(None)
                continue
        # eager's gradient is a new tensor with no history unless create_graph=True
        g = g if create_graph else apply("detach", [g])
        hit = reached.get(v.name)
        if hit is not None:
            if not allow_unused:
                raise_unless(hit, unused_input(i, v._shape))
            else:
                g = none_where(program, g, hit, _UNREACHED.format(i))
        result.append(g)
    return result


_UNREACHED = ("the gradient {} of paddle.grad(..., allow_unused=True) is None here: the outputs "
              "do not depend on that input along the path this call took (a tensor loop that "
              "ran no turn, a branch not taken); test `is None` before using it")


def _reach_from_before(program: Program, chain: List[Block], outputs: List[Variable],
                       wrt: List[str]) -> Dict[str, Variable]:
    """Inside tensor `if` branches: per input that the outputs reach only through values from
    before the `if`, and those along some paths only (a loop before it that may run no turn),
    whether this run's path does (eager's gradient is None where it does not)."""
    producer = {o: op for b in chain for op in b.ops for o in op.outputs}
    captured = {local: name for b in chain for name, local in b.captures.items()}
    outer: set = set()
    seen: set = set()
    stack = [o.name for o in outputs]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        op = producer.get(name)
        if op is not None:
            stack.extend(op.inputs)
        elif name in captured:
            stack.append(captured[name])
        else:
            outer.add(name)
    block = program.global_block()
    before = [block.vars[n] for n in sorted(outer) if n in block.vars]
    rest = [w for w in wrt if w not in outer]       # (one read in the branch: reached always)
    return path_reach(program, before, rest) if before and rest else {}
