"""paddle.autograd.PyLayer: a user forward / backward pair.

Eagerly, forward runs without recording and one tape node carries the outputs; its backward
calls the user's backward. While a Program is traced (to_static), forward is traced on detached
inputs and its outputs pass through one `py_layer` op (one output) or `py_layer_multi` op
(several) whose gradient rule traces the user's backward with a cotangent per output (after
tracing forward again for the tensors it saved); the op itself is the identity, so the program
saves, loads and exports for inference like any other."""
from __future__ import annotations

import itertools
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from ..runtime import ops, state
from ..runtime.origin import user_origin
from ..runtime.pytree import flatten, unflatten
from ..runtime.registry import Meta, apply, register_op
from ..runtime.tensor import Tensor, TensorLike
from .mode import no_grad
from .rules import GradientError, register_vjp
from .tape import Node, attach, edge_of

__all__ = ["PyLayer", "PyLayerContext"]


class PyLayerContext:
    """The `ctx` a PyLayer's forward and backward share."""

    def __init__(self) -> None:
        self.container: Tuple[Any, ...] = ()
        self.non_differentiable: List[Any] = []
        self.materialize_grads = True
        self.not_inplace: List[Any] = []

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors for backward (read them with saved_tensor())."""
        self.container = tensors

    def saved_tensor(self) -> Tuple[Any, ...]:
        """The tensors forward saved, in order."""
        return self.container

    def mark_not_inplace(self, *args: Any) -> None:
        """Outputs that are inputs returned as they are (dy2st never aliases them anyway)."""
        self.not_inplace = list(args)

    def mark_non_differentiable(self, *args: Any) -> None:
        """Outputs that get no gradient: they stop gradients and backward sees zeros for them."""
        self.non_differentiable = list(args)

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward gets None (not zeros) for outputs that received no gradient."""
        self.materialize_grads = bool(value)


# PyLayer calls traced into programs, by the `call` attribute of their py_layer ops: the class
# and the non-tensor arguments, which the gradient rule needs to run forward and backward again
_CALLS: Dict[str, Tuple[type, Any, List[int]]] = {}
_ids = itertools.count()


def _check_grads(cls: type, grads: Any, n_in: int) -> List[Any]:
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    if len(grads) != n_in:
        raise GradientError(f"{cls.__name__}.backward returned {len(grads)} gradient(s), but "
                            f"forward took {n_in} tensor input(s): return one per tensor input "
                            f"(None for an input that needs no gradient)")
    return grads


class PyLayer:
    """Subclass with static `forward(ctx, *args, **kwargs)` and `backward(ctx, *grads)`, then
    call `MyLayer.apply(*args, **kwargs)`. backward gets one gradient per output of forward
    and returns one per Tensor input of forward."""

    @staticmethod
    def forward(ctx: PyLayerContext, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a PyLayer subclass must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx: PyLayerContext, *args: Any) -> Any:
        raise NotImplementedError("a PyLayer subclass must define backward(ctx, *grads)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        if cls.forward is PyLayer.forward or cls.backward is PyLayer.backward:
            raise NotImplementedError(f"{cls.__name__} must define both forward and backward "
                                      f"(as static methods taking ctx first)")
        if state.build_state.blocks:
            return _apply_traced(cls, args, kwargs)
        return _apply_eager(cls, args, kwargs)


def _tensor_positions(leaves: Sequence[Any]) -> List[int]:
    return [i for i, x in enumerate(leaves) if isinstance(x, TensorLike)]


def _apply_eager(cls: type, args: Tuple, kwargs: Dict) -> Any:
    leaves, tree = flatten((args, kwargs), is_leaf=lambda x: isinstance(x, TensorLike))
    positions = _tensor_positions(leaves)
    inputs = [leaves[i] for i in positions]
    ctx = PyLayerContext()
    with no_grad():
        out = cls.forward(ctx, *args, **kwargs)
    out_leaves, out_tree = flatten(out, is_leaf=lambda x: isinstance(x, TensorLike))
    outs = [o for o in out_leaves if isinstance(o, Tensor)]
    if not (state.build_state.grad_enabled and any(not t.stop_gradient for t in inputs)):
        return out
    # an output that is an input unchanged gets its own tensor, so the node can own it
    seen = {id(t) for t in inputs}
    fresh = {id(o): Tensor(o._value.copy()) if id(o) in seen else o for o in outs}
    out_leaves = [fresh.get(id(o), o) if isinstance(o, Tensor) else o for o in out_leaves]
    outs = [fresh[id(o)] for o in outs]
    skip = {id(fresh.get(id(t), t)) for t in ctx.non_differentiable}
    node = Node(f"py_layer:{cls.__name__}", {}, list(inputs), [edge_of(t) for t in inputs],
                [o._value for o in outs], user_origin(3))
    node.backward_fn = _EagerBackward(cls, ctx, len(inputs), [id(o) in skip for o in outs])
    for i, o in enumerate(outs):
        if id(o) not in skip:
            attach(node, [None] * i + [o])
    return unflatten(out_tree, out_leaves)


class _EagerBackward:
    def __init__(self, cls: type, ctx: PyLayerContext, n_in: int, frozen: List[bool]) -> None:
        self.cls, self.ctx, self.n_in, self.frozen = cls, ctx, n_in, frozen

    def __call__(self, node: Node, grads: List[Any], create_graph: bool) -> List[Any]:
        full = []
        for g, value, frozen in zip(grads, node.out_values, self.frozen):
            if g is None and (self.ctx.materialize_grads or frozen):
                g = Tensor(np.zeros_like(value))
            full.append(g)
        result = _check_grads(self.cls, self.cls.backward(self.ctx, *full), self.n_in)
        out = []
        for g, t in zip(result, node.inputs):
            if g is not None and not isinstance(g, Tensor):
                raise GradientError(f"{self.cls.__name__}.backward returned "
                                    f"{type(g).__name__} for an input; return Tensors or None")
            out.append(g)
        return out


def _apply_traced(cls: type, args: Tuple, kwargs: Dict) -> Any:
    leaves, tree = flatten((args, kwargs), is_leaf=lambda x: isinstance(x, TensorLike))
    positions = _tensor_positions(leaves)
    inputs = [leaves[i] for i in positions]
    detached = list(leaves)
    for i in positions:
        detached[i] = leaves[i].detach()
    a, k = unflatten(tree, detached)
    ctx = PyLayerContext()
    out = cls.forward(ctx, *a, **k)
    out_leaves, out_tree = flatten(out, is_leaf=lambda x: isinstance(x, TensorLike))
    outs = [i for i, o in enumerate(out_leaves) if isinstance(o, TensorLike)]
    if not outs:
        raise TypeError(f"{cls.__name__}.forward returned no tensor; a PyLayer must return at "
                        f"least one")
    key = f"{cls.__qualname__}#{next(_ids)}"
    _CALLS[key] = (cls, (tree, [None if i in positions else x for i, x in enumerate(leaves)]),
                   positions)
    layer = f"{cls.__module__}.{cls.__qualname__}"
    frozen_ids = {id(o) for o in ctx.non_differentiable}
    if len(outs) == 1:
        frozen = id(out_leaves[outs[0]]) in frozen_ids
        out_leaves[outs[0]] = apply("py_layer", [out_leaves[outs[0]]] + inputs,
                                    {"layer": layer, "call": key, "frozen": frozen})
        return unflatten(out_tree, out_leaves)
    # several outputs: the ones that can carry a gradient pass through one py_layer_multi op
    # (its rule calls backward once with every output's cotangent); the others stop gradients
    live = [j for j, i in enumerate(outs) if id(out_leaves[i]) not in frozen_ids
            and out_leaves[i].dtype.is_floating]
    for j, i in enumerate(outs):
        if j not in live:
            out_leaves[i] = out_leaves[i].detach()
    if live:
        results = apply("py_layer_multi", [out_leaves[outs[j]] for j in live] + inputs,
                        {"layer": layer, "call": key, "live": live, "n_outs": len(outs)})
        for j, r in zip(live, results):
            out_leaves[outs[j]] = r
    return unflatten(out_tree, out_leaves)


def _py_layer_kernel(out: Any, *inputs: Any, layer: str, call: str, frozen: bool) -> Any:
    """The forward's result (traced before this op), passed on."""
    return out


register_op("py_layer", infer=lambda out, *inputs, layer, call, frozen: Meta(
    out._shape, out.dtype))(_py_layer_kernel)


def _multi_infer(*ins: Any, layer: str, call: str, live: List[int], n_outs: int) -> Any:
    return tuple(Meta(x._shape, x.dtype) for x in ins[:len(live)])


@register_op("py_layer_multi", infer=_multi_infer, n_outputs=2)
def _py_layer_multi_kernel(*ins: Any, layer: str, call: str, live: List[int],
                           n_outs: int) -> Any:
    """The forward's differentiable results (traced before this op), passed on."""
    return tuple(ins[:len(live)])


def _rerun(attrs: Dict[str, Any], inputs: List[Any]) -> Tuple[type, PyLayerContext, Any]:
    """The PyLayer class of a traced call, and its forward run again on `inputs` (for the
    tensors it saves; its values equal the first run's)."""
    found = _CALLS.get(attrs["call"])
    if found is None:
        raise GradientError(f"the PyLayer {attrs['layer']} of this program was traced in "
                            f"another process: its backward is not known here, so the program "
                            f"cannot be differentiated (it still runs for inference)")
    cls, (tree, template), positions = found
    leaves = list(template)
    for p, x in zip(positions, inputs):
        leaves[p] = x.detach()
    a, k = unflatten(tree, leaves)
    layer_ctx = PyLayerContext()
    out = cls.forward(layer_ctx, *a, **k)
    return cls, layer_ctx, out


@register_vjp("py_layer", saves=())
def _py_layer_vjp(ctx: Any, g: Any) -> Tuple[Any, ...]:
    if ctx.attrs["frozen"]:
        return (None,) * len(ctx.inputs)
    inputs = list(ctx.inputs[1:])
    cls, layer_ctx, _ = _rerun(ctx.attrs, inputs)
    grads = _check_grads(cls, cls.backward(layer_ctx, g), len(inputs))
    return (None,) + tuple(grads)


@register_vjp("py_layer_multi", saves=())
def _py_layer_multi_vjp(ctx: Any, *gs: Any) -> Tuple[Any, ...]:
    live = list(ctx.attrs["live"])
    inputs = list(ctx.inputs[len(live):])
    cls, layer_ctx, out = _rerun(ctx.attrs, inputs)
    values = [o for o in flatten(out, is_leaf=lambda x: isinstance(x, TensorLike))[0]
              if isinstance(o, TensorLike)]
    full = []
    for j, value in enumerate(values):
        g = gs[live.index(j)] if j in live else None
        # an output without a gradient: zeros, or None when the layer asked for no zeros
        # (a non-differentiable output always gets zeros, as eagerly)
        if g is None and (layer_ctx.materialize_grads or j not in live):
            g = ops.zeros_like(value)
        full.append(g)
    grads = _check_grads(cls, cls.backward(layer_ctx, *full), len(inputs))
    return (None,) * len(live) + tuple(grads)
