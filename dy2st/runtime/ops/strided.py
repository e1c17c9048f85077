"""as_strided: a strided view of a tensor's flat elements, composed as one gather of the
flattened tensor at positions fixed when the op is built (so its gradient scatter-adds back)."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from .creation import zeros
from .dims import dims
from .gather import gather
from .operands import as_tensor
from .shape import flatten, reshape


def strided_positions(shape: Sequence[int], stride: Sequence[int], offset: int) -> np.ndarray:
    """The flat element index that each position of a `shape` view with `stride` reads."""
    index = np.full([int(s) for s in shape], int(offset), dtype=np.int64)
    for axis, (n, step) in enumerate(zip(shape, stride)):
        along = np.arange(int(n), dtype=np.int64) * int(step)
        index = index + along.reshape([-1 if a == axis else 1 for a in range(len(shape))])
    return index


def as_strided(x: Any, shape: Sequence[int], stride: Sequence[int], offset: int = 0,
               name: Optional[str] = None) -> Any:
    """The tensor of `shape` whose element [i0, i1, ...] is x's flat (row-major) element
    offset + i0 * stride[0] + i1 * stride[1] + ... (strides and offset in elements, as Paddle).
    dy2st tensors are dense, so the result is a copy: writing to it does not change x."""
    x = as_tensor(x)
    shape, stride = list(shape), list(stride)
    if len(shape) != len(stride):
        raise ValueError(f"as_strided: shape {shape} and stride {stride} must have the same "
                         "length")
    if any(not isinstance(v, (int, np.integer)) for v in shape + stride + [offset]):
        raise TypeError(f"as_strided: shape, stride and offset must be ints, got shape={shape}, "
                        f"stride={stride}, offset={offset!r}")
    if any(s < 0 for s in shape) or any(s < 0 for s in stride) or offset < 0:
        raise ValueError(f"as_strided: shape, stride and offset must be non-negative, got "
                         f"shape={shape}, stride={stride}, offset={offset}")
    index = strided_positions(shape, stride, offset)
    sizes = dims(x)
    if index.size and all(d >= 0 for d in sizes):
        numel = int(np.prod(sizes))
        if int(index.max()) >= numel:
            raise ValueError(f"as_strided: shape {shape} with stride {stride} and offset "
                             f"{offset} reaches element {int(index.max())}, but x (shape "
                             f"{list(sizes)}) has {numel} elements")
    if index.size == 0:     # reshape would read a 0 in `shape` as "keep this dim"
        return zeros(shape, x.dtype)
    picked = gather(flatten(x), as_tensor(index.reshape(-1)))
    return reshape(picked, shape)
