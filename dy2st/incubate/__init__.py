"""paddle.incubate: the incubating names model zoos import (`incubate.nn.FusedLinear`)."""
from __future__ import annotations

from . import nn

__all__ = ["nn"]
