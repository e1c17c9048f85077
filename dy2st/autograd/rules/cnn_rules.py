"""Gradient rules of the CNN-family ops: N-d convolutions, pooling, resampling, vision and the
activations added with them."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.registry import apply
from . import GradientError, register_vjp
from .util import shape_of


def _conv_attrs(attrs):
    return {k: attrs[k] for k in ("stride", "pads", "dilation", "groups", "channel_last")}


def _bias_grad(g, channel_last):
    nd = len(shape_of(g))
    axes = [i for i in range(nd) if i != (nd - 1 if channel_last else 1)]
    return ops.sum(g, axis=axes)


@register_vjp("conv_nd", "conv_transpose_nd", "conv2d")
def _conv(ctx, g):
    x, w = ctx.inputs[0], ctx.inputs[1]
    attrs = _conv_attrs(ctx.attrs)
    gx = gw = None
    if ctx.op_type != "conv_transpose_nd":     # conv2d is conv_nd with its own name
        if ctx.needs[0]:
            gx = apply("conv_nd_input_grad", [g, w, x], attrs)
        if ctx.needs[1]:
            gw = apply("conv_nd_filter_grad", [x, g, w], attrs)
    else:
        # the transposed convolution is the adjoint of conv_nd in its input, with the roles of
        # the input and output swapped
        if ctx.needs[0]:
            gx = apply("conv_nd", [g, w], attrs)
        if ctx.needs[1]:
            gw = apply("conv_nd_filter_grad", [g, x, w], attrs)
    grads = [gx, gw]
    if len(ctx.inputs) == 3:
        grads.append(_bias_grad(g, attrs["channel_last"]) if ctx.needs[2] else None)
    return tuple(grads)


@register_vjp("conv_nd_input_grad")
def _conv_nd_input_grad(ctx, gg):
    g, w, x = ctx.inputs
    attrs = ctx.attrs
    return (apply("conv_nd", [gg, w], attrs) if ctx.needs[0] else None,
            apply("conv_nd_filter_grad", [gg, g, w], attrs) if ctx.needs[1] else None,
            None)


@register_vjp("conv_nd_filter_grad")
def _conv_nd_filter_grad(ctx, gw):
    x, g, w = ctx.inputs
    attrs = ctx.attrs
    return (apply("conv_nd_input_grad", [g, gw, x], attrs) if ctx.needs[0] else None,
            apply("conv_nd", [x, gw], attrs) if ctx.needs[1] else None,
            None)


@register_vjp("resample", saves=(0,))
def _resample(ctx, g):
    x, *dims = ctx.inputs
    return (apply("resample_grad", [g, x, *dims], ctx.attrs),) + (None,) * len(dims)


@register_vjp("resample_grad", saves=())
def _resample_grad(ctx, gg):
    _, _, *dims = ctx.inputs
    return (apply("resample", [gg, *dims], ctx.attrs), None) + (None,) * len(dims)


@register_vjp("max_pool_nd")
def _max_pool(ctx, g, _g_mask):
    x, mask = ctx.inputs[0], ctx.outputs[1]
    return (apply("max_pool_grad", [g, mask, x], {"channel_last": ctx.attrs["channel_last"]}),)


# ----------------------------------------------------------------------------- activations
def _mask(cond, g):
    return ops.cast(cond, g.dtype)


@register_vjp("softsign", complex_aware=True)
def _softsign(ctx, g):
    x = ctx.inputs[0]
    r = ops.abs(x)
    d = 1.0 + r
    if not x.dtype.is_complex:
        return (g / (d * d),)
    # z / (1 + |z|) is not holomorphic: with its Wirtinger derivatives
    # df/dz = 1 / d - |z| / (2 d^2) (real) and df/dz* = -z^2 / (2 |z| d^2), Paddle's gradient
    # dL/dRe z + i dL/dIm z is g * df/dz + conj(g) * df/dz* (the second term is 0 at z = 0)
    g = ops.cast(g, x.dtype)
    dz = 1.0 / d - r / (2.0 * d * d)
    safe = ops.where(r == 0, r + 1.0, r)
    dzbar = ops.neg(x * x) / ops.cast(2.0 * safe * d * d, x.dtype)
    return (g * ops.cast(dz, x.dtype) + ops.conj(g) * dzbar,)


@register_vjp("log_sigmoid")
def _log_sigmoid(ctx, g):
    return (g * ops.sigmoid(ops.neg(ctx.inputs[0])),)


@register_vjp("hardshrink", "softshrink")
def _shrink(ctx, g):
    return (g * _mask(ops.abs(ctx.inputs[0]) > ctx.attrs["threshold"], g),)


@register_vjp("tanhshrink")
def _tanhshrink(ctx, g):
    t = ops.tanh(ctx.inputs[0])
    return (g * t * t,)


@register_vjp("thresholded_relu")
def _thresholded_relu(ctx, g):
    return (g * _mask(ctx.inputs[0] > ctx.attrs["threshold"], g),)


@register_vjp("selu")
def _selu(ctx, g):
    x, out = ctx.inputs[0], ctx.outputs[0]
    scale, alpha = ctx.attrs["scale"], ctx.attrs["alpha"]
    pos = _mask(x > 0, g)
    # below 0, d/dx scale * alpha * (e^x - 1) = out + scale * alpha
    return (g * (pos * scale + (1.0 - pos) * (out + scale * alpha)),)


@register_vjp("celu")
def _celu(ctx, g):
    x, alpha = ctx.inputs[0], ctx.attrs["alpha"]
    pos = _mask(x > 0, g)
    return (g * (pos + (1.0 - pos) * ops.exp(ops.minimum(x, ops.zeros_like(x)) / alpha)),)


@register_vjp("glu")
def _glu(ctx, g):
    axis = ctx.attrs["axis"]
    a, b = ops.split(ctx.inputs[0], 2, axis=axis)
    s = ops.sigmoid(b)
    return (ops.concat([g * s, g * a * s * (1.0 - s)], axis=axis),)


@register_vjp("grid_sample")
def _grid_sample(ctx, g):
    x, grid = ctx.inputs
    dx, dgrid = apply("grid_sample_grad", [g, x, grid], ctx.attrs)
    return (dx if ctx.needs[0] else None, dgrid if ctx.needs[1] else None)


@register_vjp("grid_sample_grad")
def _grid_sample_grad(ctx, g_dx, g_dgrid):
    g, x, grid = ctx.inputs
    dg, dx, dgrid = apply("grid_sample_grad_grad", [g, x, grid, g_dx, g_dgrid], ctx.attrs)
    return tuple(v if need else None for v, need in zip((dg, dx, dgrid), ctx.needs))


@register_vjp("grid_sample_grad_grad")
def _grid_sample_grad_grad(ctx, *_):
    raise GradientError("the third derivative of grid_sample is not supported; compute its "
                        "second derivative with create_graph=False")


@register_vjp("max_pool_grad", saves=(1,))
def _max_pool_grad(ctx, gg):
    # scattering g into the mask's positions is linear in g: its adjoint reads gg there
    mask = ctx.inputs[1]
    return apply("mask_gather", [gg, mask], ctx.attrs), None, None


@register_vjp("mask_gather", saves=(1,))
def _mask_gather(ctx, gg):
    g, mask = ctx.inputs
    return apply("max_pool_grad", [gg, mask, g], ctx.attrs), None


@register_vjp("fractional_max_pool_nd")
def _fractional_max_pool(ctx, g, _g_mask):
    x, mask = ctx.inputs[0], ctx.outputs[1]
    return apply("max_pool_grad", [g, mask, x], {"channel_last": False}), None
