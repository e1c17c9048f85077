"""Vision layers: Upsample (and the nearest / bilinear 2-D forms), PixelShuffle, PixelUnshuffle,
ChannelShuffle, Unfold and Fold."""
from __future__ import annotations

from typing import Any, Optional

from .. import functional as F
from ..layer import Layer


class Upsample(Layer):
    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool = False, align_mode: int = 0, data_format: Optional[str] = None,
                 recompute_scale_factor: Optional[bool] = None, name: Optional[str] = None) -> None:
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode, self.data_format = align_corners, align_mode, data_format
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, x: Any) -> Any:
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.align_mode, self.data_format, self.recompute_scale_factor)

    def extra_repr(self) -> str:
        what = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else f"size={self.size}"
        return f"{what}, mode={self.mode}, align_corners={self.align_corners}"


class UpsamplingNearest2D(Upsample):
    def __init__(self, size: Any = None, scale_factor: Any = None, data_format: str = "NCHW",
                 name: Optional[str] = None) -> None:
        super().__init__(size, scale_factor, "nearest", False, 0, data_format)


class UpsamplingBilinear2D(Upsample):
    def __init__(self, size: Any = None, scale_factor: Any = None, data_format: str = "NCHW",
                 name: Optional[str] = None) -> None:
        super().__init__(size, scale_factor, "bilinear", True, 0, data_format)


class PixelShuffle(Layer):
    def __init__(self, upscale_factor: int, data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__()
        self._upscale_factor, self._data_format = upscale_factor, data_format

    def forward(self, x: Any) -> Any:
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format)

    def extra_repr(self) -> str:
        return f"upscale_factor={self._upscale_factor}"


class PixelUnshuffle(Layer):
    def __init__(self, downscale_factor: int, data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__()
        self._downscale_factor, self._data_format = downscale_factor, data_format

    def forward(self, x: Any) -> Any:
        return F.pixel_unshuffle(x, self._downscale_factor, self._data_format)

    def extra_repr(self) -> str:
        return f"downscale_factor={self._downscale_factor}"


class ChannelShuffle(Layer):
    def __init__(self, groups: int, data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__()
        self._groups, self._data_format = groups, data_format

    def forward(self, x: Any) -> Any:
        return F.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self) -> str:
        return f"groups={self._groups}"


class Unfold(Layer):
    def __init__(self, kernel_sizes: Any, dilations: Any = 1, paddings: Any = 0, strides: Any = 1,
                 name: Optional[str] = None) -> None:
        super().__init__()
        self.kernel_sizes, self.dilations, self.paddings, self.strides = kernel_sizes, dilations, paddings, strides

    def forward(self, input: Any) -> Any:
        return F.unfold(input, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self) -> str:
        return f"kernel_sizes={self.kernel_sizes}, strides={self.strides}, paddings={self.paddings}"


class Fold(Layer):
    def __init__(self, output_sizes: Any, kernel_sizes: Any, dilations: Any = 1, paddings: Any = 0,
                 strides: Any = 1, name: Optional[str] = None) -> None:
        super().__init__()
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides = dilations, paddings, strides

    def forward(self, input: Any) -> Any:
        return F.fold(input, self.output_sizes, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self) -> str:
        return f"output_sizes={self.output_sizes}, kernel_sizes={self.kernel_sizes}"
