"""Matrix-structure creation ops: tril, triu, diag."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..registry import Meta, apply, register_op


def _tri_infer(x, diagonal):
    if len(x._shape) < 2:
        raise ValueError(f"tril/triu: the input must have rank >= 2, got shape {list(x._shape)}")
    return Meta(x._shape, x.dtype)


@register_op("tril", infer=_tri_infer)
def _tril_kernel(x, diagonal):
    return np.tril(x, diagonal)


@register_op("triu", infer=_tri_infer)
def _triu_kernel(x, diagonal):
    return np.triu(x, diagonal)


def tril(x: Any, diagonal: int = 0, name: Optional[str] = None) -> Any:
    """The lower triangle of the last two dims (entries above `diagonal` zeroed)."""
    return apply("tril", [x], {"diagonal": int(diagonal)})


def triu(x: Any, diagonal: int = 0, name: Optional[str] = None) -> Any:
    """The upper triangle of the last two dims (entries below `diagonal` zeroed)."""
    return apply("triu", [x], {"diagonal": int(diagonal)})


def _diag_infer(x, offset, padding_value):
    s = x._shape
    if len(s) == 1:
        n = s[0] + abs(offset) if s[0] >= 0 else -1
        return Meta((n, n), x.dtype)
    if len(s) == 2:
        r, c = s
        if r < 0 or c < 0:
            return Meta((-1,), x.dtype)
        n = min(r, c - offset) if offset >= 0 else min(r + offset, c)
        return Meta((max(n, 0),), x.dtype)
    raise ValueError(f"diag: the input must have rank 1 or 2, got shape {list(s)}")


@register_op("diag", infer=_diag_infer)
def _diag_kernel(x, offset, padding_value):
    if x.ndim == 1:
        n = x.shape[0] + abs(offset)
        out = np.full((n, n), padding_value, dtype=x.dtype)
        idx = np.arange(x.shape[0])
        rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
        out[rows, cols] = x
        return out
    return np.diagonal(x, offset).copy()


def diag(x: Any, offset: int = 0, padding_value: Any = 0, name: Optional[str] = None) -> Any:
    """A 1-D x as the `offset` diagonal of a square matrix, or the `offset` diagonal of a 2-D x."""
    return apply("diag", [x], {"offset": int(offset), "padding_value": padding_value})
