"""The eager tape: an op applied to a tensor that needs a gradient records a Node (the op, its
inputs and outputs, and where each input's gradient goes) on its outputs."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ..runtime.dtype import INEXACT_NUMPY
from ..runtime.origin import user_origin
from ..runtime.state import build_state
from ..runtime.tensor import Tensor
from . import saved_hooks
from .rules import NO_GRAD, GradientError


class Node:
    """One recorded op. `edges[i]` is where input i's gradient goes: (Node, output index) for a
    computed tensor, (leaf Tensor, 0) for a leaf that needs a gradient, None for neither."""

    __slots__ = ("op_type", "attrs", "inputs", "versions", "edges", "out_values", "origin",
                 "out_hooks", "freed", "backward_fn", "packed", "__weakref__")

    def __init__(self, op_type: str, attrs: Dict[str, Any], inputs: List[Any],
                 edges: List[Optional[tuple]], out_values: List[Any], origin: Any) -> None:
        self.op_type = op_type
        self.attrs = attrs
        self.inputs = inputs
        self.versions = [getattr(x, "_version", 0) for x in inputs]
        self.edges = edges
        self.out_values = out_values
        self.origin = origin
        self.out_hooks: Optional[Dict[int, list]] = None
        self.freed = False
        # set for nodes that are not one registry op (a compiled to_static call): called as
        # backward_fn(node, out_grads, create_graph) -> input grads
        self.backward_fn = None
        # (packed inputs, unpack hook) under paddle.autograd.saved_tensors_hooks, else None
        self.packed = None

    def where(self) -> str:
        o = self.origin
        return f' (File "{o.file}", line {o.line}: {o.source})' if o is not None else ""

    def __repr__(self) -> str:
        return f"<Node {self.op_type}{self.where()}>"


def edge_of(x: Any) -> Optional[tuple]:
    """Where the gradient for tensor x goes, or None when x does not need one."""
    if type(x) is list or x.stop_gradient:
        return None
    node = x._node
    if node is not None:
        return (node, x._out_index)
    return (x, 0)


def _is_float(t: Any) -> bool:
    return type(t) is not list and t._value.dtype in INEXACT_NUMPY


def record(opdef: Any, inputs: Sequence[Any], attrs: Dict[str, Any], out: Any) -> None:
    """The registry's hook: called after an eager op when some input needs a gradient."""
    if not build_state.grad_enabled or opdef.name in NO_GRAD:
        return
    outs = out if type(out) is tuple else (out,)
    node = Node(opdef.name, attrs, list(inputs), [edge_of(x) for x in inputs],
                [o._value if type(o) is not list else o for o in outs], user_origin(3))
    if saved_hooks.HOOKS:
        node.packed = saved_hooks.pack(node.inputs)
    attach(node, outs)


def attach(node: Node, outs: Sequence[Any]) -> None:
    """Make node the producer of the float tensors in outs (integer outputs carry no grad)."""
    for i, o in enumerate(outs):
        if isinstance(o, Tensor) and _is_float(o):
            o.stop_gradient = False
            o._node = node
            o._out_index = i


def needs_tape(*tensors: Any) -> bool:
    """Whether an eager op on these tensors is recorded (grad mode on, no Program being built,
    some input needs a gradient)."""
    return build_state.grad_enabled and not build_state.blocks and any(isinstance(t, Tensor) and not t.stop_gradient
                                       for t in tensors)


def check_inplace(t: Tensor, what: str) -> None:
    """Paddle refuses to change a leaf that needs a gradient in place: its .grad would belong to
    a value that no longer exists."""
    if build_state.grad_enabled and not t.stop_gradient and t._node is None:
        name = f" ({t.name})" if t.name else ""
        raise GradientError(
            f"{what}: leaf tensor{name} has stop_gradient=False and can't be changed in place "
            f"(use an out-of-place op, or change it under paddle.no_grad()){_where()}")


def adopt(t: Tensor, out: Tensor) -> None:
    """Make t the result `out` of an op applied to t in place: t takes out's value, version and
    place on the tape. The op's node saw t as an input: it keeps a snapshot of t's old value
    (with its old version) so its rule reads what the op read."""
    node = out._node
    if node is not None:
        for k, inp in enumerate(node.inputs):
            if inp is t:
                snap = Tensor(t._value)
                snap._version = node.versions[k]
                node.inputs[k] = snap
    t._value = out._value
    t._version = getattr(t, "_version", 0) + 1
    if node is not None:
        t._node, t._out_index, t.stop_gradient = node, out._out_index, False


def _where() -> str:
    o = user_origin(3)
    return f' (File "{o.file}", line {o.line}: {o.source})' if o is not None else ""
