"""Gradient rules of the vision ops: RoI pooling and deformable sampling differentiate in x (and
the offsets); the boxes, the NMS family and YOLO's target assignment carry no gradient."""
from __future__ import annotations

from ...runtime.registry import apply
from . import GradientError, mark_no_grad, register_vjp

mark_no_grad("nms", "category_nms", "matrix_nms", "generate_proposals", "yolo_loss_targets")


def _roi_attrs(attrs):
    return {k: attrs[k] for k in ("output_size", "spatial_scale", "sampling_ratio", "aligned")
            if k in attrs}


@register_vjp("roi_align", "psroi_pool", saves=(1, 2))
def _roi_linear(ctx, g):
    x, boxes, boxes_num = ctx.inputs
    dx = apply(ctx.op_type + "_grad", [g, x, boxes, boxes_num], _roi_attrs(ctx.attrs)) \
        if ctx.needs[0] else None
    return dx, None, None


@register_vjp("roi_align_grad", "psroi_pool_grad", saves=(2, 3))
def _roi_linear_grad(ctx, gg):
    # the gradient is linear in g: its adjoint is the pooling itself
    _, _, boxes, boxes_num = ctx.inputs
    forward = ctx.op_type[:-len("_grad")]
    dg = apply(forward, [gg, boxes, boxes_num], ctx.attrs) if ctx.needs[0] else None
    return dg, None, None, None


@register_vjp("roi_pool", saves=(2,))
def _roi_pool(ctx, g, _g_arg):
    x, _, boxes_num = ctx.inputs
    dx = apply("roi_pool_grad", [g, x, ctx.outputs[1], boxes_num], {}) if ctx.needs[0] else None
    return dx, None, None


@register_vjp("roi_pool_grad", "deform_sample_grad")
def _refuse(ctx, *_):
    raise GradientError(f"the second derivative of {ctx.op_type[:-len('_grad')]} is not "
                        "supported; compute its first derivative with create_graph=False")


@register_vjp("deform_sample")
def _deform_sample(ctx, g):
    x, offset = ctx.inputs
    dx, doff = apply("deform_sample_grad", [g, x, offset], ctx.attrs)
    return (dx if ctx.needs[0] else None, doff if ctx.needs[1] else None)
