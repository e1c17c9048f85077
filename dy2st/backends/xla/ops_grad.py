"""Lowerings of the gradient bookkeeping ops the static backward and optimizers append."""
from __future__ import annotations

from .loader import jax_modules
from .table import lowers

_m = jax_modules


@lowers("grad_clear")
def _grad_clear(cx, x, set_to_zero=True):
    return _m().jnp.zeros(x.shape, x.dtype)


@lowers("grad_accumulate")
def _grad_accumulate(cx, old, new):
    return old + new


@lowers("py_layer")
def _py_layer(cx, out, *inputs, layer, call, frozen):
    return out          # the PyLayer's forward, traced before this op, is its value
