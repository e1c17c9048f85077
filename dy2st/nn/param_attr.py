"""ParamAttr: how a layer should create one parameter (name, initializer, trainable)."""
from __future__ import annotations

from typing import Any, Optional

from .initializer import Initializer


class ParamAttr:
    """Paddle's ParamAttr; learning_rate / regularizer / need_clip are kept for compatibility only."""

    def __init__(self, name: Optional[str] = None, initializer: Optional[Initializer] = None,
                 learning_rate: float = 1.0, regularizer: Any = None, trainable: bool = True,
                 do_model_average: bool = True, need_clip: bool = True) -> None:
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    def __repr__(self) -> str:
        return (f"ParamAttr(name={self.name!r}, initializer={type(self.initializer).__name__ if self.initializer else None}, "
                f"trainable={self.trainable})")


def to_param_attr(attr: Any) -> Optional[ParamAttr]:
    """Normalise the forms Paddle accepts: None, False (no parameter), a name, an Initializer, a ParamAttr."""
    if attr is None or attr is True:
        return ParamAttr()
    if attr is False:
        return None
    if isinstance(attr, ParamAttr):
        return attr
    if isinstance(attr, str):
        return ParamAttr(name=attr)
    if isinstance(attr, Initializer):
        return ParamAttr(initializer=attr)
    raise TypeError(f"a parameter attribute must be None, False, a name, an Initializer or a "
                    f"ParamAttr, got {type(attr).__name__}")


class WeightNormParamAttr(ParamAttr):
    """A parameter reparameterised as w = g * v / ||v|| (weight normalisation): the layer
    creating it gets two parameters, `<name>_g` (the norm, one per index of `dim`, or one
    number for dim=None) and `<name>_v` (the direction), and w is computed from them in the
    program. As in Paddle it is a static-graph attribute: layers built while a static program
    is built (dynamic code computes g * v / ||v|| in its forward)."""

    def __init__(self, dim: Optional[int] = None, name: Optional[str] = None,
                 initializer: Optional[Initializer] = None, learning_rate: float = 1.0,
                 regularizer: Any = None, trainable: bool = True, do_model_average: bool = False,
                 need_clip: bool = True) -> None:
        super().__init__(name=name, initializer=initializer, learning_rate=learning_rate,
                         regularizer=regularizer, trainable=trainable,
                         do_model_average=do_model_average, need_clip=need_clip)
        if dim is not None and not isinstance(dim, int):
            raise TypeError(f"WeightNormParamAttr: dim must be an int or None, got {dim!r}")
        self.dim = dim
