"""Elementwise lowerings: arithmetic, comparisons, logic, bit operations, unary math and special
functions (results are cast to the dtype the program declared by the interpreter)."""
from __future__ import annotations

from typing import Any

from ...runtime.ops.rounding import ten_power
from .loader import jax_modules
from .table import lowers

_m = jax_modules
_BINARY = {
    "add": "add", "subtract": "subtract", "multiply": "multiply", "maximum": "maximum",
    "minimum": "minimum", "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
    "bitwise_xor": "bitwise_xor", "equal": "equal", "not_equal": "not_equal",
    "less_than": "less", "less_equal": "less_equal", "greater_than": "greater",
    "greater_equal": "greater_equal", "logical_and": "logical_and", "logical_or": "logical_or",
    "logical_xor": "logical_xor", "floor_divide": "floor_divide", "remainder": "mod",
    "pow": "power", "gcd": "gcd", "lcm": "lcm", "nextafter": "nextafter",
}
_UNARY = {
    "exp": "exp", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
    "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "tanh": "tanh", "sinh": "sinh",
    "cosh": "cosh", "asin": "arcsin", "acos": "arccos", "atan": "arctan", "floor": "floor",
    "ceil": "ceil", "abs": "abs", "neg": "negative", "sign": "sign", "square": "square",
    "logical_not": "logical_not", "bitwise_not": "invert", "isnan": "isnan", "isinf": "isinf",
    "isfinite": "isfinite",
}
_SPECIAL = {"erf": "erf", "erfinv": "erfinv", "lgamma": "gammaln", "digamma": "digamma",
            "i0": "i0", "i0e": "i0e", "i1": "i1", "i1e": "i1e"}


def _float(cx: Any, x: Any) -> Any:
    """x as the float dtype the op returns (integers compute in float32, as the kernels do)."""
    return x.astype(cx.out_dtype()) if x.dtype != cx.out_dtype() else x


def _binary(name: str):
    def lower(cx, x, y):
        return getattr(_m().jnp, name)(x, y)
    return lower


def _unary(name: str, floating: bool):
    def lower(cx, x):
        if floating and cx.out_dtype().kind == "f" and x.dtype.kind != "c":
            x = _float(cx, x)       # (abs of a complex tensor is real: its input stays complex)
        return getattr(_m().jnp, name)(x)
    return lower


def _special(name: str):
    def lower(cx, x):
        return getattr(_m().special, name)(_float(cx, x))
    return lower


for _op, _fn in _BINARY.items():
    lowers(_op)(_binary(_fn))
for _op, _fn in _UNARY.items():
    lowers(_op)(_unary(_fn, True))
for _op, _fn in _SPECIAL.items():
    lowers(_op)(_special(_fn))


@lowers("divide")
def _divide(cx, x, y):
    return _float(cx, x) / _float(cx, y)


@lowers("round")
def _round(cx, x, decimals=0):
    jnp = _m().jnp
    if x.dtype.kind in "iub":       # integers come back unchanged, as in Paddle
        return x
    if decimals == 0:
        return jnp.round(x)         # halves to even, as Paddle 3.3.1 on CPU
    # Paddle's kernel: 10**|decimals| in the value's (real) dtype, inf past its range
    p = ten_power(decimals, jnp.real(x).dtype)
    return jnp.round(x * p) / p if decimals > 0 else jnp.round(x / p) * p


@lowers("rsqrt")
def _rsqrt(cx, x):
    return _m().lax.rsqrt(_float(cx, x))


@lowers("reciprocal")
def _reciprocal(cx, x):
    return 1.0 / _float(cx, x)


@lowers("sigmoid")
def _sigmoid(cx, x):
    x = _float(cx, x)
    return 0.5 * (1.0 + _m().jnp.tanh(0.5 * x))


@lowers("clip")
def _clip(cx, x, min, max):
    return _m().jnp.clip(x, min, max)


@lowers("scale")
def _scale(cx, x, scale, bias, bias_after_scale):
    return x * scale + bias if bias_after_scale else (x + bias) * scale


@lowers("increment")
def _increment(cx, x, value):
    return x + value


@lowers("bitwise_shift")
def _shift(cx, x, y, left, arithmetic):
    jnp = _m().jnp
    if left:
        return jnp.left_shift(x, y)
    if arithmetic:
        return jnp.right_shift(x, y)
    lax = _m().lax
    return lax.shift_right_logical(x, y.astype(x.dtype))


@lowers("polygamma")
def _polygamma(cx, x, n):
    return _m().special.polygamma(n, _float(cx, x))


@lowers("gammainc")
def _gammainc(cx, x, y):
    return _m().special.gammainc(_float(cx, x), _float(cx, y))


@lowers("gammaincc")
def _gammaincc(cx, x, y):
    return _m().special.gammaincc(_float(cx, x), _float(cx, y))


@lowers("isclose")
def _isclose(cx, x, y, rtol, atol, equal_nan):
    return _m().jnp.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


@lowers("allclose")
def _allclose(cx, x, y, rtol, atol, equal_nan):
    return _m().jnp.allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


@lowers("equal_all")
def _equal_all(cx, x, y):
    jnp = _m().jnp
    if x.shape != y.shape:
        return jnp.asarray(False)
    return jnp.all(x == y)


@lowers("where")
def _where(cx, cond, x, y):
    return _m().jnp.where(cond, x, y)


@lowers("cast")
def _cast(cx, x, dtype):
    return x.astype(cx.out_dtype())


@lowers("assign", "detach")
def _identity(cx, x):
    return x


@lowers("no_grad_update")
def _no_grad_update(cx, new, old):
    return new          # an in-place change made under no_grad: only its gradient differs
