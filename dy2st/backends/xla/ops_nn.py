"""Neural-network lowerings: activations, softmax, normalisation, embedding, cross entropy
(convolutions and pooling: ops_conv.py)."""
from __future__ import annotations

import math

from .loader import jax_modules
from .table import lowers

_m = jax_modules


def _f(cx, x):
    return x.astype(cx.out_dtype()) if x.dtype != cx.out_dtype() else x


@lowers("relu")
def _relu(cx, x):
    return _m().jnp.maximum(x, 0).astype(x.dtype)


@lowers("relu6")
def _relu6(cx, x, threshold):
    return _m().jnp.clip(x, 0, threshold)


@lowers("leaky_relu")
def _leaky(cx, x, negative_slope):
    x = _f(cx, x)
    return _m().jnp.where(x >= 0, x, x * negative_slope)


@lowers("hardtanh")
def _hardtanh(cx, x, min, max):
    return _m().jnp.clip(x, min, max)


@lowers("hardsigmoid")
def _hardsigmoid(cx, x, slope, offset):
    return _m().jnp.clip(_f(cx, x) * slope + offset, 0.0, 1.0)


@lowers("hardswish")
def _hardswish(cx, x):
    x = _f(cx, x)
    return x * _m().jnp.clip(x + 3.0, 0.0, 6.0) / 6.0


@lowers("elu")
def _elu(cx, x, alpha):
    jnp = _m().jnp
    x = _f(cx, x)
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.minimum(x, 0)))


@lowers("gelu")
def _gelu(cx, x, approximate):
    jnp = _m().jnp
    x = _f(cx, x)
    if approximate:
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)
        return 0.5 * x * (1.0 + jnp.tanh(inner))
    return 0.5 * x * (1.0 + _m().special.erf(x / math.sqrt(2.0)))


@lowers("silu")
def _silu(cx, x):
    x = _f(cx, x)
    return x * (0.5 * (1.0 + _m().jnp.tanh(0.5 * x)))


@lowers("softplus")
def _softplus(cx, x, beta, threshold):
    jnp = _m().jnp
    x = _f(cx, x)
    bx = x * beta
    return jnp.where(bx > threshold, x, jnp.logaddexp(0.0, bx) / beta)


@lowers("mish")
def _mish(cx, x):
    jnp = _m().jnp
    x = _f(cx, x)
    return x * jnp.tanh(jnp.logaddexp(0.0, x))


@lowers("softmax")
def _softmax(cx, x, axis):
    jnp = _m().jnp
    x = _f(cx, x)
    e = jnp.exp(x - jnp.max(x, axis=axis, keepdims=True))
    return e / jnp.sum(e, axis=axis, keepdims=True)


def _log_softmax_of(x, axis):
    jnp = _m().jnp
    shifted = x - jnp.max(x, axis=axis, keepdims=True)
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=axis, keepdims=True))


@lowers("log_softmax")
def _log_softmax(cx, x, axis):
    return _log_softmax_of(_f(cx, x), axis)


@lowers("layer_norm")
def _layer_norm(cx, x, *affine, begin_axis, epsilon, has_weight, has_bias):
    jnp = _m().jnp
    axes = tuple(range(begin_axis, x.ndim))
    xf = _f(cx, x)
    mean = xf.mean(axis=axes, keepdims=True)
    centered = xf - mean
    var = jnp.mean(jnp.square(centered), axis=axes, keepdims=True)
    out = centered / jnp.sqrt(var + epsilon)
    tail = x.shape[begin_axis:]
    rest = list(affine)
    if has_weight:
        out = out * rest.pop(0).reshape(tail)
    if has_bias:
        out = out + rest.pop(0).reshape(tail)
    return out


@lowers("batch_norm_stats")
def _bn_stats(cx, x, axis):
    jnp = _m().jnp
    axes = tuple(i for i in range(x.ndim) if i != axis)
    mean = x.mean(axis=axes)
    var = jnp.mean(jnp.square(x - jnp.expand_dims(mean, axes)), axis=axes)
    return mean.astype(x.dtype), var.astype(x.dtype)


@lowers("batch_norm")
def _batch_norm(cx, x, mean, var, *affine, axis, epsilon, has_weight, has_bias):
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    out = (x - mean.reshape(shape)) / _m().jnp.sqrt(var.reshape(shape) + epsilon)
    rest = list(affine)
    if has_weight:
        out = out * rest.pop(0).reshape(shape)
    if has_bias:
        out = out + rest.pop(0).reshape(shape)
    return out


@lowers("embedding")
def _embedding(cx, ids, w, padding_idx):
    out = _m().jnp.take(w, ids, axis=0)
    if padding_idx is not None:
        out = _m().jnp.where((ids == padding_idx % w.shape[0])[..., None], 0, out)
    return out


@lowers("cross_entropy")
def _cross_entropy(cx, x, label, *weight, axis, soft_label, ignore_index, input_kind,
                   smoothing):
    jnp = _m().jnp
    if input_kind == "logits":
        logp = _log_softmax_of(x, axis)
    elif input_kind == "probs":
        logp = jnp.log(x)
    else:
        logp = x
    n_class = x.shape[axis]
    if soft_label or smoothing:
        if soft_label:
            target = label.astype(logp.dtype)
        else:
            hard = jnp.moveaxis(label, axis, -1)[..., 0]
            eye = jnp.eye(n_class, dtype=logp.dtype)
            target = jnp.moveaxis(eye[jnp.where(hard == ignore_index, 0, hard)], -1, axis)
        if smoothing:
            target = target * (1.0 - smoothing) + smoothing / n_class
        loss = -jnp.sum(target * logp, axis=axis, keepdims=True)
        if weight:
            shape = [1] * x.ndim
            shape[axis] = weight[0].shape[0]
            w = jnp.sum(target * weight[0].reshape(shape), axis=axis, keepdims=True)
        else:
            w = jnp.ones_like(loss)
        if not soft_label:
            w = w * (label != ignore_index)
        return (loss * w).astype(x.dtype), w.astype(x.dtype)
    valid = label != ignore_index
    safe = jnp.where(valid, label, 0)
    picked = jnp.take_along_axis(logp, safe, axis=axis)
    w = weight[0][safe] if weight else jnp.ones_like(picked)
    w = w * valid
    return (-picked * w).astype(x.dtype), w.astype(x.dtype)


@lowers("gelu_grad")
def _gelu_grad(cx, x, g, approximate):
    jnp = _m().jnp
    x = x.astype(g.dtype) if x.dtype != g.dtype else x
    if approximate:
        c, a = math.sqrt(2.0 / math.pi), 0.044715
        t = jnp.tanh(c * (x + a * x ** 3))
        slope = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * c * (1.0 + 3.0 * a * x * x)
    else:
        cdf = 0.5 * (1.0 + _m().special.erf(x / math.sqrt(2.0)))
        slope = cdf + x * jnp.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    return slope * g
