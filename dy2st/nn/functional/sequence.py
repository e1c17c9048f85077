"""Sequence helpers of nn.functional: sequence_mask, gather_tree, label_smooth, cosine_similarity.

All are compositions of differentiable dy2st ops, so they work eagerly and in a static Program
and their gradients come from the ops' rules."""
from __future__ import annotations

from typing import Any, Optional

from ...runtime import ops
from ...runtime.control_flow.while_loop import while_loop
from ...runtime.dtype import dtype_name
from ...runtime.ops.operands import as_tensor
from .dims import known_dims

__all__ = ["sequence_mask", "gather_tree", "label_smooth", "cosine_similarity"]


def sequence_mask(x: Any, maxlen: Any = None, dtype: Any = "int64", name: Optional[str] = None) -> Any:
    """mask[..., j] = j < x[...]: x's shape plus a trailing maxlen dim (maxlen None: max(x))."""
    x = as_tensor(x)
    if dtype_name(x.dtype) not in ("int32", "int64"):
        raise TypeError(f"sequence_mask: x must hold int32 or int64 lengths, got {dtype_name(x.dtype)}")
    if maxlen is None:
        maxlen = ops.max(x)
    steps = ops.arange(0, maxlen, 1, dtype=dtype_name(x.dtype))
    return ops.cast(ops.less_than(steps, ops.unsqueeze(x, -1)), dtype)


def gather_tree(ids: Any, parents: Any) -> Any:
    """Full beam-search paths from step ids and parent beams, both [max_time, batch, beam]:
    walking back from the last step, out[t] = ids[t] at the beam the step after points to."""
    ids, parents = as_tensor(ids), as_tensor(parents)
    shape, parents_shape = known_dims(ids), known_dims(parents)
    if len(shape) != 3 or shape != parents_shape:
        raise ValueError(f"gather_tree: ids and parents must have the same shape [max_time, batch, "
                         f"beam_size], got {shape} and {parents_shape}")
    steps = ids.shape[0]
    # beam[b, k]: which beam of the current step the output path k goes through.
    beam = ops.expand_as(ops.unsqueeze(ops.arange(0, ops.shape(ids)[2], 1, dtype=dtype_name(parents.dtype)), 0),
                         parents[0])
    # Paths are written last step first (arrays grow at their end), then flipped into time order.
    def cond(k, beam, out):
        return k < steps

    def body(k, beam, out):
        t = steps - 1 - k
        out = ops.array_write(ops.take_along_axis(ids[t], beam, axis=1), k, out)
        return k + 1, ops.take_along_axis(parents[t], beam, axis=1), out

    _, _, out = while_loop(cond, body, [0, beam, ops.create_array(dtype_name(ids.dtype))])
    return ops.flip(ops.stack(out, 0) if isinstance(out, list) else ops.array_stack(out, 0), [0])


def label_smooth(label: Any, prior_dist: Any = None, epsilon: float = 0.1, name: Optional[str] = None) -> Any:
    """(1 - epsilon) * label + epsilon * prior (uniform over the last dim when prior_dist is None)."""
    label = as_tensor(label)
    if not 0.0 <= float(epsilon) <= 1.0:
        raise ValueError(f"label_smooth: epsilon must be in [0, 1], got {epsilon}")
    if prior_dist is None:
        classes = known_dims(label)[-1]
        if classes < 0:
            raise ValueError("label_smooth: the number of classes (last dim of label) must be known")
        return label * (1.0 - epsilon) + epsilon / classes
    return label * (1.0 - epsilon) + as_tensor(prior_dist) * epsilon


def cosine_similarity(x1: Any, x2: Any, axis: int = 1, eps: float = 1e-8) -> Any:
    """sum(x1 * x2) / sqrt(max(|x1|^2 * |x2|^2, eps^2)) along axis (x1 and x2 broadcast)."""
    x1, x2 = as_tensor(x1), as_tensor(x2)
    w12 = ops.sum(x1 * x2, axis=axis)
    w1 = ops.sum(x1 * x1, axis=axis)
    w2 = ops.sum(x2 * x2, axis=axis)
    return w12 / ops.sqrt(ops.clip(w1 * w2, min=eps * eps))
