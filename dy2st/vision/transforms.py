"""paddle.vision.transforms on numpy images (HWC uint8 or float; CHW after ToTensor / for
tensors): Compose, ToTensor, Normalize, Resize, CenterCrop, RandomCrop, RandomHorizontalFlip,
RandomVerticalFlip, Transpose, Grayscale, Pad, the brightness / contrast / saturation
transforms, RandomErasing, and their functional forms (photometric ones in .photometric). PIL images are accepted when Pillow
is installed (they are converted to arrays)."""
from __future__ import annotations

import numbers
import random
from typing import Any, Callable, Sequence, Tuple, Union

import numpy as np

from ..runtime.tensor import Tensor
from .photometric import (
    adjust_brightness,
    adjust_contrast,
    adjust_saturation,
    as_array as _as_array,
    erase,
    pad,
    to_grayscale,
)

__all__ = ["Compose", "ToTensor", "Normalize", "Resize", "CenterCrop", "RandomCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose", "BaseTransform",
           "to_tensor", "normalize", "resize", "center_crop", "crop", "hflip", "vflip",
           "Grayscale", "Pad", "BrightnessTransform", "ContrastTransform", "SaturationTransform",
           "RandomErasing", "to_grayscale", "pad", "adjust_brightness", "adjust_contrast",
           "erase"]


def _hw(img: np.ndarray, chw: bool) -> Tuple[int, int]:
    return (img.shape[-2], img.shape[-1]) if chw else (img.shape[0], img.shape[1])


def _pair(size: Union[int, Sequence[int]]) -> Tuple[int, int]:
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if len(size) != 2:
        raise ValueError(f"size must be an int or (h, w), got {size!r}")
    return int(size[0]), int(size[1])


# ----------------------------------------------------------------------------- functional
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
        oh, ow = _pair(size)
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
    th, tw = _pair(output_size)
    h, w = a.shape[0], a.shape[1]
    if th > h or tw > w:
        raise ValueError(f"center_crop: output size {(th, tw)} is larger than the image "
                         f"{(h, w)}")
    return crop(a, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img: Any) -> np.ndarray:
    return _as_array(img)[:, ::-1]


def vflip(img: Any) -> np.ndarray:
    return _as_array(img)[::-1]


# ----------------------------------------------------------------------------- classes
class BaseTransform:
    """A transform applied to one image (Paddle's keys argument is accepted for 'image' only)."""

    def __init__(self, keys: Any = None) -> None:
        if keys not in (None, "image", ("image",), ["image"]):
            raise ValueError(f"{type(self).__name__}: only keys=('image',) is supported, got "
                             f"{keys!r}")

    def __call__(self, img: Any) -> Any:
        return self._apply_image(img)

    def _apply_image(self, img: Any) -> Any:
        raise NotImplementedError


class Compose:
    """Apply transforms in order."""

    def __init__(self, transforms: Sequence[Callable[[Any], Any]]) -> None:
        self.transforms = list(transforms)

    def __call__(self, data: Any) -> Any:
        for t in self.transforms:
            data = t(data)
        return data

    def __repr__(self) -> str:
        return "Compose(" + ", ".join(repr(t) for t in self.transforms) + ")"


class ToTensor(BaseTransform):
    def __init__(self, data_format: str = "CHW", keys: Any = None) -> None:
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img: Any) -> Tensor:
        return to_tensor(img, self.data_format)


class Normalize(BaseTransform):
    def __init__(self, mean: Any = 0.0, std: Any = 1.0, data_format: str = "CHW",
                 to_rgb: bool = False, keys: Any = None) -> None:
        super().__init__(keys)
        self.mean = [mean] * 3 if isinstance(mean, numbers.Number) else list(mean)
        self.std = [std] * 3 if isinstance(std, numbers.Number) else list(std)
        self.data_format, self.to_rgb = data_format, to_rgb

    def _apply_image(self, img: Any) -> Any:
        return normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Resize(BaseTransform):
    def __init__(self, size: Any, interpolation: str = "bilinear", keys: Any = None) -> None:
        super().__init__(keys)
        self.size, self.interpolation = size, interpolation

    def _apply_image(self, img: Any) -> Any:
        return resize(img, self.size, self.interpolation)


class CenterCrop(BaseTransform):
    def __init__(self, size: Any, keys: Any = None) -> None:
        super().__init__(keys)
        self.size = size

    def _apply_image(self, img: Any) -> Any:
        return center_crop(img, self.size)


class RandomCrop(BaseTransform):
    """A random size-crop, after optional zero padding (pad_if_needed pads small images)."""

    def __init__(self, size: Any, padding: Any = None, pad_if_needed: bool = False,
                 fill: float = 0, padding_mode: str = "constant", keys: Any = None) -> None:
        super().__init__(keys)
        self.size, self.padding, self.pad_if_needed, self.fill = _pair(size), padding, \
            pad_if_needed, fill
        if padding_mode != "constant":
            raise ValueError("RandomCrop: only padding_mode='constant' is supported")

    def _apply_image(self, img: Any) -> Any:
        a = _as_array(img)
        if self.padding is not None:
            p = self.padding
            l, t, r, b = (p, p, p, p) if isinstance(p, int) else \
                (p[0], p[1], p[0], p[1]) if len(p) == 2 else tuple(p)
            a = np.pad(a, [(t, b), (l, r)] + [(0, 0)] * (a.ndim - 2),
                       constant_values=self.fill)
        th, tw = self.size
        if self.pad_if_needed:
            dh, dw = max(th - a.shape[0], 0), max(tw - a.shape[1], 0)
            a = np.pad(a, [(dh, dh), (dw, dw)] + [(0, 0)] * (a.ndim - 2),
                       constant_values=self.fill)
        h, w = a.shape[0], a.shape[1]
        if th > h or tw > w:
            raise ValueError(f"RandomCrop: crop size {(th, tw)} is larger than the image "
                             f"{(h, w)}")
        top, left = random.randint(0, h - th), random.randint(0, w - tw)
        return crop(a, top, left, th, tw)


class RandomHorizontalFlip(BaseTransform):
    def __init__(self, prob: float = 0.5, keys: Any = None) -> None:
        super().__init__(keys)
        self.prob = prob

    def _apply_image(self, img: Any) -> Any:
        return hflip(img) if random.random() < self.prob else _as_array(img)


class RandomVerticalFlip(BaseTransform):
    def __init__(self, prob: float = 0.5, keys: Any = None) -> None:
        super().__init__(keys)
        self.prob = prob

    def _apply_image(self, img: Any) -> Any:
        return vflip(img) if random.random() < self.prob else _as_array(img)


class Transpose(BaseTransform):
    """Reorder dims (default HWC -> CHW)."""

    def __init__(self, order: Sequence[int] = (2, 0, 1), keys: Any = None) -> None:
        super().__init__(keys)
        self.order = tuple(order)

    def _apply_image(self, img: Any) -> Any:
        a = _as_array(img)
        if a.ndim == 2:
            a = a[..., None]
        return a.transpose(self.order)


class Grayscale(BaseTransform):
    """to_grayscale: HW1, or the luma in 3 channels."""

    def __init__(self, num_output_channels: int = 1, keys: Any = None) -> None:
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img: Any) -> Any:
        return to_grayscale(img, self.num_output_channels)


class Pad(BaseTransform):
    """pad: the H and W borders, constant / edge / reflect / symmetric."""

    def __init__(self, padding: Any, fill: Any = 0, padding_mode: str = "constant",
                 keys: Any = None) -> None:
        super().__init__(keys)
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_image(self, img: Any) -> Any:
        return pad(img, self.padding, self.fill, self.padding_mode)


class _RandomFactor(BaseTransform):
    """A factor drawn uniformly from [max(0, 1 - value), 1 + value] per call; value 0 keeps
    the image."""
    adjust = staticmethod(adjust_brightness)

    def __init__(self, value: float, keys: Any = None) -> None:
        super().__init__(keys)
        if value < 0:
            raise ValueError(f"{type(self).__name__}: value must be non-negative, got {value}")
        self.value = value

    def _apply_image(self, img: Any) -> Any:
        if self.value == 0:
            return _as_array(img)
        return self.adjust(img, random.uniform(max(0.0, 1 - self.value), 1 + self.value))


class BrightnessTransform(_RandomFactor):
    """adjust_brightness by a random factor in [1 - value, 1 + value]."""
    adjust = staticmethod(adjust_brightness)


class ContrastTransform(_RandomFactor):
    """adjust_contrast by a random factor in [1 - value, 1 + value]."""
    adjust = staticmethod(adjust_contrast)


class SaturationTransform(_RandomFactor):
    """adjust_saturation by a random factor in [1 - value, 1 + value]."""
    adjust = staticmethod(adjust_saturation)


class RandomErasing(BaseTransform):
    """With probability prob, erase a random box of area fraction in `scale` and aspect ratio
    in `ratio` (log-uniform) with `value` (a number, per-channel values, or 'random' noise);
    numpy images are HWC, tensors CHW."""

    def __init__(self, prob: float = 0.5, scale: Sequence[float] = (0.02, 0.33),
                 ratio: Sequence[float] = (0.3, 3.3), value: Any = 0, inplace: bool = False,
                 keys: Any = None) -> None:
        super().__init__(keys)
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("RandomErasing: scale and ratio must be (min, max) ranges")
        if isinstance(value, str) and value != "random":
            raise ValueError(f"RandomErasing: value must be a number, a sequence or 'random', "
                             f"got {value!r}")
        self.prob, self.scale, self.ratio, self.value, self.inplace = \
            prob, tuple(scale), tuple(ratio), value, inplace

    def _apply_image(self, img: Any) -> Any:
        if random.random() >= self.prob:
            return img
        chw = isinstance(img, Tensor)
        shape = _as_array(img).shape
        h, w = (shape[-2], shape[-1]) if chw else (shape[0], shape[1])
        for _ in range(10):
            area = h * w * random.uniform(*self.scale)
            aspect = np.exp(random.uniform(np.log(self.ratio[0]), np.log(self.ratio[1])))
            eh, ew = int(round(np.sqrt(area * aspect))), int(round(np.sqrt(area / aspect)))
            if 0 < eh < h and 0 < ew < w:
                i, j = random.randint(0, h - eh), random.randint(0, w - ew)
                box = (shape[0], eh, ew) if chw and len(shape) == 3 else \
                    (eh, ew) + tuple(shape[2:])
                if self.value == "random":
                    v = np.random.standard_normal(box)
                else:
                    v = np.asarray(self.value)
                    if chw and v.ndim == 1:
                        v = v.reshape(-1, 1, 1)
                return erase(img, i, j, eh, ew, v, self.inplace)
        return img
