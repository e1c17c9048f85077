"""The inputs of a traced function whose `.grad` a traced `backward()` writes or the function
reads: which feed stands for which tensor of the call, and what of each call's tensors decides
the program (whether it needs a gradient, is a leaf, has a gradient, is another input too)."""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..runtime.dtype import INEXACT_NUMPY
from ..runtime.origin import Origin, user_origin
from ..runtime.program import Program, Variable
from ..runtime.tensor import Tensor
from .engine import GradientError


class InputGrad(NamedTuple):
    """One tensor input of a trace."""
    name: str           # its feed
    index: int          # its position among the feeds
    tensor: Tensor      # the tensor the trace was given
    needs: bool         # stop_gradient=False (and a float dtype)
    leaf: bool          # not computed by eager ops that need a gradient
    has_grad: bool      # its `.grad` was not None
    leader: str         # the feed of the first input that is this very tensor


def _needs(t: Tensor) -> bool:
    return not t.stop_gradient and t._value.dtype in INEXACT_NUMPY


def state_of(t: Any, index: int) -> Tuple[bool, bool, bool, int]:
    """What of one input tensor a program that uses input gradients depends on."""
    return (_needs(t), getattr(t, "_node", None) is None,
            getattr(t, "_grad", None) is not None, index)


def note_inputs(program: Program, inputs: Sequence[Any]) -> None:
    """Record the trace's input tensors, in feed order (other inputs are skipped)."""
    infos: Dict[str, InputGrad] = {}
    first: Dict[int, str] = {}
    for i, (name, t) in enumerate(zip(program.feed_names, inputs)):
        if isinstance(t, Tensor):
            needs, leaf, has_grad, _ = state_of(t, i)
            infos[name] = InputGrad(name, i, t, needs, leaf, has_grad, first.setdefault(id(t), name))
    program.__dict__["grad_inputs"] = infos


def input_of(program: Program, var: Variable) -> Optional[InputGrad]:
    """The input `var` stands for, when it is a feed of the trace (None otherwise)."""
    info = program.__dict__.get("grad_inputs", {}).get(var.name)
    if info is None or program.global_block().vars.get(var.name) is not var:
        return None
    return info


def fed_input(program: Program, tensor: Any) -> Optional[InputGrad]:
    """The input of the trace that `tensor` itself was given as (None when it is no input)."""
    for info in program.__dict__.get("grad_inputs", {}).values():
        if info.tensor is tensor:
            return info
    return None


def needing_inputs(program: Program) -> List[InputGrad]:
    """The inputs a traced backward computes gradients for; an input computed by eager ops that
    need a gradient is refused: the program cannot reach those ops."""
    found = []
    for info in program.__dict__.get("grad_inputs", {}).values():
        if not info.needs:
            continue
        if not info.leaf:
            raise GradientError(
                f"backward() inside a to_static function: the input `{info.name}` was computed "
                "by eager operations that need a gradient, which the program cannot reach; call "
                "backward() after the function returns, or pass a leaf tensor "
                f"(`{info.name}.detach()` with stop_gradient=False)")
        found.append(info)
    return found


def note_input_grads_used(program: Program) -> None:
    """The program reads or writes an input's `.grad`: its callers key it by the inputs'
    states (state_of) and bind its slots to each call's tensors (bindings)."""
    program.__dict__["input_grads_used"] = True


def note_grad_read(program: Program, tensor: Tensor) -> None:
    """The trace read `.grad` of a captured tensor (a parameter) before computing it: whether
    it has one decides the program, so its callers key it by that too (grad_readers)."""
    program.__dict__.setdefault("grad_reads", {})[id(tensor)] = tensor
    note_input_grads_used(program)


def grad_readers(program: Program) -> List[Tensor]:
    return list(program.__dict__.get("grad_reads", {}).values())


def note_slot_write(program: Program, key: Any) -> None:
    program.__dict__.setdefault("slot_writes", set()).add(key)


def wrote_grad(program: Program, tensor: Tensor) -> bool:
    """Whether this trace computed or cleared the `.grad` of `tensor` (a captured tensor), as
    opposed to reading the one it has when the program runs."""
    return id(tensor) in program.__dict__.get("slot_writes", ())


def note_own_backward(program: Program) -> None:
    """The program runs a backward itself: a call of it is a whole step, not one node of the
    eager tape (one that only clears gradients stays one). The user's line of each backward()
    is kept: a graph-break region breaks there when eager code would differentiate its outputs
    again (jit/graph_break/own_backward.py)."""
    program.__dict__["own_backward"] = True
    origin = user_origin()
    if origin is not None:
        program.__dict__.setdefault("backward_origins", []).append(origin)


def owns_backward(program: Program) -> bool:
    return bool(program.__dict__.get("own_backward"))


def backward_origins(program: Program) -> List[Origin]:
    """The user's lines of the backward() calls the program runs (note_own_backward)."""
    return list(program.__dict__.get("backward_origins", ()))


def uses_input_grads(program: Program) -> bool:
    return bool(program.__dict__.get("input_grads_used"))


def bindings(program: Program) -> List[Tuple[int, Any]]:
    """(feed position, slot) of every input gradient slot of the program."""
    slots = program.__dict__.get("grad_slots", {})
    return [(slot.info.index, slot) for key, slot in slots.items() if type(key) is str]


def bind(found: List[Tuple[int, Any]], inputs: Sequence[Any]) -> None:
    """Point each input gradient slot at this call's tensor, before the program runs."""
    for index, slot in found:
        slot.owner = inputs[index]
