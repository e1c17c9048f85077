"""Training steps inside to_static: `loss.backward()`, `p.grad` and `clear_grad()` while a
Program is traced. Each parameter's gradient is held by a GradSlot, a persistable tensor that
reads and writes the parameter's `.grad`, so the traced step accumulates into the gradient the
parameter has when the program runs and leaves the result in `.grad` afterwards, as eager
backward does; optimizers read the symbolic gradient and update parameters through
write_persistable, so the whole step is one Program."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..runtime import state
from ..runtime.ops.grad_kernels import cleared, is_dropped
from ..runtime.program import Program, Variable
from ..runtime.registry import apply
from ..runtime.tensor import Tensor
from .engine import GradientError
from .static_api import seed_gradients, trainable_parameters
from .static_backward import append_backward_ops


class GradSlot(Tensor):
    """The `.grad` of a tensor, as a persistable the executor reads and writes."""

    __slots__ = ("owner",)

    def __init__(self, owner: Tensor) -> None:
        Tensor.__init__(self, owner._value, name=(owner.name or "param") + "@GRAD",
                        persistable=True)
        self.owner = owner

    @property
    def _value(self) -> np.ndarray:
        g = getattr(self.owner, "_grad", None)
        if g is not None:
            return g._value
        v = self.owner._value
        return cleared(v.shape, v.dtype)

    @_value.setter
    def _value(self, value: np.ndarray) -> None:
        owner = getattr(self, "owner", None)
        if owner is None:          # Tensor.__init__ sets the value before the owner exists
            return
        if is_dropped(value):      # clear_grad(set_to_zero=False) ran last in the step
            owner._grad = None
            return
        owner._grad = Tensor(np.asarray(value, dtype=owner._value.dtype))


def _slots(program: Program) -> dict:
    return program.__dict__.setdefault("grad_slots", {})


def slot_of(program: Program, tensor: Tensor) -> GradSlot:
    slots = _slots(program)
    slot = slots.get(id(tensor))
    if slot is None:
        slot = slots[id(tensor)] = GradSlot(tensor)
    return slot


def traced_grad(tensor: Tensor) -> Optional[Any]:
    """`tensor.grad` while a Program is traced: the symbolic gradient once the trace computed
    one, else the value the tensor has now (None when it has none)."""
    program = state.current_program()
    slot = _slots(program).get(id(tensor)) if program is not None else None
    if slot is None:
        return getattr(tensor, "_grad", None)
    if id(tensor) in _dropped(program):
        return None
    return program.capture_tensor(slot)


def _dropped(program: Program) -> set:
    """ids of the tensors whose gradient the trace has dropped (and not computed again)."""
    return program.__dict__.setdefault("dropped_grads", set())


def traced_clear_grad(tensor: Tensor, set_to_zero: bool = True) -> None:
    """`clear_grad` in a traced step: the program writes the cleared gradient (zeros), or with
    set_to_zero=False the dropped one, which leaves `.grad` None after the run."""
    program = state.current_program()
    cleared = apply("grad_clear", [program.capture_tensor(tensor)],
                    {"set_to_zero": bool(set_to_zero)})
    program.record_persistable_write(slot_of(program, tensor), cleared)
    if set_to_zero:
        _dropped(program).discard(id(tensor))
    else:
        _dropped(program).add(id(tensor))


def traced_backward(outputs: List[Variable], grad_tensors: Any) -> None:
    program = outputs[0].block.program
    if state.current_block() is not program.global_block():
        raise GradientError("backward() inside a tensor `if` or loop body of a to_static "
                            "function is not supported; call it at the top level")
    params = [program.persistables[n] for n in trainable_parameters(program)]
    if not params:
        raise GradientError("backward(): the loss does not depend on any trainable parameter")
    seeds = seed_gradients(program, outputs, grad_tensors)
    names = {id(p): program.capture_tensor(p).name for p in params}
    grads = append_backward_ops(program, outputs, seeds, list(names.values()))
    for p in params:
        g = grads.get(names[id(p)])
        if g is None:
            continue
        slot = slot_of(program, p)
        _dropped(program).discard(id(p))
        program.record_persistable_write(
            slot, apply("grad_accumulate", [program.capture_tensor(slot), g]))
