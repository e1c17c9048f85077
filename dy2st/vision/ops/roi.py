"""roi_align, roi_pool and psroi_pool (Paddle's signatures) and their Layer forms RoIAlign,
RoIPool and PSRoIPool."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np

from ... import nn
from ...nn.functional.dims import known_dims
from ...runtime.ops.operands import as_tensor
from ...runtime.registry import apply

__all__ = ["roi_align", "RoIAlign", "roi_pool", "RoIPool", "psroi_pool", "PSRoIPool"]


def output_pair(output_size: Any, op: str) -> List[int]:
    """An int or a pair as [height, width], each positive."""
    pair = [output_size] * 2 if isinstance(output_size, int) else list(output_size)
    if len(pair) != 2 or not all(isinstance(v, int) and v > 0 for v in pair):
        raise ValueError(f"{op}: output_size must be a positive int or a pair of them, got "
                         f"{output_size!r}")
    return pair


def scale32(spatial_scale: float) -> float:
    """The scale as the float32 Paddle's kernels hold it (it decides how box edges round)."""
    return float(np.float32(spatial_scale))


def roi_operands(op: str, x: Any, boxes: Any, boxes_num: Any) -> Tuple[Any, Any, Any]:
    """x [N, C, H, W], boxes [R, 4] (x1, y1, x2, y2) of x's dtype, boxes_num [N] counts."""
    x, boxes = as_tensor(x), as_tensor(boxes)
    if boxes_num is None:
        raise ValueError(f"{op}: boxes_num (the number of boxes of each image, [N]) is required")
    boxes_num = as_tensor(boxes_num)
    if len(known_dims(x)) != 4:
        raise ValueError(f"{op}: x must be [N, C, H, W], got shape {known_dims(x)}")
    if len(known_dims(boxes)) != 2 or known_dims(boxes)[1] not in (4, -1):
        raise ValueError(f"{op}: boxes must be [num_boxes, 4], got shape {known_dims(boxes)}")
    if boxes.dtype != x.dtype:
        boxes = boxes.astype(x.dtype)
    return x, boxes, boxes_num


def roi_align(x: Any, boxes: Any, boxes_num: Any, output_size: Any, spatial_scale: float = 1.0,
              sampling_ratio: int = -1, aligned: bool = True, name: Optional[str] = None) -> Any:
    """Bilinear RoI pooling: [num_boxes, C, *output_size]. Each bin averages sampling_ratio^2
    bilinear samples (ceil(bin size) per axis when sampling_ratio <= 0); aligned=True shifts
    the boxes by half a pixel."""
    x, boxes, boxes_num = roi_operands("roi_align", x, boxes, boxes_num)
    return apply("roi_align", [x, boxes, boxes_num],
                 {"output_size": output_pair(output_size, "roi_align"),
                  "spatial_scale": scale32(spatial_scale), "sampling_ratio": int(sampling_ratio),
                  "aligned": bool(aligned)})


def roi_pool(x: Any, boxes: Any, boxes_num: Any, output_size: Any, spatial_scale: float = 1.0,
             name: Optional[str] = None) -> Any:
    """Max RoI pooling over the rounded box cells: [num_boxes, C, *output_size] (0 for an empty
    bin)."""
    x, boxes, boxes_num = roi_operands("roi_pool", x, boxes, boxes_num)
    out, _ = apply("roi_pool", [x, boxes, boxes_num],
                   {"output_size": output_pair(output_size, "roi_pool"),
                    "spatial_scale": scale32(spatial_scale)})
    return out


def psroi_pool(x: Any, boxes: Any, boxes_num: Any, output_size: Any, spatial_scale: float = 1.0,
               name: Optional[str] = None) -> Any:
    """Position-sensitive average RoI pooling: x has C = out_channels * ph * pw channels and bin
    (i, j) of output channel c averages channel (c * ph + i) * pw + j."""
    x, boxes, boxes_num = roi_operands("psroi_pool", x, boxes, boxes_num)
    pair = output_pair(output_size, "psroi_pool")
    c = known_dims(x)[1]
    if c >= 0 and c % (pair[0] * pair[1]):
        raise ValueError(f"psroi_pool: the {c} input channels must be a multiple of "
                         f"output_size[0] * output_size[1] = {pair[0] * pair[1]}")
    return apply("psroi_pool", [x, boxes, boxes_num],
                 {"output_size": pair, "spatial_scale": scale32(spatial_scale)})


class RoIAlign(nn.Layer):
    """roi_align as a Layer (sampling_ratio -1; `aligned` is given to forward)."""

    def __init__(self, output_size: Any, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x: Any, boxes: Any, boxes_num: Any, aligned: bool = True) -> Any:
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale,
                         aligned=aligned)


class RoIPool(nn.Layer):
    """roi_pool as a Layer."""

    def __init__(self, output_size: Any, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x: Any, boxes: Any, boxes_num: Any) -> Any:
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


class PSRoIPool(nn.Layer):
    """psroi_pool as a Layer."""

    def __init__(self, output_size: Any, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x: Any, boxes: Any, boxes_num: Any) -> Any:
        return psroi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)
