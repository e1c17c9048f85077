"""The backward pass over the eager tape: walks nodes in reverse topological order, runs each
node's rule once all its consumers have contributed, and accumulates leaf gradients."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..runtime import ops
from ..runtime.dtype import INEXACT_NUMPY
from ..runtime.ops.grad_kernels import is_cleared
from ..runtime.state import build_state
from ..runtime.tensor import Tensor
from . import saved_hooks
from .rules import RULES, GradientError, VjpContext
from .rules.array_rules import add_array_grads
from .stale import stand_in
from .tape import Node


def ones_like_grad(t: Tensor) -> Tensor:
    return Tensor(np.ones_like(t._value))


def as_grad(g: Any, like: Tensor) -> Tensor:
    if isinstance(g, Tensor):
        arr = g._value
        if arr.shape != like._value.shape:
            raise ValueError(f"grad_tensor has shape {list(arr.shape)}, the tensor has "
                             f"{like.shape}")
        return g if arr.dtype == like._value.dtype else Tensor(arr.astype(like._value.dtype))
    arr = np.asarray(g, dtype=like._value.dtype)
    return Tensor(np.broadcast_to(arr, like._value.shape).copy())


def _add(a: Optional[Tensor], b: Tensor, create_graph: bool) -> Tensor:
    if a is None:
        return b
    if type(a) is list or type(b) is list:      # gradients of a tensor array
        return add_array_grads(a, b)
    if create_graph:
        return ops.add(a, b)
    return Tensor(a._value + b._value)


def freed_error(node: Node) -> GradientError:
    return GradientError(
        f"backward through the graph of {node.op_type}{node.where()} a second time: its "
        "saved values were freed by the first backward; pass retain_graph=True to "
        "the first backward (or paddle.grad) to backward again")


class UnusedInputError(GradientError, ValueError):
    """An input of `paddle.grad` that the outputs do not reach (Paddle raises a ValueError)."""


def unused_input(index: int, shape: Any) -> UnusedInputError:
    return UnusedInputError(
        f"paddle.grad: input {index} (shape {list(shape)}) is not used to compute the outputs "
        "(or stop_gradient=True on the way); pass allow_unused=True to get None for it")


def _graph(roots: Sequence[Node], partial: Dict[Node, set]
           ) -> Tuple[Dict[Node, int], List[Node]]:
    """Consumer counts of every node reachable from roots, and the nodes in discovery order.
    `partial` (given the roots' outputs reached) collects the outputs reached of each node that
    frees its saved values per output (a to_static call: its backward_fn has `release`)."""
    deps: Dict[Node, int] = {}
    order: List[Node] = []
    seen = set()
    stack = list(roots)
    for r in roots:
        seen.add(r)
    while stack:
        node = stack.pop()
        order.append(node)
        if node.freed:
            raise freed_error(node)
        for e in node.edges:
            if e is None:
                continue
            child = e[0]
            if not isinstance(child, Node):
                continue
            deps[child] = deps.get(child, 0) + 1
            if child.backward_fn is not None and hasattr(child.backward_fn, "release"):
                partial.setdefault(child, set()).add(e[1])
            if child not in seen:
                seen.add(child)
                stack.append(child)
    for node, outs in partial.items():
        # refused before anything runs, as eager refuses a freed node
        node.backward_fn.check(node, outs)
    return deps, order


def _useful(order: List[Node], deps: Dict[Node, int], targets: set, stops: Any = ()) -> set:
    """The nodes from which some target (a (node, index) or a leaf id) can be reached without
    passing a stop, found in one pass over the nodes in reverse topological order (consumers
    before producers)."""
    remaining = dict(deps)
    ready = [n for n in order if remaining.get(n, 0) == 0]
    topo: List[Node] = []
    while ready:
        node = ready.pop()
        topo.append(node)
        for e in node.edges:
            if e is not None and isinstance(e[0], Node):
                remaining[e[0]] -= 1
                if remaining[e[0]] == 0:
                    ready.append(e[0])
    useful: set = set()
    for node in reversed(topo):
        for e in node.edges:
            if e is None:
                continue
            child = e[0]
            key = (child, e[1]) if isinstance(child, Node) else id(child)
            if key in stops:
                continue
            if key in targets or (isinstance(child, Node) and child in useful):
                useful.add(node)
                break
    return useful


def _run_rule(node: Node, grads: List[Any], create_graph: bool) -> Sequence[Any]:
    if node.backward_fn is not None:
        return node.backward_fn(node, grads, create_graph)
    rule = RULES.get(node.op_type)
    if rule is None:
        raise GradientError(f"op {node.op_type!r}{node.where()} has no gradient rule: it cannot "
                            "be differentiated (detach its input or compute it under no_grad)")
    inputs = node.inputs if node.packed is None else saved_hooks.unpack(node.packed, node.inputs)
    check = () if node.packed is not None else \
        range(len(node.inputs)) if rule.saves is None else rule.saves
    for i in check:
        x = node.inputs[i]
        if getattr(x, "_version", 0) != node.versions[i]:
            # refused only if the rule reads its values (see stale.py)
            inputs = list(inputs) if inputs is node.inputs else inputs
            inputs[i] = stand_in(x, (
                f"input {i} of {node.op_type}{node.where()} was changed in place after the op "
                "used it, and backward needs its old value; compute on a copy (x.clone()) "
                "instead of changing it in place"))
    outputs = [Tensor(v) if type(v) is not list else v for v in node.out_values]
    if create_graph:
        for i, o in enumerate(outputs):
            if isinstance(o, Tensor) and o._value.dtype in INEXACT_NUMPY:
                o.stop_gradient, o._node, o._out_index = False, node, i
    for i, g in enumerate(grads):
        if g is None and type(outputs[i]) is not list:
            grads[i] = Tensor(np.zeros_like(node.out_values[i]))
    ctx = VjpContext(node.op_type, inputs, outputs, node.attrs,
                     [e is not None for e in node.edges])
    try:
        return rule.fn(ctx, *grads)
    except GradientError as e:
        # a rule that refuses (a second derivative it has no formula for) names the user's line
        where = node.where()
        if not where or 'File "' in str(e):
            raise
        raise GradientError(f"{e} (op {node.op_type}{where})") from None


def grad_key(t: Tensor) -> Any:
    """What a tensor's gradient arrives at: its node's output, or the leaf itself."""
    return (t._node, t._out_index) if t._node is not None else id(t)


def run_backward(roots: Sequence[Tensor], seeds: Sequence[Tensor], retain_graph: bool,
                 create_graph: bool, capture: Optional[Sequence[Tensor]] = None,
                 blocked: Optional[Sequence[Tensor]] = None) -> Optional[List[Optional[Tensor]]]:
    """Propagate seeds from roots. With `capture`, return the gradients of those tensors instead
    of accumulating into leaves' `.grad`; no gradient flows through the `blocked` tensors
    (paddle.grad's no_grad_vars)."""
    root_nodes = []
    buffers: Dict[Node, List[Any]] = {}
    captured: Dict[Any, Optional[Tensor]] = {}
    targets: set = set()
    if capture is not None:
        for t in capture:
            targets.add(grad_key(t))
    leaf_seeds = []
    for r, s in zip(roots, seeds):
        if r._node is None:
            leaf_seeds.append((r, s))
            continue
        if r._node.freed:
            raise freed_error(r._node)
        buf = buffers.setdefault(r._node, [None] * len(r._node.out_values))
        buf[r._out_index] = _add(buf[r._out_index], s, create_graph)
        if r._node not in root_nodes:
            root_nodes.append(r._node)
    stops = {grad_key(t) for t in blocked} if blocked else ()
    partial = {n: {r._out_index for r in roots if r._node is n} for n in root_nodes
               if n.backward_fn is not None and hasattr(n.backward_fn, "release")}
    deps, order = _graph(root_nodes, partial)
    useful = _useful(order, deps, targets, stops) if capture is not None else None
    ready = [n for n in root_nodes if deps.get(n, 0) == 0]
    saved_mode = build_state.grad_enabled
    build_state.grad_enabled = create_graph
    try:
        for leaf, s in leaf_seeds:
            _deliver(leaf, s, capture is not None, captured, create_graph)
        while ready:
            node = ready.pop()
            grads = buffers.pop(node, None) or [None] * len(node.out_values)
            if node.out_hooks:
                for i, hooks in node.out_hooks.items():
                    for h in hooks:
                        if grads[i] is not None:
                            new = h(grads[i])
                            grads[i] = new if new is not None else grads[i]
            if capture is not None:
                for i, g in enumerate(grads):
                    if (node, i) in targets:
                        captured[(node, i)] = g
            # a node no gradient reached (all it gets is None: blocked, or only through a
            # detach) is not run, as eager's engine never visits it: its inputs get None, not
            # zeros (a zero .grad moves a parameter under weight decay or momentum)
            if (useful is None or node in useful) and not all(g is None for g in grads):
                in_grads = _run_rule(node, grads, create_graph)
                if len(in_grads) != len(node.edges):
                    raise GradientError(f"the gradient rule of {node.op_type} returned "
                                        f"{len(in_grads)} gradients for {len(node.edges)} inputs")
            else:
                in_grads = [None] * len(node.edges)
            for i, (e, g) in enumerate(zip(node.edges, in_grads)):
                if e is None:
                    continue
                child, idx = e
                if g is not None:
                    g = _checked(node, i, g)
                if stops and g is not None and \
                        ((child, idx) if isinstance(child, Node) else id(child)) in stops:
                    g = None
                if isinstance(child, Node):
                    if g is not None:
                        buf = buffers.setdefault(child, [None] * len(child.out_values))
                        buf[idx] = _add(buf[idx], g, create_graph)
                    deps[child] -= 1
                    if deps[child] == 0:
                        ready.append(child)
                elif g is not None:
                    _deliver(child, g, capture is not None, captured, create_graph)
            if not retain_graph and (node not in partial or node.backward_fn.release(partial[node])):
                node.freed = True
                node.inputs = node.out_values = node.packed = node.backward_fn = None
    finally:
        build_state.grad_enabled = saved_mode
    if capture is None:
        return None
    return [captured.get(grad_key(t)) for t in capture]


def _checked(node: Node, i: int, g: Any) -> Tensor:
    x = node.inputs[i]
    if g._value.shape != x._value.shape:
        raise GradientError(f"the gradient rule of {node.op_type} gave input {i} a gradient of "
                            f"shape {list(g._value.shape)} for a tensor of shape {x.shape}")
    if g._value.dtype != x._value.dtype:
        g = ops.cast(g, x.dtype)
    return g


def _deliver(leaf: Tensor, g: Tensor, capturing: bool, captured: Dict[Any, Any],
             create_graph: bool) -> None:
    hooks = getattr(leaf, "_hooks", None)
    if hooks:
        for h in hooks:
            new = h(g)
            g = new if new is not None else g
    if capturing:
        key = id(leaf)
        captured[key] = _add(captured.get(key), g, create_graph)
        return
    old = getattr(leaf, "_grad", None)
    if not create_graph:
        g = Tensor(g._value)      # .grad never carries the graph that computed it
    if old is None or (not create_graph and is_cleared(old._value)):
        leaf._grad = g
    else:
        leaf._grad = _add(old, g, create_graph)
