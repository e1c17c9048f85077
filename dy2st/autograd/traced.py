"""Training steps inside to_static: `loss.backward()`, `p.grad` and `clear_grad()` while a
Program is traced. Each parameter's gradient is held by a GradSlot, a persistable tensor that
reads and writes the parameter's `.grad`, so the traced step accumulates into the gradient the
parameter has when the program runs and leaves the result in `.grad` afterwards, as eager
backward does; optimizers read the symbolic gradient and update parameters through
write_persistable, so the whole step is one Program. Inputs that need a gradient get slots of
their own (traced_inputs.py), bound to each call's tensors."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..runtime import state
from ..runtime.dtype import INEXACT_NUMPY
from ..runtime.ops.grad_kernels import dropped, is_dropped
from ..runtime.program import Program, Variable
from ..runtime.registry import apply
from ..runtime.tensor import Parameter, Tensor
from .engine import GradientError
from .static_api import seed_gradients, trainable_parameters
from .static_backward import append_backward_ops, requires_grad
from .traced_branch import branch_gradients, enclosing, fail, surely_given
from .traced_inputs import (
    InputGrad,
    input_of,
    needing_inputs,
    note_grad_read,
    note_input_grads_used,
    note_own_backward,
    note_slot_write,
)
from .traced_leaves import accumulate_leaf, leaf_grad, traced_leaves
from .traced_reach import (
    accumulate_where,
    forget_presence,
    none_where,
    path_reach,
    presence,
    raise_unless,
)
from .traced_retain import check_not_freed, free_branch


class GradSlot(Tensor):
    """The `.grad` of a tensor, as a persistable the executor reads and writes."""

    __slots__ = ("owner",)

    def __init__(self, owner: Tensor, name: Optional[str] = None) -> None:
        Tensor.__init__(self, owner._value, name=name or (owner.name or "param") + "@GRAD",
                        persistable=True)
        self.owner = owner

    @property
    def _value(self) -> np.ndarray:
        g = getattr(self.owner, "_grad", None)
        if g is not None:
            return g._value
        v = self.owner._value
        # read as zeros; written back unchanged (a path that computed no gradient), it
        # leaves `.grad` None, as eager code does
        return dropped(v.shape, v.dtype)

    @_value.setter
    def _value(self, value: np.ndarray) -> None:
        owner = getattr(self, "owner", None)
        if owner is None:          # Tensor.__init__ sets the value before the owner exists
            return
        if is_dropped(value):      # clear_grad(set_to_zero=False) ran last in the step
            owner._grad = None
            return
        owner._grad = Tensor(np.asarray(value, dtype=owner._value.dtype))


class InputGradSlot(GradSlot):
    """The `.grad` of an input of the traced function: its owner is each call's tensor
    (bound by the caller before the program runs, traced_inputs.bind_input_grads)."""

    __slots__ = ("info",)

    def __init__(self, info: InputGrad) -> None:
        GradSlot.__init__(self, info.tensor, name=info.leader + "@GRAD")
        self.info = info


def _slots(program: Program) -> dict:
    return program.__dict__.setdefault("grad_slots", {})


def slot_of(program: Program, tensor: Tensor) -> GradSlot:
    slots = _slots(program)
    slot = slots.get(id(tensor))
    if slot is None:
        slot = slots[id(tensor)] = GradSlot(tensor)
    return slot


def _input_slot(program: Program, info: InputGrad) -> GradSlot:
    """The slot of an input (shared by the feeds that are one tensor), keyed by its feed name."""
    slots = _slots(program)
    slot = slots.get(info.leader)
    if slot is None:
        slot = slots[info.leader] = InputGradSlot(info)
        var = program.capture_tensor(slot)
        var._shape = program.global_block().vars[info.leader]._shape   # unknown dims stay so
    return slot


def traced_grad(tensor: Any, optional: bool = False) -> Optional[Any]:
    """`tensor.grad` while a Program is traced: the symbolic gradient once the trace computed
    one, else the value the tensor has now (None when it has none). An input of the traced
    function reads the `.grad` its call's tensor has when the program runs. A gradient that a
    tensor `if` leaves None on some paths only is, when `optional` (converted code reads it),
    a value flagged None on those paths (`is None` tests the flag, other reads fail there as
    eager's would); else it is refused."""
    program = state.current_program()
    if isinstance(tensor, Variable):
        info = input_of(program, tensor) if program is not None else None
        if info is None:        # not a leaf (or a new one): eager keeps no gradient for it
            return None if program is None else leaf_grad(program, tensor)
        note_input_grads_used(program)
        key = info.leader
        if key not in _slots(program) and not info.has_grad:
            return None
        slot = _input_slot(program, info)
    else:
        key = id(tensor)
        if program is None:
            return getattr(tensor, "_grad", None)
        slot = _slots(program).get(key)
        if slot is None:
            # the gradient the tensor has when the program runs (not the one it has now),
            # and whether it has one decides the program (note_grad_read)
            note_grad_read(program, tensor)
            if getattr(tensor, "_grad", None) is None:
                return None
            slot = slot_of(program, tensor)
    why = _none_on_some_paths(program, key)
    if why is not None:
        if not optional:
            raise GradientError(why)
        return _flagged(program, program.capture_tensor(slot))
    if optional and presence(program, key) is not None:
        # converted code may test `.grad is None`; library code asks grad_flag (an optimizer)
        return _flagged(program, program.capture_tensor(slot))
    if key in _dropped(program):
        return None
    return program.capture_tensor(slot)


def _flagged(program: Program, value: Variable) -> Variable:
    """A copy of a gradient slot's value that stands for None where the slot holds the dropped
    gradient (the path left `.grad` None)."""
    message = ("`.grad` is None here: the tensor had no gradient on the path the tensor `if` "
               "took (its branch that ran backward() was not taken, or it ran "
               "clear_grad(set_to_zero=False)); test `.grad is None` before using it")
    return none_where(program, value, apply("grad_present", [value]), message)


def _dropped(program: Program) -> set:
    """keys of the slots whose gradient the trace has dropped (and not computed again)."""
    return program.__dict__.setdefault("dropped_grads", set())


def traced_clear_grad(tensor: Any, set_to_zero: bool = True) -> None:
    """`clear_grad` in a traced step: the program writes the cleared gradient (zeros), or with
    set_to_zero=False the dropped one, which leaves `.grad` None after the run."""
    program = state.current_program()
    if isinstance(tensor, Variable):
        info = input_of(program, tensor)
        if info is None:
            return
        note_input_grads_used(program)
        if info.leader not in _slots(program) and not info.has_grad:
            return              # eager: a tensor without a gradient keeps none
        key, slot, owner = info.leader, _input_slot(program, info), tensor
    else:
        key, slot, owner = id(tensor), slot_of(program, tensor), program.capture_tensor(tensor)
    chain = enclosing(program, "clear_grad()")     # refused in a loop body, before the write
    # (a program that only clears gradients stays one node of the eager tape: later eager
    # code may still differentiate what it computed)
    cleared_value = apply("grad_clear", [owner], {"set_to_zero": bool(set_to_zero)})
    program.record_persistable_write(slot, cleared_value)
    note_slot_write(program, key)
    if not chain:
        forget_presence(program, key)
    if set_to_zero:
        _dropped(program).discard(key)
    else:
        _dropped(program).add(key)
        if chain:           # None on this path only
            _dropped_in_branch(program)[key] = chain[0].idx
        else:
            _maybe_none(program).pop(key, None)
            _dropped_in_branch(program).pop(key, None)


def _no_gradient(outputs: List[Variable]) -> GradientError:
    return GradientError(
        f"backward: the tensor (shape {list(outputs[0]._shape)}) does not depend on any tensor "
        "that needs a gradient (stop_gradient=True everywhere); set stop_gradient=False on an "
        "input or use Parameters")


def traced_backward(outputs: List[Variable], grad_tensors: Any,
                    retain_graph: bool = False) -> None:
    program = outputs[0].block.program
    block = program.global_block()
    chain = enclosing(program, "backward()")    # a tensor `if` branch (a loop is refused)
    params = [program.persistables[n] for n in trainable_parameters(program)] + \
        _captured_leaves(program, outputs)
    names = {id(p): program.capture_tensor(p).name for p in params}
    inputs = needing_inputs(program)
    wrt = list(names.values()) + [info.name for info in inputs]
    leaves = traced_leaves(program, wrt, chain)
    wrt += leaves
    note_own_backward(program)
    seeds = seed_gradients(program, outputs, grad_tensors)
    if chain:
        found = branch_gradients(program, chain, outputs, seeds, wrt)
        if found is None:
            fail(chain, _no_gradient(outputs))
            return
        grads, entered = found
        reached = {}
        req = requires_grad(program, block, wrt)
        check_not_freed(program, entered, req, True)
        if not retain_graph:
            free_branch(program, chain[-1].idx, _where(outputs[0]), entered, req)
    else:
        req = requires_grad(program, block, wrt)
        if not any(o.name in req for o in outputs):
            raise _no_gradient(outputs)
        check_not_freed(program, outputs, req, retain_graph)
        # the tensors the outputs depend on along some paths only get a gradient only there
        reached = path_reach(program, outputs, wrt)
        if reached:
            _no_gradient_on_some_paths(program, outputs, wrt, reached)
        grads = append_backward_ops(program, outputs, seeds, wrt)
    for name in leaves:
        if grads.get(name) is not None:
            accumulate_leaf(program, name, grads[name], reached.get(name))
    for p in params:
        g = grads.get(names[id(p)])
        if g is None:
            continue
        slot = slot_of(program, p)
        if chain:
            note_grad_read(program, p)      # whether it had one decides the program
            _branch_write(program, id(p), getattr(p, "_grad", None) is not None, chain)
        _accumulate(program, id(p), slot, g, not chain, reached.get(names[id(p)]))
    if inputs:
        note_input_grads_used(program)
    for leader in dict.fromkeys(info.leader for info in inputs):
        mine = [info.name for info in inputs if info.leader == leader]
        parts = [g for g in map(grads.get, mine) if g is not None]
        if not parts:
            continue
        # one tensor passed as several arguments is reached where any of them is
        flags = [reached.get(n) for n in mine if n in grads]
        hit = None if any(f is None for f in flags) else flags[0]
        for more in flags[1:] if hit is not None else []:
            hit = apply("logical_or", [hit, more])
        g = parts[0]
        for more in parts[1:]:      # one tensor passed as several arguments
            g = apply("add", [g, more])
        info = input_of(program, block.vars[leader])
        if chain:
            _branch_write(program, leader, info.has_grad, chain)
        _accumulate(program, leader, _input_slot(program, info), g, not chain, hit)


def _no_gradient_on_some_paths(program: Program, outputs: List[Variable], wrt: List[str],
                               reached: dict) -> None:
    """Eager's error where the outputs depend on nothing that needs a gradient along the path a
    run takes (each tensor they reach, they reach along some paths only)."""
    block = program.global_block()
    names = {o.name for o in outputs}
    if any(v is None for v in reached.values()) or \
            any(names & requires_grad(program, block, [n]) for n in wrt if n not in reached):
        return      # (a flag of None: reached on every path)
    hit = None
    for flag in reached.values():
        hit = flag if hit is None else apply("logical_or", [hit, flag])
    raise_unless(hit, _no_gradient(outputs))


def _captured_leaves(program: Program, outputs: List[Variable]) -> List[Tensor]:
    """Captured tensors other than Parameters that eager backward gives a `.grad` (a global
    leaf with stop_gradient=False); one computed by eager ops that need a gradient, which the
    program cannot reach, is refused when the outputs depend on it."""
    found = []
    for name, t in list(program.persistables.items()):
        if isinstance(t, Parameter) or isinstance(t, GradSlot) or t.stop_gradient or \
                t._value.dtype not in INEXACT_NUMPY:
            continue
        if getattr(t, "_node", None) is None:
            found.append(t)
            continue
        block = program.global_block()
        if any(o.name in requires_grad(program, block, [name]) for o in outputs):
            raise GradientError(
                f"backward() inside a to_static function: the tensor `{name}` it reads was "
                "computed by eager operations that need a gradient, which the program cannot "
                "reach; call backward() after the function returns, or read a leaf tensor")
    return found


def _accumulate(program: Program, key: Any, slot: GradSlot, g: Variable, top: bool,
                reached: Optional[Variable] = None) -> None:
    """The slot's gradient plus g (where `reached`, when the output reaches it on some paths)."""
    _dropped(program).discard(key)
    if top:                 # a gradient on every path now
        _maybe_none(program).pop(key, None)
        _dropped_in_branch(program).pop(key, None)
    note_slot_write(program, key)
    if reached is not None:
        accumulate_where(program, key, slot, g, reached)
        return
    if top:
        forget_presence(program, key)
    program.record_persistable_write(
        slot, apply("grad_accumulate", [program.capture_tensor(slot), g]))


def _where(v: Variable) -> str:
    """The user's line of the op that computed `v`, for messages."""
    for op in reversed(v.block.ops):
        if v.name in op.outputs and op.origin is not None:
            return f'File "{op.origin.file}", line {op.origin.line}'
    return "in a tensor `if`"


def _maybe_none(program: Program) -> dict:
    """key -> the branch blocks whose backward gave the tensor a `.grad` it had not before
    (None on a path that runs none of them)."""
    return program.__dict__.setdefault("maybe_none_grads", {})


def _dropped_in_branch(program: Program) -> dict:
    """key -> the branch block whose clear_grad(set_to_zero=False) dropped the gradient."""
    return program.__dict__.setdefault("dropped_in_branch", {})


def _branch_write(program: Program, key: Any, had: bool, chain: List[Any]) -> None:
    """A backward in a branch writes the gradient of `key`: when it had none before (or the
    trace dropped it), `.grad` is None after the `if` on the other path."""
    if key in _maybe_none(program):
        _maybe_none(program)[key].add(chain[0].idx)
        return
    known = key in program.__dict__.get("slot_writes", ()) and key not in _dropped(program)
    if had and key not in _dropped(program) or known:
        return
    _maybe_none(program)[key] = {chain[0].idx}


def _none_on_some_paths(program: Program, key: Any) -> Optional[str]:
    """Why a `.grad` read here is None on some paths of a tensor `if` and not others (None when
    it is not). Library code (an optimizer step, which skips a parameter without a gradient)
    cannot take such a value: its reads are refused with this message."""
    branches = _maybe_none(program).get(key)
    dropped = _dropped_in_branch(program).get(key)
    if branches is not None and not surely_given(program, branches):
        return ("`.grad` read by library code (an optimizer step) after a tensor `if` whose "
                "branch ran backward(): the tensor had no gradient before, so `.grad` is None "
                "when that branch is not taken and a tensor when it is, and the step would skip "
                "the parameter only on one path, which one graph cannot hold; call backward() "
                "in both branches or outside the `if`, step inside the branch, or use "
                "full_graph=False (this line then runs eagerly)")
    if dropped is not None and not surely_given(program, {dropped}):
        return ("`.grad` read by library code (an optimizer step) after a tensor `if` whose "
                "branch ran clear_grad(set_to_zero=False): `.grad` is None when that branch is "
                "taken and a tensor when it is not, which one graph cannot hold; use "
                "clear_grad() (zeros) in the branch, or full_graph=False (this line then runs "
                "eagerly)")
    return None
