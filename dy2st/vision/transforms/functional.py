"""The basic functional transforms of paddle.vision.transforms (to_tensor, normalize, resize,
crop, center_crop, hflip, vflip) on HWC numpy images, and the whole functional namespace
(`from paddle.vision.transforms import functional as F`)."""
from __future__ import annotations

import numbers
from typing import Any, Sequence, Tuple, Union

import numpy as np

from ...runtime.tensor import Tensor
from .geometric import affine, perspective, rotate
from .photometric import (
    adjust_brightness,
    adjust_contrast,
    adjust_hue,
    adjust_saturation,
    as_array as _as_array,
    erase,
    pad,
    to_grayscale,
)

__all__ = ["to_tensor", "normalize", "resize", "crop", "center_crop", "hflip", "vflip", "pad",
           "to_grayscale", "adjust_brightness", "adjust_contrast", "adjust_saturation",
           "adjust_hue", "affine", "rotate", "perspective", "erase", "pair"]


def pair(size: Union[int, Sequence[int]]) -> Tuple[int, int]:
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if len(size) != 2:
        raise ValueError(f"size must be an int or (h, w), got {size!r}")
    return int(size[0]), int(size[1])


def to_tensor(pic: Any, data_format: str = "CHW") -> Tensor:
    """HWC image -> float32 tensor in data_format; uint8 values are divided by 255."""
    a = _as_array(pic)
    if a.ndim == 2:
        a = a[:, :, None]
    if a.ndim != 3:
        raise ValueError(f"to_tensor: expected an HW or HWC image, got shape {list(a.shape)}")
    out = a.astype(np.float32) / 255.0 if a.dtype == np.uint8 else a.astype(np.float32)
    if data_format == "CHW":
        out = out.transpose(2, 0, 1)
    elif data_format != "HWC":
        raise ValueError(f"to_tensor: data_format must be 'CHW' or 'HWC', got {data_format!r}")
    return Tensor(np.ascontiguousarray(out))


def normalize(img: Any, mean: Any, std: Any, data_format: str = "CHW",
              to_rgb: bool = False) -> Any:
    """(img - mean) / std per channel."""
    is_tensor = isinstance(img, Tensor)
    a = _as_array(img).astype(np.float32)
    mean, std = np.asarray(mean, np.float32), np.asarray(std, np.float32)
    if to_rgb:
        a = a[::-1] if data_format == "CHW" else a[..., ::-1]
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    out = (a - mean.reshape(shape)) / std.reshape(shape)
    return Tensor(out) if is_tensor else out


def resize(img: Any, size: Union[int, Sequence[int]], interpolation: str = "bilinear") -> Any:
    """Resize an HWC image (an int size sets the shorter side, keeping the aspect ratio)."""
    a = _as_array(img)
    h, w = a.shape[0], a.shape[1]
    if isinstance(size, numbers.Number):
        if h <= w:
            oh, ow = int(size), int(size * w / h)
        else:
            oh, ow = int(size * h / w), int(size)
    else:
        oh, ow = pair(size)
    if interpolation == "nearest":
        # OpenCV's nearest rule (numpy images are cv2-style in Paddle): floor(i * scale)
        rows = np.minimum(np.floor(np.arange(oh) * h / oh), h - 1).astype(int)
        cols = np.minimum(np.floor(np.arange(ow) * w / ow), w - 1).astype(int)
        return a[rows][:, cols]
    if interpolation != "bilinear":
        raise ValueError(f"resize: interpolation must be 'bilinear' or 'nearest', got "
                         f"{interpolation!r}")
    ys = np.clip((np.arange(oh) + 0.5) * h / oh - 0.5, 0, h - 1)
    xs = np.clip((np.arange(ow) + 0.5) * w / ow - 0.5, 0, w - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    wy, wx = (ys - y0)[:, None], (xs - x0)[None, :]
    f = a.astype(np.float64)
    if f.ndim == 3:
        wy, wx = wy[..., None], wx[..., None]
    top = f[y0][:, x0] * (1 - wx) + f[y0][:, x1] * wx
    bottom = f[y1][:, x0] * (1 - wx) + f[y1][:, x1] * wx
    out = top * (1 - wy) + bottom * wy
    return np.round(out).astype(a.dtype) if a.dtype == np.uint8 else out.astype(a.dtype)


def crop(img: Any, top: int, left: int, height: int, width: int) -> np.ndarray:
    a = _as_array(img)
    return a[top:top + height, left:left + width]


def center_crop(img: Any, output_size: Union[int, Sequence[int]]) -> np.ndarray:
    a = _as_array(img)
    th, tw = pair(output_size)
    h, w = a.shape[0], a.shape[1]
    if th > h or tw > w:
        raise ValueError(f"center_crop: output size {(th, tw)} is larger than the image "
                         f"{(h, w)}")
    return crop(a, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img: Any) -> np.ndarray:
    return _as_array(img)[:, ::-1]


def vflip(img: Any) -> np.ndarray:
    return _as_array(img)[::-1]
