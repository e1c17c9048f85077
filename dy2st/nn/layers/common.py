"""Common layers: Linear, Embedding, Dropout, Flatten, Identity, Pad."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ...runtime import ops
from ...runtime.dtype import dtype_name
from .. import functional as F
from ..layer import Layer


class Linear(Layer):
    """y = x @ weight + bias with weight [in_features, out_features]; bias_attr=False drops the bias."""

    def __init__(self, in_features: int, out_features: int, weight_attr: Any = None,
                 bias_attr: Any = None, name: Optional[str] = None) -> None:
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = self.create_parameter([self.in_features, self.out_features], attr=weight_attr)
        self.bias = self.create_parameter([self.out_features], attr=bias_attr, is_bias=True)
        self._name = name

    def forward(self, input: Any) -> Any:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        name = f", name={self._name}" if self._name else ""
        return f"in_features={self.in_features}, out_features={self.out_features}, dtype={dtype_name(self._dtype)}{name}"


class Embedding(Layer):
    """A [num_embeddings, embedding_dim] lookup table; ids equal to padding_idx give zero rows."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: Optional[int] = None,
                 sparse: bool = False, weight_attr: Any = None, name: Optional[str] = None) -> None:
        super().__init__()
        self._num_embeddings, self._embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise ValueError(f"Embedding: padding_idx must be in [-{num_embeddings}, "
                             f"{num_embeddings}), got {padding_idx}")
        self._padding_idx = None if padding_idx is None else int(padding_idx) % num_embeddings
        self._sparse = sparse
        self.weight = self.create_parameter([self._num_embeddings, self._embedding_dim], attr=weight_attr)

    def forward(self, x: Any) -> Any:
        return F.embedding(x, self.weight, padding_idx=self._padding_idx, sparse=self._sparse)

    def extra_repr(self) -> str:
        pad = f", padding_idx={self._padding_idx}" if self._padding_idx is not None else ""
        return f"{self._num_embeddings}, {self._embedding_dim}{pad}, sparse={self._sparse}"


class Dropout(Layer):
    """Random zeroing while training (see functional.dropout); the identity in eval mode."""

    def __init__(self, p: float = 0.5, axis: Any = None, mode: str = "upscale_in_train",
                 name: Optional[str] = None) -> None:
        super().__init__()
        if not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"Dropout: p must be a number in [0, 1], got {p!r}")
        self.p, self.axis, self.mode = p, axis, mode

    def forward(self, input: Any) -> Any:
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training, mode=self.mode)

    def extra_repr(self) -> str:
        return f"p={self.p}, axis={self.axis}, mode={self.mode}"


class Flatten(Layer):
    """Flatten dims start_axis..stop_axis into one (by default all but the batch dim)."""

    def __init__(self, start_axis: int = 1, stop_axis: int = -1) -> None:
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input: Any) -> Any:
        return ops.flatten(input, start_axis=self.start_axis, stop_axis=self.stop_axis)

    def extra_repr(self) -> str:
        return f"start_axis={self.start_axis}, stop_axis={self.stop_axis}"


class Identity(Layer):
    """Returns its input unchanged (extra constructor arguments are ignored, as in Paddle)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class Pad(Layer):
    """F.pad as a layer (the spatial-padding form used by Pad1D/2D/3D)."""

    def __init__(self, padding: Sequence[int], mode: str = "constant", value: float = 0.0,
                 data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__()
        self._pad, self._mode, self._value, self._data_format = list(padding), mode, value, data_format

    def forward(self, x: Any) -> Any:
        return F.pad(x, self._pad, mode=self._mode, value=self._value, data_format=self._data_format)

    def extra_repr(self) -> str:
        return f"padding={self._pad}, mode={self._mode}, value={self._value}, data_format={self._data_format}"
