"""Random creation ops (rand, randn, randint, uniform, normal) drawing from config.rng() when run."""
from __future__ import annotations

from typing import Any, Optional

from .. import config
from ..dtype import REAL_OF, convert_dtype, dtype_name, int64
from ..registry import Meta, apply, register_op
from .complex import complex as make_complex
from .creation import default_float, split_shape
from .math import add, multiply
from .operands import as_tensor, cast, is_tensor


def _template_infer(*dims, shape, dtype, **attrs):
    return Meta(tuple(-1 if d is None else d for d in shape), convert_dtype(dtype))


def _real_shape(shape, dims):
    it = iter(dims)
    return [int(next(it)) if d is None else d for d in shape]


# The kernels call config.rng() on every run (never at build time), so a compiled Program draws
# fresh numbers each run and dy2st.seed(n) makes the draws reproducible.
@register_op("uniform_random", infer=_template_infer)
def _uniform_kernel(*dims, shape, dtype, min, max):
    return config.rng().uniform(min, max, _real_shape(shape, dims)).astype(dtype)


@register_op("gaussian_random", infer=_template_infer)
def _gaussian_kernel(*dims, shape, dtype, mean, std):
    return config.rng().normal(mean, std, _real_shape(shape, dims)).astype(dtype)


@register_op("randint", infer=_template_infer)
def _randint_kernel(*dims, shape, dtype, low, high):
    return config.rng().integers(low, high, _real_shape(shape, dims)).astype(dtype)


_HALF_SQRT2 = 0.5 ** 0.5


def _float_dtype(dtype: Any):
    d = convert_dtype(dtype) if dtype is not None else default_float()
    if not d.is_floating:
        raise TypeError(f"random floats need a float dtype, got {dtype_name(d)}")
    return d


def _complex_dtype(dtype: Any) -> Any:
    d = convert_dtype(dtype) if dtype is not None else None
    return d if d is not None and d.is_complex else None


def uniform(shape: Any, dtype: Any = None, min: float = -1.0, max: float = 1.0, seed: int = 0,
            name: Optional[str] = None) -> Any:
    """Uniform samples in [min, max) (for a complex dtype both parts, as Paddle's rand)."""
    c = _complex_dtype(dtype)
    if c is not None:
        return make_complex(*[uniform(shape, REAL_OF[c], min, max) for _ in range(2)])
    template, dims = split_shape(shape)
    return apply("uniform_random", dims, {"shape": template, "dtype": dtype_name(_float_dtype(dtype)),
                                          "min": float(min), "max": float(max)})


def rand(shape: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    """Uniform samples in [0, 1)."""
    return uniform(shape, dtype, 0.0, 1.0)


def randn(shape: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    """Standard normal samples (for a complex dtype both parts N(0, 1/2), so E|z|^2 = 1, as
    Paddle)."""
    c = _complex_dtype(dtype)
    if c is not None:
        return make_complex(*[randn(shape, REAL_OF[c]) * _HALF_SQRT2 for _ in range(2)])
    template, dims = split_shape(shape)
    return apply("gaussian_random", dims, {"shape": template, "dtype": dtype_name(_float_dtype(dtype)),
                                           "mean": 0.0, "std": 1.0})


def randint(low: int = 0, high: Optional[int] = None, shape: Any = (1,), dtype: Any = None,
            name: Optional[str] = None) -> Any:
    """Integers uniformly drawn from [low, high) (from [0, low) when high is None)."""
    if high is None:
        low, high = 0, low
    if high <= low:
        raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
    d = convert_dtype(dtype) if dtype is not None else int64
    template, dims = split_shape(shape)
    return apply("randint", dims, {"shape": template, "dtype": dtype_name(d), "low": int(low),
                                   "high": int(high)})


def normal(mean: Any = 0.0, std: Any = 1.0, shape: Any = None, name: Optional[str] = None) -> Any:
    """Normal samples; with tensor mean/std the result has their broadcast shape."""
    if is_tensor(mean) or is_tensor(std):
        m, s = as_tensor(mean), as_tensor(std)
        ref = add(m, s)         # only for the broadcast shape and dtype of the result
        noise = randn(ref.shape, ref.dtype if ref.dtype.is_floating else None)
        return add(multiply(noise, cast(s, noise.dtype)), cast(m, noise.dtype))
    if shape is None:
        raise ValueError("normal: give `shape` when mean and std are numbers")
    template, dims = split_shape(shape)
    return apply("gaussian_random", dims, {"shape": template, "dtype": dtype_name(default_float()),
                                           "mean": float(mean), "std": float(std)})
