"""Ops that rearrange or repeat elements: flip, roll, tile."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..registry import Meta, apply, register_op
from . import infer as I
from .creation import split_shape
from .operands import is_tensor


def _axes(x: Any, axis: Any) -> List[int]:
    axes = [axis] if isinstance(axis, int) else [int(a) for a in axis]
    return list(I.norm_axes(axes, x.ndim) or ())


@register_op("flip", infer=lambda x, axis: Meta(x._shape, x.dtype))
def _flip_kernel(x, axis):
    return np.flip(x, axis=tuple(axis)).copy()


def flip(x: Any, axis: Any, name: Optional[str] = None) -> Any:
    """x with the order of elements reversed along `axis` (an int or a list)."""
    return apply("flip", [x], {"axis": _axes(x, axis)})


@register_op("roll", infer=lambda x, shifts, axis: Meta(x._shape, x.dtype))
def _roll_kernel(x, shifts, axis):
    if axis is None:          # roll the flattened tensor, then restore the shape
        return np.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
    return np.roll(x, shifts, axis=tuple(axis))


def roll(x: Any, shifts: Any, axis: Any = None, name: Optional[str] = None) -> Any:
    """Shift elements cyclically by `shifts` along `axis` (the flattened tensor when None)."""
    shifts = [int(shifts)] if isinstance(shifts, int) or is_tensor(shifts) else [int(s) for s in shifts]
    if axis is None:
        if len(shifts) != 1:
            raise ValueError(f"roll: with axis=None shifts must be one int, got {shifts}")
        return apply("roll", [x], {"shifts": shifts, "axis": None})
    axes = _axes(x, axis)
    if len(axes) != len(shifts):
        raise ValueError(f"roll: shifts {shifts} and axis {axes} differ in length")
    return apply("roll", [x], {"shifts": shifts, "axis": axes})


def _tile_infer(x, *dims, repeat_times):
    shape = list(x._shape)
    reps = list(repeat_times)
    n = max(len(shape), len(reps))
    shape = [1] * (n - len(shape)) + shape
    reps = [1] * (n - len(reps)) + reps
    return Meta(tuple(-1 if r is None or d < 0 else d * r for d, r in zip(shape, reps)), x.dtype)


@register_op("tile", infer=_tile_infer)
def _tile_kernel(x, *dims, repeat_times):
    it = iter(dims)
    return np.tile(x, [int(next(it)) if r is None else r for r in repeat_times])


def tile(x: Any, repeat_times: Any, name: Optional[str] = None) -> Any:
    """x repeated `repeat_times[i]` times along each dim (x's rank is padded with leading 1s)."""
    template, dims = split_shape(repeat_times)
    if any(r is not None and r < 0 for r in template):
        raise ValueError(f"tile: repeat_times must be non-negative, got {template}")
    return apply("tile", [x, *dims], {"repeat_times": template})
