"""Random sampling with parameters per entry (poisson, binomial, standard_gamma: kernels that
draw from config.rng() when run) and the values of the in-place fills bernoulli_, cauchy_,
geometric_, log_normal_ and random_ (tensor_methods installs the fills)."""
from __future__ import annotations

import math as _math
from typing import Any, Optional

import numpy as np

from .. import config
from ..dtype import dtype_name, int64
from ..registry import Meta, apply, register_op
from . import infer as I
from .math import exp, floor, log, log1p, tan
from .operands import as_tensor, cast, is_tensor
from .random import randn, uniform
from .random_extra import complex_normal, real_fill_only


def _same_float(x, **attrs):
    return Meta(x._shape, x.dtype)


@register_op("poisson", infer=_same_float)
def _poisson_kernel(x):
    return config.rng().poisson(np.maximum(x, 0)).astype(x.dtype)


@register_op("standard_gamma", infer=_same_float)
def _standard_gamma_kernel(x):
    return config.rng().standard_gamma(x).astype(x.dtype)


@register_op("binomial", infer=lambda n, p: Meta(I.broadcast_shapes("binomial", n._shape,
                                                                    p._shape), int64))
def _binomial_kernel(n, p):
    return config.rng().binomial(n.astype(np.int64), p).astype(np.int64)


def _floating(op: str, x: Any) -> Any:
    x = as_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{op}: x must be a float tensor, got {dtype_name(x.dtype)}")
    return x


def poisson(x: Any, name: Optional[str] = None) -> Any:
    """One Poisson sample per entry with rate x (x's shape and dtype)."""
    return apply("poisson", [_floating("poisson", x)])


def standard_gamma(x: Any, name: Optional[str] = None) -> Any:
    """One Gamma(alpha = x, beta = 1) sample per entry (x's shape and dtype)."""
    return apply("standard_gamma", [_floating("standard_gamma", x)])


def binomial(count: Any, prob: Any, name: Optional[str] = None) -> Any:
    """One Binomial(count, prob) sample per entry of their broadcast shape (int64)."""
    count, prob = as_tensor(count), as_tensor(prob)
    if not prob.dtype.is_floating:
        raise TypeError(f"binomial: prob must be a float tensor, got {dtype_name(prob.dtype)}")
    return apply("binomial", [count, prob])


def _u(x: Any) -> Any:
    return uniform(as_tensor(x).shape, "float64", 0.0, 1.0)


def _bernoulli_fill(x: Any, p: Any = 0.5) -> Any:
    real_fill_only("bernoulli_", x)
    prob = cast(p, "float64") if is_tensor(p) else float(p)
    return cast(_u(x) < prob, x.dtype)


def _cauchy_fill(x: Any, loc: float = 0, scale: float = 1) -> Any:
    real_fill_only("cauchy_", x, "Paddle 3.3.1 fills one with tan(pi (n - 0.5)) of a complex "
                                 "normal n, which is no Cauchy distribution")
    return cast(tan((_u(x) - 0.5) * _math.pi) * scale + loc, x.dtype)


def _geometric_fill(x: Any, probs: Any) -> Any:
    real_fill_only("geometric_", x)
    # Paddle's geometric_ fills log(u) / log(1 - probs) (a continuous value, not rounded up)
    p = cast(probs, "float64") if is_tensor(probs) else float(probs)
    denominator = log1p(-p) if is_tensor(p) else _math.log1p(-p)
    return cast(log(_u(x)) / denominator, x.dtype)


def _log_normal_fill(x: Any, mean: float = 1.0, std: float = 2.0) -> Any:
    if x.dtype.is_complex:          # as Paddle: exp of its complex Gaussian fill
        return exp(complex_normal(x, mean, std))
    return cast(exp(randn(as_tensor(x).shape, "float64") * std + mean), x.dtype)


def _random_fill(x: Any, from_: int = 0, to: Optional[int] = None) -> Any:
    # integers in [from_, to - 1]; without `to`, up to the largest integer x's dtype holds exactly
    x = as_tensor(x)
    real_fill_only("random_", x)
    if to is None:
        if x.dtype.is_floating:
            to = 2 ** (np.finfo(x.dtype.np).nmant + 1) + 1
        else:
            to = int(np.iinfo(x.dtype.np).max)
    if to <= from_:
        raise ValueError(f"random_: `to` ({to}) must be greater than `from` ({from_})")
    return cast(floor(_u(x) * float(to - from_)) + float(from_), x.dtype)
