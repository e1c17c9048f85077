"""paddle.nn.layer: the Layer base class (layers.py) and Paddle's module paths for the built-in
layers (`paddle.nn.layer.activation`, `.conv`, `.norm`, ...), loaded on first use."""
from __future__ import annotations

from ...runtime.lazy import lazy_getattr
from .layers import Layer

__all__ = ["Layer"]

# Paddle's submodules of paddle.nn.layer; each re-exports the dy2st.nn.layers classes of its family
_SUBMODULES = ("activation", "common", "container", "conv", "distance", "loss", "norm", "pooling",
               "rnn", "transformer", "vision")
__getattr__ = lazy_getattr(__name__, {m: m for m in _SUBMODULES}, globals())
