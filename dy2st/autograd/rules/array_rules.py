"""Gradient rules of the tensor-array ops: the gradient of an array is an array of its items'
gradients (runtime/ops/grad_kernels.py), where a missing item stands for zeros. A write's
gradient reads the array gradient at the written index and clears it there; a read's gradient is
an array holding the read's gradient at that index; so a static `while` can carry the gradient of
an array it appended to as loop state and replay the writes and reads backwards."""
from __future__ import annotations

from typing import Any

from ...runtime.dtype import dtype_name
from ...runtime.registry import apply
from . import GradientError, mark_no_grad, register_vjp


def _grad_array(g: Any, like: Any) -> Any:
    """g, or an empty gradient array where no gradient reached an array output."""
    if g is not None:
        return g
    dtype = "float32" if isinstance(like, list) else dtype_name(like.dtype)
    return apply("create_array", [], {"dtype": dtype})


def add_array_grads(a: Any, b: Any) -> Any:
    """The sum of two gradient arrays (what accumulating two uses of an array gives)."""
    return apply("array_grad_add", [a, b])


@register_vjp("array_write", saves=())
def _array_write(ctx, g):
    array, i, x = ctx.inputs
    g = _grad_array(g, array)
    gx = apply("array_grad_read", [g, i, x]) if ctx.needs[2] else None
    ga = apply("array_grad_clear", [g, i]) if ctx.needs[0] else None
    return ga, None, gx


@register_vjp("array_read", saves=())
def _array_read(ctx, g):
    return apply("array_grad_put", [ctx.inputs[1], g]), None


@register_vjp("array_stack", saves=())
def _array_stack(ctx, g):
    return (apply("array_grad_unstack", [g], {"axis": ctx.attrs["axis"]}),)


@register_vjp("array_concat")
def _array_concat(ctx, g):
    return (apply("array_grad_split", [g, ctx.inputs[0]], {"axis": ctx.attrs["axis"]}),)


@register_vjp("array_pop", saves=())
def _array_pop(ctx, g_array, g_item):
    array, i = ctx.inputs
    g_array = _grad_array(g_array, array)
    if g_item is None or isinstance(g_item, list):
        return g_array, None
    return apply("array_grad_insert", [g_array, i, g_item]), None


@register_vjp("array_slice")
def _array_slice(ctx, g):
    array = ctx.inputs[0]
    return (apply("array_grad_unslice", [_grad_array(g, array), array], dict(ctx.attrs)),)


@register_vjp("array_join")
def _array_join(ctx, g):
    a, b = ctx.inputs
    g = _grad_array(g, a)
    return (apply("array_grad_head", [g, a]) if ctx.needs[0] else None,
            apply("array_grad_tail", [g, a]) if ctx.needs[1] else None)


# Gradients of the gradient kernels (create_graph through arrays): the linear ones that keep
# an array's layout map onto each other; those that reshape arrays refuse.
@register_vjp("array_grad_read", saves=())
def _array_grad_read(ctx, u):
    return apply("array_grad_put", [ctx.inputs[1], u]), None, None


@register_vjp("array_grad_put", saves=(1,))
def _array_grad_put(ctx, u):
    i, g = ctx.inputs
    return None, apply("array_grad_read", [_grad_array(u, g), i, g])


@register_vjp("array_grad_clear", saves=())
def _array_grad_clear(ctx, u):
    return apply("array_grad_clear", [_grad_array(u, ctx.inputs[0]), ctx.inputs[1]]), None


@register_vjp("array_grad_add", saves=())
def _array_grad_add(ctx, u):
    return u, u


@register_vjp("array_grad_unstack", "array_grad_split", "array_grad_insert",
              "array_grad_unslice", "array_grad_head", "array_grad_tail")
def _unsupported(ctx, *grads):
    raise GradientError(f"the second derivative through {ctx.op_type} (a tensor-array "
                        "gradient) is not supported")


mark_no_grad("array_length")
