"""The gradient of py_func (the user's Python backward, called as another py_func op) and of the
host-side metric ops (none)."""
from __future__ import annotations

from typing import Any

from ...runtime.dtype import dtype_name
from ...runtime.registry import apply
from . import GradientError, mark_no_grad, register_vjp


@register_vjp("py_func", saves=())
def _py_func_vjp(ctx: Any, *gs: Any) -> Any:
    attrs = ctx.attrs
    if attrs["backward"] < 0:
        raise GradientError("py_func: this op has no backward_func, so no gradient flows "
                            "through it (give py_func a backward_func)")
    skip = set(attrs["skip"])
    n_in = len(ctx.inputs)
    given = [v for i, v in enumerate(list(ctx.inputs) + list(ctx.outputs)) if i not in skip]
    grads = apply("py_func", given + list(gs), {
        "func": attrs["backward"], "backward": -1, "skip": [],
        "out_shapes": [list(x._shape) for x in ctx.inputs],
        "out_dtypes": [dtype_name(x.dtype) for x in ctx.inputs]})
    return tuple(g if need else None for g, need in zip(grads, ctx.needs))[:n_in]


mark_no_grad("auc")     # a metric: histogram counts
