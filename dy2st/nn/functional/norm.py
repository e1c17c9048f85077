"""Normalisation: layer_norm, batch_norm and normalize (Lp), each a fused kernel."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ...autograd.mode import no_grad
from ...runtime import state
from ...runtime.dtype import float32
from ...runtime.ops.operands import as_tensor, cast
from ...runtime.ops.row_sums import last_axis_squares, last_axis_sums
from ...runtime.persistable import write_persistable
from ...runtime.registry import Meta, apply, register_into, register_op
from ...runtime.tensor import Tensor
from .dims import known_dims

__all__ = ["layer_norm", "batch_norm", "normalize"]


def _float_meta(x, *rest, **attrs) -> Meta:
    return Meta(x._shape, x.dtype if x.dtype.is_floating else float32)


# ----------------------------------------------------------------------------- layer_norm
_ROWS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _layer_norm_rows(x: np.ndarray, affine, n: int, epsilon: float, has_weight: bool,
                     has_bias: bool, out: Optional[np.ndarray]) -> np.ndarray:
    """layer_norm of a float32 / float64 x over rows of its last n elements, into out (a
    contiguous array of x's shape and dtype; may be x) or a new array: the centered input is the
    only full-size array (written into out), the row sums come from einsum's loop, and the
    per-row scale multiplies: four passes over x where the general path makes seven and two
    new arrays."""
    rows = x.reshape(-1, n)
    mean = last_axis_sums(rows)
    mean /= n
    c = np.subtract(rows, mean[:, None], out=None if out is None else out.reshape(-1, n))
    var = last_axis_squares(c)
    var /= n
    var += epsilon
    np.sqrt(var, out=var)
    np.reciprocal(var, out=var)
    c *= var[:, None]
    rest = list(affine)
    if has_weight:
        np.multiply(c, rest.pop(0).reshape(n), out=c, casting="unsafe")
    if has_bias:
        np.add(c, rest.pop(0).reshape(n), out=c, casting="unsafe")
    return c.reshape(x.shape) if out is None else out


def layer_norm_array(x: np.ndarray, affine, begin_axis: int, epsilon: float, has_weight: bool,
                     has_bias: bool, out: Optional[np.ndarray] = None) -> np.ndarray:
    """layer_norm over x's axes from begin_axis on, into out (x's shape and float dtype; may be
    x) or a new array; integer and float16 inputs are computed in float32."""
    n = math.prod(x.shape[begin_axis:])
    if x.dtype in _ROWS_DTYPES and x.size and (out is None or out.flags.c_contiguous):
        return _layer_norm_rows(x, affine, n, epsilon, has_weight, has_bias, out)
    axes = tuple(range(begin_axis, x.ndim))
    xf = x.astype(np.float32) if x.dtype.kind != "f" or x.dtype == np.float16 else x
    mean = xf.mean(axis=axes, keepdims=True)
    # two full-size buffers (the centered input and its square), every later step in place
    res = xf - mean
    square = np.multiply(res, res)
    var = square.mean(axis=axes, keepdims=True)
    var += epsilon
    np.sqrt(var, out=var)
    res /= var
    tail = x.shape[begin_axis:]
    rest = list(affine)
    if has_weight:
        np.multiply(res, rest.pop(0).reshape(tail), out=res, casting="unsafe")
    if has_bias:
        np.add(res, rest.pop(0).reshape(tail), out=res, casting="unsafe")
    res = res.astype(x.dtype if x.dtype.kind == "f" else np.float32, copy=False)
    if out is None:
        return res
    np.copyto(out, res)
    return out


@register_op("layer_norm", infer=_float_meta)
def _layer_norm_kernel(x, *affine, begin_axis, epsilon, has_weight, has_bias):
    return layer_norm_array(x, affine, begin_axis, epsilon, has_weight, has_bias)


@register_into("layer_norm")
def _layer_norm_into(x, *affine, out, begin_axis, epsilon, has_weight, has_bias):
    return layer_norm_array(x, affine, begin_axis, epsilon, has_weight, has_bias, out)


def layer_norm(x: Any, normalized_shape: Any, weight: Any = None, bias: Any = None,
               epsilon: float = 1e-05, name: Optional[str] = None) -> Any:
    """Normalise over the trailing dims given by normalized_shape, then scale and shift."""
    x = as_tensor(x)
    dims = [int(normalized_shape)] if isinstance(normalized_shape, int) else [int(d) for d in normalized_shape]
    shape = known_dims(x)
    tail = shape[len(shape) - len(dims):]
    if len(dims) > len(shape) or any(t >= 0 and t != d for t, d in zip(tail, dims)):
        raise ValueError(f"layer_norm: normalized_shape {dims} does not match the trailing dims of "
                         f"an input of shape {shape}")
    size = int(np.prod(dims))
    inputs = [x]
    for name_, t in (("weight", weight), ("bias", bias)):
        if t is not None:
            t_dims = known_dims(t)
            if all(d >= 0 for d in t_dims) and int(np.prod(t_dims)) != size:
                raise ValueError(f"layer_norm: {name_} has shape {t_dims}; it needs "
                                 f"{size} elements to match normalized_shape {dims}")
            inputs.append(cast(t, x.dtype) if x.dtype.is_floating else t)
    return apply("layer_norm", inputs, {"begin_axis": x.ndim - len(dims), "epsilon": float(epsilon),
                                        "has_weight": weight is not None, "has_bias": bias is not None})


# ----------------------------------------------------------------------------- batch_norm
def _stats_infer(x, axis):
    c = x._shape[axis]
    return Meta((c,), x.dtype), Meta((c,), x.dtype)


@register_op("batch_norm_stats", infer=_stats_infer, n_outputs=2)
def _batch_norm_stats_kernel(x, axis):
    """Per-channel mean and biased variance over every axis but `axis`."""
    axes = tuple(i for i in range(x.ndim) if i != axis)
    mean = x.mean(axis=axes)
    var = np.mean(np.square(x - np.expand_dims(mean, axes)), axis=axes)
    return mean.astype(x.dtype, copy=False), var.astype(x.dtype, copy=False)


@register_op("batch_norm", infer=_float_meta)
def _batch_norm_kernel(x, mean, var, *affine, axis, epsilon, has_weight, has_bias):
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    out = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + epsilon)
    rest = list(affine)
    if has_weight:
        out = out * rest.pop(0).reshape(shape)
    if has_bias:
        out = out + rest.pop(0).reshape(shape)
    return out.astype(x.dtype, copy=False)


_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def batch_norm(x: Any, running_mean: Any, running_var: Any, weight: Any = None, bias: Any = None,
               training: bool = False, momentum: float = 0.9, epsilon: float = 1e-05,
               data_format: str = "NCHW", use_global_stats: Optional[bool] = None,
               name: Optional[str] = None) -> Any:
    """Batch normalisation over the channel axis (1, or the last for channel-last layouts).

    Training uses the batch's statistics and updates the running statistics:
    running = momentum * running + (1 - momentum) * batch, at once in eager mode and after each
    run of a static program (runtime/persistable.py)."""
    x = as_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"batch_norm: the input must have rank >= 2, got shape {list(x.shape)}")
    axis = x.ndim - 1 if data_format in _CHANNEL_LAST else 1
    use_batch = training if use_global_stats is None else not use_global_stats
    return normalize_batch(x, running_mean, running_var, weight, bias, use_batch, momentum,
                           epsilon, axis)


def normalize_batch(x: Tensor, running_mean: Any, running_var: Any, weight: Any, bias: Any,
                    use_batch: bool, momentum: float, epsilon: float, axis: int,
                    synced: bool = False) -> Any:
    """batch_norm over channel `axis`: with the batch's statistics (and an update of the running
    ones) when `use_batch`, else with the running ones. `synced`: the batch's statistics are
    those of the batches of every process of the job (SyncBatchNorm)."""
    if use_batch:
        if synced:
            mean, var, _ = apply("sync_batch_norm_stats", [x], {"axis": axis})
        else:
            mean, var = apply("batch_norm_stats", [x], {"axis": axis})
        if isinstance(running_mean, Tensor):
            with no_grad():
                for running, batch in ((running_mean, mean), (running_var, var)):
                    write_persistable(running, running * momentum + batch.detach() * (1 - momentum))
            block = state.current_block()
            if block is not None:       # a test clone of the program reads the running values
                block.program.test_substitutes.update({mean.name: running_mean,
                                                       var.name: running_var})
    else:
        mean, var = running_mean, running_var
    inputs = [x, mean, var] + [t for t in (weight, bias) if t is not None]
    return apply("batch_norm", inputs, {"axis": axis, "epsilon": float(epsilon),
                                        "has_weight": weight is not None, "has_bias": bias is not None})


# ----------------------------------------------------------------------------- normalize
@register_op("normalize", infer=_float_meta)
def _normalize_kernel(x, p, axis, epsilon):
    if p == 2:
        norm = np.sqrt(np.sum(np.square(x), axis=axis, keepdims=True))
    elif np.isinf(p):
        norm = np.max(np.abs(x), axis=axis, keepdims=True)
    else:
        norm = np.sum(np.abs(x) ** p, axis=axis, keepdims=True) ** (1.0 / p)
    out = x / np.maximum(norm, epsilon)
    return out.astype(x.dtype if x.dtype.kind == "f" else np.float32, copy=False)


def normalize(x: Any, p: float = 2, axis: int = 1, epsilon: float = 1e-12, name: Optional[str] = None) -> Any:
    """x / max(||x||_p along axis, epsilon)."""
    x = as_tensor(x)
    nd = max(x.ndim, 1)
    if not -nd <= axis < nd:
        raise ValueError(f"normalize: axis {axis} is out of range for a tensor of rank {x.ndim}")
    return apply("normalize", [x], {"p": float(p), "axis": int(axis), "epsilon": float(epsilon)})
