"""Random sampling composed from the uniform and Gaussian ops: randperm, bernoulli,
multinomial, standard_normal, randint_like, log_normal, and the values of the in-place fills
uniform_, normal_ and exponential_."""
from __future__ import annotations

import math as _math
from typing import Any, Optional

from ..dtype import dtype_name
from .complex import complex as make_complex
from .counting import searchsorted
from .creation import full_like
from .math import exp, floor, log, log1p
from .operands import as_tensor, cast
from .random import randn, uniform
from .reduce import sum as _sum
from .scan import cumsum
from .sorting import argsort, topk


def standard_normal(shape: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    """Samples of N(0, 1)."""
    return randn(shape, dtype)


def randperm(n: int, dtype: Any = "int64", name: Optional[str] = None) -> Any:
    """A random permutation of 0 .. n - 1."""
    return cast(argsort(uniform([n], "float64", 0.0, 1.0)), dtype)


def randint_like(x: Any, low: int = 0, high: Optional[int] = None, dtype: Any = None,
                 name: Optional[str] = None) -> Any:
    """Random ints in [low, high) with x's shape (and dtype unless given)."""
    if high is None:
        low, high = 0, low
    if high <= low:
        raise ValueError(f"randint_like: high ({high}) must be greater than low ({low})")
    x = as_tensor(x)
    u = uniform(x.shape, "float64", 0.0, 1.0)
    return cast(floor(u * (high - low)) + low, dtype or x.dtype)


def bernoulli(x: Any, p: Optional[float] = None, name: Optional[str] = None) -> Any:
    """1 with probability x (elementwise; or p for every entry), else 0, in x's dtype."""
    x = as_tensor(x)
    prob = x if p is None else full_like(x, p)
    return cast(uniform(x.shape, "float64", 0.0, 1.0) < cast(prob, "float64"), x.dtype)


def multinomial(x: Any, num_samples: int = 1, replacement: bool = False,
                name: Optional[str] = None) -> Any:
    """num_samples category indices per row of the (unnormalised) probabilities x."""
    x = as_tensor(x)
    u = uniform(x.shape if replacement is False else list(x.shape[:-1]) + [num_samples],
                "float64", 1e-12, 1.0)
    p = cast(x, "float64")
    if not replacement:
        # Gumbel top-k: the k largest of log p + Gumbel noise are a sample without replacement
        from .selection import where
        positive = p > 0
        log_p = where(positive, log(where(positive, p, p * 0 + 1)), p * 0 - float("inf"))
        keys = log_p - log(-log(u))
        return topk(keys, num_samples, axis=-1)[1]
    cdf = cumsum(p, axis=-1) / _sum(p, axis=-1, keepdim=True)
    return searchsorted(cdf, u, right=True)


def log_normal(mean: float = 1.0, std: float = 2.0, shape: Any = None, dtype: Any = None,
               name: Optional[str] = None) -> Any:
    """exp of samples of N(mean, std)."""
    return exp(randn(shape, dtype) * std + mean)


def real_fill_only(op: str, x: Any, why: str = "Paddle 3.3.1 has no complex kernel for it") -> None:
    """Refuse an in-place random fill of a complex tensor (rather than filling its real part
    only); normal_ and log_normal_ are the fills that take complex tensors."""
    if x.dtype.is_complex:
        raise TypeError(f"{op}: cannot fill a {dtype_name(x.dtype)} tensor ({why}; normal_ and log_normal_ "
                        "fill complex tensors)")


def complex_normal(x: Any, mean: Any, std: float) -> Any:
    """Paddle's complex Gaussian fill: real and imaginary parts each N(mean, std / sqrt(2)),
    so that E|z - mean(1 + 1j)|^2 = std^2; a complex mean must have equal parts (as Paddle)."""
    if isinstance(mean, complex):
        if mean.real != mean.imag:
            raise ValueError("normal_: the mean of a complex Gaussian must have equal real and "
                             f"imaginary parts, got {mean}")
        mean = mean.real
    shape, s = as_tensor(x).shape, float(std) / _math.sqrt(2.0)
    parts = [randn(shape, "float64") * s + float(mean) for _ in range(2)]
    return cast(make_complex(*parts), x.dtype)


def _uniform_fill(x: Any, min: float = -1.0, max: float = 1.0, seed: int = 0) -> Any:
    real_fill_only("uniform_", x)
    return cast(uniform(as_tensor(x).shape, "float64", min, max), x.dtype)


def _normal_fill(x: Any, mean: Any = 0.0, std: float = 1.0) -> Any:
    if x.dtype.is_complex:
        return complex_normal(x, mean, std)
    if isinstance(mean, complex):
        raise TypeError(f"normal_: a complex mean needs a complex tensor, got {dtype_name(x.dtype)}")
    return cast(randn(as_tensor(x).shape, "float64") * std + mean, x.dtype)


def _exponential_fill(x: Any, lam: float = 1.0) -> Any:
    real_fill_only("exponential_", x)
    u = uniform(as_tensor(x).shape, "float64", 0.0, 1.0)
    return cast(-log1p(-u) / lam, x.dtype)
