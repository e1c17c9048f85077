"""Ops lowered as a host callback: XLA calls the op's own numpy kernel from inside the compiled
computation (`jax.pure_callback`). Exact by construction, but a round trip to Python each run:
the rarely used ops live here until they get a native lowering. Their output shapes must be
known when compiling (else the op is data-dependent and the program runs on numpy)."""
from __future__ import annotations

from typing import Any, List

import numpy as np

from ...runtime.program import Program
from ...runtime.registry import OPS, Meta
from .loader import jax_modules
from .lower import is_static
from .table import lowers, not_lowerable

# ops whose lowering is the numpy kernel called back from XLA
HOST_OPS = (
    "binomial", "cholesky", "cumprod_grad", "det", "diag_grad", "eigh",
    "fractional_max_pool_nd", "gather_nd_grad", "grid_sample", "grid_sample_grad",
    "grid_sample_grad_grad", "inv", "lu", "lu_permutation", "mask_gather", "matrix_exp",
    "mode_index", "pad_grad", "poisson", "put_along_axis", "qr", "resample",
    "resample_grad", "rnnt_loss", "rnnt_loss_grad", "scatter_winners", "slogdet",
    "standard_gamma", "svd",
    "masked_select_grad", "conv_transpose_nd",
    "argsort", "sort", "topk", "cumprod", "norm", "std", "var", "logsumexp", "einsum", "outer",
    "dot", "one_hot", "pad", "hard_label_target", "glu", "celu", "selu", "hardshrink",
    "softshrink", "softsign", "tanhshrink", "thresholded_relu", "log_sigmoid", "smooth_l1",
    "sigmoid_cross_entropy_with_logits", "bce_loss", "normalize", "linspace",
    "py_func", "auc",
)


def output_metas(cx: Any, ins: List[Any], attrs: dict) -> List[Meta]:
    """The op's output shapes and dtypes for these concrete inputs: what inference gave, or
    inference run again on stand-ins of the concrete shapes (a None dim of a feed is concrete
    now). A dim still unknown depends on the data."""
    op = cx.op
    metas = [cx.vars[n] for n in op.outputs]
    if all(v.kind == "dense" and min(v._shape, default=0) >= 0 for v in metas):
        return [Meta(v._shape, v.dtype) for v in metas]
    scratch = Program().global_block()
    stand_ins = []
    for name, value in zip(op.inputs, ins):
        var = cx.vars[name]
        stand_ins.append(scratch.create_var(tuple(np.shape(value)), var.dtype, kind=var.kind,
                                            elem=var.elem))
    inferred = OPS[op.type].infer(*stand_ins, **attrs)
    inferred = [inferred] if OPS[op.type].n_outputs == 1 else list(inferred)
    for m in inferred:
        if m.kind != "dense" or min(m.shape, default=0) < 0:
            raise cx.not_lowerable(f"the output shape of {op.type} depends on the data")
    return inferred


def host(cx: Any, *ins: Any, **attrs: Any) -> Any:
    """The op's numpy kernel, called back from the XLA computation."""
    m = jax_modules()
    op_type = cx.op.type
    kernel = OPS[op_type].kernel
    metas = output_metas(cx, list(ins), attrs)
    shapes = [m.jax.ShapeDtypeStruct(tuple(meta.shape), np.dtype(meta.dtype.np))
              for meta in metas]
    single = OPS[op_type].n_outputs == 1

    def call(*arrays):
        out = kernel(*[np.asarray(a) for a in arrays], **attrs)
        outs = [out] if single else list(out)
        return tuple(np.asarray(o, dtype=s.dtype).reshape(s.shape) for o, s in zip(outs, shapes))
    args = [m.jnp.asarray(v) if is_static(v) else v for v in ins]
    outs = m.jax.pure_callback(call, tuple(shapes), *args)
    return outs[0] if single else tuple(outs)


lowers(*HOST_OPS)(host)

not_lowerable("its output shape depends on the data (XLA needs static shapes)",
              "masked_select", "nonzero", "unique", "unique_consecutive")
