"""The basic functional transforms of paddle.vision.transforms, and its whole functional namespace
(`from paddle.vision.transforms import functional as F`).

to_tensor, normalize, resize, crop, center_crop, hflip and vflip take HWC numpy images, CHW / NCHW
tensors and PIL images, each result of the input's kind."""
from __future__ import annotations

import numbers
from typing import Any, Sequence, Tuple, Union

import numpy as np

from ...runtime.tensor import Tensor
from .geometric import affine, perspective, rotate
from .images import check_image, image_size, is_pil, tensor_as_hwc
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
from .resizing import resize_array

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
    """HWC image -> float32 tensor in data_format; uint8 values are divided by 255. A tensor
    (already CHW) is returned as it is, or as HWC for data_format='HWC', as in Paddle."""
    if isinstance(pic, Tensor):
        return pic if data_format.lower() == "chw" else \
            Tensor(np.ascontiguousarray(pic.numpy().transpose(1, 2, 0)))
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


def _resize_pil(img: Any, oh: int, ow: int, interpolation: str) -> Any:
    from PIL import Image  # optional: only reached with a PIL image, so Pillow is there
    modes = {"nearest": Image.Resampling.NEAREST, "bilinear": Image.Resampling.BILINEAR,
             "bicubic": Image.Resampling.BICUBIC, "box": Image.Resampling.BOX,
             "lanczos": Image.Resampling.LANCZOS, "hamming": Image.Resampling.HAMMING}
    if interpolation not in modes:
        raise ValueError(f"resize: interpolation should be one of {list(modes)} for a PIL "
                         f"image, but got {interpolation!r}")
    return img.resize((ow, oh), modes[interpolation])


def resize(img: Any, size: Union[int, Sequence[int]], interpolation: str = "bilinear") -> Any:
    """Resize to size (h, w), or an int for the shorter side keeping the aspect ratio.
    numpy images and tensors follow OpenCV's / Paddle's interpolate rules ('nearest',
    'bilinear', 'bicubic'); a PIL image goes through Pillow's resize (also 'box', 'lanczos',
    'hamming'), as in Paddle, and comes back as a PIL image."""
    check_image(img)
    w, h = image_size(img)
    if isinstance(size, numbers.Number):
        if (w <= h and w == size) or (h <= w and h == size):
            return img
        oh, ow = (int(size * h / w), int(size)) if w < h else (int(size), int(size * w / h))
    else:
        oh, ow = pair(size)
    if is_pil(img):
        return _resize_pil(img, oh, ow, interpolation)
    if isinstance(img, Tensor):
        hwc, back = tensor_as_hwc(img)
        return back(resize_array(hwc, oh, ow, interpolation))
    return resize_array(img, oh, ow, interpolation)


def crop(img: Any, top: int, left: int, height: int, width: int) -> Any:
    """The height x width box at (top, left): HWC arrays, CHW / NCHW tensors, PIL images."""
    check_image(img)
    if is_pil(img):
        return img.crop((left, top, left + width, top + height))
    if isinstance(img, Tensor):
        return Tensor(np.ascontiguousarray(img.numpy()[..., top:top + height, left:left + width]))
    return img[top:top + height, left:left + width]


def center_crop(img: Any, output_size: Union[int, Sequence[int]]) -> Any:
    """The central output_size (h, w, or an int for a square) box."""
    check_image(img)
    th, tw = pair(output_size)
    w, h = image_size(img)
    if th > h or tw > w:
        raise ValueError(f"center_crop: output size {(th, tw)} is larger than the image "
                         f"{(h, w)}")
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def _flip(img: Any, axis: int) -> Any:
    check_image(img)
    if is_pil(img):
        from PIL import Image  # optional: only reached with a PIL image, so Pillow is there
        return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT if axis == 1 else
                             Image.Transpose.FLIP_TOP_BOTTOM)
    if isinstance(img, Tensor):
        return Tensor(np.ascontiguousarray(np.flip(img.numpy(), axis - 2)))
    return np.flip(img, axis)


def hflip(img: Any) -> Any:
    """Mirror left to right."""
    return _flip(img, 1)


def vflip(img: Any) -> Any:
    """Mirror top to bottom."""
    return _flip(img, 0)
