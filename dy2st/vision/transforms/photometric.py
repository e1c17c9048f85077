"""The functional photometric and padding transforms of paddle.vision.transforms: to_grayscale,
adjust_brightness / contrast / saturation / hue, pad, erase.

HWC numpy images (uint8 results rounded and clipped to 0..255), PIL images (a PIL image back) and
CHW / NCHW tensors (Paddle's tensor formulas, a tensor back)."""
from __future__ import annotations

from typing import Any, Callable, Sequence, Union

import numpy as np

from ...runtime.ops import to_tensor
from ...runtime.tensor import Tensor
from .images import check_image, is_pil, pil_like, tensor_as_hwc

__all__ = ["as_array", "to_grayscale", "adjust_brightness", "adjust_contrast",
           "adjust_saturation", "adjust_hue", "shift_hue", "pad", "erase"]

# ITU-R 601 luma weights, the ones PIL's "L" mode and OpenCV's RGB2GRAY use
_LUMA = np.array([0.299, 0.587, 0.114])
# the weights Paddle's tensor to_grayscale uses
_TENSOR_LUMA = np.array([0.2989, 0.587, 0.114])


def as_array(img: Any) -> np.ndarray:
    """A numpy image from a numpy array, a Tensor or a PIL image."""
    if isinstance(img, Tensor):
        return img.numpy()
    if isinstance(img, np.ndarray):
        return img
    if is_pil(img):
        return np.asarray(img)
    raise TypeError(f"expected a numpy image (HWC), a Tensor or a PIL image, got "
                    f"{type(img).__name__}")


def _like(out: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype == np.uint8:
        return np.clip(np.round(out), 0, 255).astype(np.uint8)
    return out.astype(dtype)


def _gray(a: np.ndarray) -> np.ndarray:
    if a.ndim == 2 or a.shape[2] == 1:
        return a.reshape(a.shape[0], a.shape[1]).astype(np.float64)
    if a.shape[2] != 3:
        raise ValueError(f"expected an HWC image with 1 or 3 channels, got shape {a.shape}")
    return a.astype(np.float64) @ _LUMA


def _on_image(img: Any, on_array: Callable[[np.ndarray], np.ndarray]) -> Any:
    # a numpy function applied to any kind of image, the result in the input's kind
    check_image(img)
    if is_pil(img):
        return pil_like(on_array(np.asarray(img)))
    if isinstance(img, Tensor):
        hwc, back = tensor_as_hwc(img)
        return back(on_array(hwc))
    return on_array(img)


def _tensor_gray(a: np.ndarray) -> np.ndarray:
    # Paddle's tensor luma (CHW / NCHW, keeping the channel axis)
    if a.shape[-3] == 1:
        return a.astype(np.float64)
    if a.shape[-3] != 3:
        raise ValueError("channels of input should be either 1 or 3.")
    return np.expand_dims(np.moveaxis(a, -3, -1).astype(np.float64) @ _TENSOR_LUMA, -3)


def _tensor_blend(img: Tensor, other: Any, factor: float) -> Tensor:
    # Paddle's tensor blend: clipped to [0, 1] for float tensors, [0, 255] for integer ones
    a = img.numpy()
    bound = 1.0 if np.issubdtype(a.dtype, np.floating) else 255.0
    out = np.clip(other + float(factor) * (a.astype(np.float64) - other), 0.0, bound)
    return Tensor(np.ascontiguousarray(_like(out, a.dtype)))


def _check_factor(factor: float, what: str) -> None:
    if factor < 0:
        raise ValueError(f"{what} should be non-negative, got {factor}")


def to_grayscale(img: Any, num_output_channels: int = 1) -> Any:
    """The luma image, one channel (num_output_channels=1) or the luma in 3 channels: HW1 for
    numpy images, 'L' / 'RGB' PIL images, C = 1 or 3 tensors (Paddle's tensor weights)."""
    if num_output_channels not in (1, 3):
        raise ValueError(f"num_output_channels should be either 1 or 3, got "
                         f"{num_output_channels}")
    if isinstance(img, Tensor):
        a = img.numpy()
        gray = _like(_tensor_gray(a), a.dtype)
        return Tensor(np.ascontiguousarray(np.repeat(gray, num_output_channels, axis=-3)))

    def on_array(a: np.ndarray) -> np.ndarray:
        g = _like(_gray(a), a.dtype)[..., None]
        return np.repeat(g, 3, axis=2) if num_output_channels == 3 else g
    return _on_image(img, on_array)


def _blend(a: np.ndarray, other: Union[float, np.ndarray], factor: float) -> np.ndarray:
    return _like(a.astype(np.float64) * factor + np.asarray(other) * (1.0 - factor), a.dtype)


def adjust_brightness(img: Any, brightness_factor: float) -> Any:
    """img * brightness_factor (0 gives black, 1 the image)."""
    _check_factor(brightness_factor, "brightness_factor")
    if isinstance(img, Tensor):
        return _tensor_blend(img, 0.0, brightness_factor)
    return _on_image(img, lambda a: _blend(a, 0.0, brightness_factor))


def adjust_contrast(img: Any, contrast_factor: float) -> Any:
    """Blend with the image's mean luma (0 gives a flat grey, 1 the image)."""
    _check_factor(contrast_factor, "contrast_factor")
    if isinstance(img, Tensor):
        a = img.numpy()
        mean = _tensor_gray(a).mean(axis=(-3, -2, -1), keepdims=True)
        return _tensor_blend(img, mean, contrast_factor)
    return _on_image(img, lambda a: _blend(a, _gray(a).mean(), contrast_factor))


def adjust_saturation(img: Any, saturation_factor: float) -> Any:
    """Blend with the image's own grayscale (0 gives grey, 1 the image)."""
    _check_factor(saturation_factor, "saturation_factor")
    if isinstance(img, Tensor):
        a = img.numpy()
        return img if a.shape[-3] == 1 else _tensor_blend(img, _tensor_gray(a), saturation_factor)

    def on_array(a: np.ndarray) -> np.ndarray:
        g = _gray(a)
        return _blend(a, g[..., None] if a.ndim == 3 else g, saturation_factor)
    return _on_image(img, on_array)


def shift_hue(rgb: np.ndarray, hue_factor: float) -> np.ndarray:
    """The RGB values (last axis) with their HSV hue turned by hue_factor of a full turn,
    saturation and value kept (float64; a turn is exact for any scale of the values)."""
    rgb = rgb.astype(np.float64)
    top, bottom = rgb.max(axis=-1), rgb.min(axis=-1)
    chroma = top - bottom
    safe = np.where(chroma > 0, chroma, 1.0)
    r, g, b = ((top - rgb[..., k]) / safe for k in range(3))
    hue = np.where(top == rgb[..., 0], b - g, np.where(top == rgb[..., 1], 2.0 + r - b,
                                                        4.0 + g - r)) / 6.0
    hue = np.mod(np.where(chroma > 0, hue, 0.0) + hue_factor, 1.0)
    # back to RGB: each channel is value - chroma * a clipped triangle wave of the hue
    phase = np.mod(np.array([5.0, 3.0, 1.0]) + hue[..., None] * 6.0, 6.0)
    wave = np.clip(np.minimum(phase, 4.0 - phase), 0.0, 1.0)
    return top[..., None] - chroma[..., None] * wave


def _pil_hue(img: Any, hue_factor: float) -> Any:
    from PIL import Image  # optional: only reached with a PIL image, so Pillow is there
    if img.mode in ("L", "1", "I", "F"):
        return img
    h, s, v = img.convert("HSV").split()
    # Pillow's hue is a byte: the turn is a whole number of 1/256 steps, as in Paddle
    turned = (np.asarray(h, dtype=np.int16) + int(hue_factor * 255)) % 256
    return Image.merge("HSV", (Image.fromarray(turned.astype(np.uint8), "L"), s, v)) \
        .convert(img.mode)


def adjust_hue(img: Any, hue_factor: float) -> Any:
    """Turn the hue by hue_factor in [-0.5, 0.5] of a full turn (0 keeps the image, +-0.5
    gives the complementary colours). Numpy images are RGB, HWC; tensors are CHW (NCHW);
    one-channel images come back unchanged."""
    check_image(img)
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    if is_pil(img):
        return _pil_hue(img, hue_factor)
    tensor = isinstance(img, Tensor)
    a = img.numpy() if tensor else img
    axis = a.ndim - 3 if tensor else -1
    channels = 1 if a.ndim == 2 else a.shape[axis]
    if channels == 1:
        return img
    if channels != 3:
        raise ValueError("channels of input should be either 1 or 3.")
    out = _like(np.moveaxis(shift_hue(np.moveaxis(a, axis, -1), hue_factor), -1, axis), a.dtype)
    return Tensor(np.ascontiguousarray(out)) if tensor else out


def pad(img: Any, padding: Union[int, Sequence[int]], fill: Any = 0,
        padding_mode: str = "constant") -> Any:
    """Pad the H and W borders: padding an int (all sides), (left/right, top/bottom) or
    (left, top, right, bottom); padding_mode constant (with fill, a number or one per
    channel), edge, reflect, symmetric."""
    modes = ("constant", "edge", "reflect", "symmetric")
    if padding_mode not in modes:
        raise ValueError(f"padding_mode must be one of {list(modes)}, got {padding_mode!r}")
    if isinstance(padding, int):
        left = top = right = bottom = padding
    elif isinstance(padding, (list, tuple)) and len(padding) == 2:
        left, top, right, bottom = padding[0], padding[1], padding[0], padding[1]
    elif isinstance(padding, (list, tuple)) and len(padding) == 4:
        left, top, right, bottom = padding
    else:
        raise ValueError(f"padding must be an int or a sequence of 2 or 4 ints, got {padding!r}")
    check_image(img)
    tensor = isinstance(img, Tensor)
    a = np.moveaxis(img.numpy(), -3, -1) if tensor else \
        np.asarray(img) if is_pil(img) else img
    hw = a.ndim - 3 if tensor or a.ndim == 3 else 0           # the axis of H
    widths = [(0, 0)] * a.ndim
    widths[hw], widths[hw + 1] = (top, bottom), (left, right)
    if padding_mode != "constant":
        out = np.pad(a, widths, mode=padding_mode)
    else:
        out = np.empty([n + lo + hi for n, (lo, hi) in zip(a.shape, widths)], a.dtype)
        out[...] = np.asarray(fill, dtype=np.float64).astype(a.dtype)
        out[tuple(slice(lo, lo + n) for n, (lo, _) in zip(a.shape, widths))] = a
    if tensor:
        return Tensor(np.ascontiguousarray(np.moveaxis(out, -1, -3)))
    return pil_like(out) if is_pil(img) else out


def erase(img: Any, i: int, j: int, h: int, w: int, v: Any, inplace: bool = False) -> Any:
    """Replace the h x w box at row i, column j with v: HWC for numpy / PIL images, CHW for
    tensors (returned as a tensor); inplace writes into a numpy image."""
    if isinstance(img, Tensor):
        a = img.numpy().copy()
        a[..., i:i + h, j:j + w] = as_array(v) if isinstance(v, Tensor) else v
        return to_tensor(a, str(a.dtype))
    a = as_array(img)
    a = a if inplace and isinstance(img, np.ndarray) else a.copy()
    a[i:i + h, j:j + w, ...] = v
    return a
