"""temporal_shift (TSM): a fraction of the channels moves one segment back in time, another
fraction one segment forward, zero-filled at the ends; composed from reshape, pad and slices."""
from __future__ import annotations

from typing import Any, Optional

from ...runtime import ops
from ...runtime.ops.operands import as_tensor
from .dims import known_dims

__all__ = ["temporal_shift"]


def temporal_shift(x: Any, seg_num: int, shift_ratio: float = 0.25, name: Optional[str] = None,
                   data_format: str = "NCHW") -> Any:
    """x [N*T, C, H, W] (T = seg_num): channels [0, C*r) take segment t-1's values, channels
    [C*r, 2*C*r) take segment t+1's, the rest stay."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"temporal_shift: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if not 0 < float(shift_ratio) <= 0.5:
        raise ValueError(f"temporal_shift: shift_ratio must be in (0, 0.5], got {shift_ratio}")
    x = as_tensor(x)
    if x.ndim != 4:
        raise ValueError(f"temporal_shift: x must be 4-D, got shape {list(x.shape)}")
    if data_format == "NHWC":
        x = ops.transpose(x, [0, 3, 1, 2])
    c, h, w = known_dims(x)[1:]
    if min(c, h, w) < 0:
        raise ValueError(f"temporal_shift: C, H and W must be known, got shape {known_dims(x)}")
    seg = int(seg_num)
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    v = ops.reshape(x, [-1, seg, c, h, w])
    # one zero segment before and after: [N, T + 2, C, H, W]
    zeros = ops.zeros_like(v[:, :1])
    padded = ops.concat([zeros, v, zeros], axis=1)
    back = padded[:, :seg, :c1]                      # segment t - 1
    fwd = padded[:, 2:seg + 2, c1:c2]                # segment t + 1
    out = ops.reshape(ops.concat([back, fwd, v[:, :, c2:]], axis=2), [-1, c, h, w])
    if data_format == "NHWC":
        out = ops.transpose(out, [0, 2, 3, 1])
    return out
