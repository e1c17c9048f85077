"""Static gradient APIs: `static.append_backward`, `static.gradients`, and `paddle.grad` /
`backward()` called on Variables while a Program is built."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from ..runtime import ops, state
from ..runtime.program import Program, Variable
from ..runtime.tensor import Parameter, Tensor
from .static_backward import append_backward_ops


def as_var(program: Program, x: Any) -> Variable:
    if isinstance(x, Variable):
        return x
    if isinstance(x, Tensor):
        return program.capture_tensor(x)
    if isinstance(x, str):
        v = program.find_var(x)
        if v is None:
            raise KeyError(f"no variable named {x!r} in the program")
        return v
    raise TypeError(f"expected a Variable, a Tensor or a name, got {type(x).__name__}")


def _list(x: Any) -> List[Any]:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def seed_gradients(program: Program, targets: List[Variable], given: Any) -> List[Variable]:
    """One seed per target: the given gradient (a Variable or a tensor), ones where None."""
    given = _list(given)
    seeds = []
    for i, t in enumerate(targets):
        g = given[i] if i < len(given) else None
        seeds.append(ops.ones_like(t) if g is None else as_var(program, g))
    return seeds


def trainable_parameters(program: Program) -> List[str]:
    """Names of the program's persistables that are trainable Parameters needing gradients."""
    return [name for name, t in program.persistables.items()
            if isinstance(t, Parameter) and t.trainable and not t.stop_gradient]


def gradients(targets: Any, inputs: Any, target_gradients: Any = None,
              no_grad_set: Any = None) -> List[Optional[Variable]]:
    """Append gradient ops; returns d(sum targets)/d(input) for each input (None when unused);
    no gradient flows through the variables of `no_grad_set` (Variables or names)."""
    targets = _list(targets)
    if not targets:
        raise ValueError("gradients: no targets given")
    program = targets[0].block.program
    with _building(program):
        targets = [as_var(program, t) for t in targets]
        ins = [as_var(program, x) for x in _list(inputs)]
        blocked = [as_var(program, v).name for v in _list(no_grad_set)]
        seeds = seed_gradients(program, targets, target_gradients)
        grads = append_backward_ops(program, targets, seeds, [v.name for v in ins], blocked)
    return [grads[v.name] for v in ins]


def append_backward(loss: Variable, parameter_list: Optional[Sequence[Any]] = None,
                    no_grad_set: Any = None, callbacks: Any = None,
                    checkpoints: Any = None) -> List[Tuple[Variable, Variable]]:
    """Append the gradient ops of `loss`; returns (parameter, gradient) pairs for the
    parameters it depends on (every trainable parameter when parameter_list is None)."""
    program = loss.block.program
    with _building(program):
        names = ([as_var(program, p).name for p in parameter_list] if parameter_list is not None
                 else trainable_parameters(program))
        skip = {(as_var(program, v).name if not isinstance(v, str) else v)
                for v in _list(no_grad_set)}
        names = [n for n in names if n not in skip]
        grads = append_backward_ops(program, [loss], seed_gradients(program, [loss], None), names)
    return [(program.find_var(n), grads[n]) for n in names if grads[n] is not None]


class _building:
    """The program's global block is the current block while gradient ops are appended."""

    def __init__(self, program: Program) -> None:
        self.program = program

    def __enter__(self) -> None:
        state.push_program(self.program)
        state.push_block(self.program.global_block())

    def __exit__(self, *exc: Any) -> None:
        state.pop_block()
        state.pop_program()


def traced_backward(outputs: List[Variable], grad_tensors: Any, retain_graph: bool = False
                    ) -> None:
    """`loss.backward()` while to_static traces: the gradients of every trainable parameter
    the trace reads, and of the inputs that need one, become symbolic values that `p.grad`,
    `x.grad` and optimizers use."""
    # circle: autograd.traced imports this module at import time
    from .traced import traced_backward as impl
    impl(outputs, grad_tensors, retain_graph)
