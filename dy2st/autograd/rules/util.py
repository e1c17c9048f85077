"""Shape helpers shared by the gradient rules (eager Tensors and static Variables alike)."""
from __future__ import annotations

from typing import Any, Tuple

from ...runtime import ops
from ...runtime.registry import apply


def shape_of(x: Any) -> Tuple[int, ...]:
    """Static shape with -1 for unknown dims (an eager tensor's shape is always known)."""
    v = getattr(x, "_value", None)
    return tuple(v.shape) if v is not None else tuple(x._shape)


def unbroadcast(g: Any, x: Any) -> Any:
    """g summed over the dims that broadcasting added to x, so it has x's shape."""
    gs, xs = shape_of(g), shape_of(x)
    if gs == xs and -1 not in xs:
        return g
    return apply("reduce_as", [g, x])


def float_like(g: Any, x: Any) -> Any:
    """g in x's dtype (rules compute in the gradient's dtype; inputs may differ)."""
    return g if g.dtype == x.dtype else ops.cast(g, x.dtype)


def restore_reduced(g: Any, x: Any, axis: Any, keepdim: bool) -> Any:
    """The gradient of a reduction over `axis` broadcast back to x's shape."""
    ndim = len(shape_of(x))
    if axis is None or (isinstance(axis, (list, tuple)) and len(axis) == 0):
        axes = list(range(ndim))
    else:
        axes = [a % ndim if ndim else 0 for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
    if not keepdim and ndim and axes:
        g = ops.unsqueeze(g, sorted(axes))
    return ops.expand_as(g, x) if shape_of(g) != shape_of(x) or -1 in shape_of(x) else g
