"""The transform classes of paddle.vision.transforms.

Compose, BaseTransform (Paddle's `keys` protocol), ToTensor, Normalize, Resize, the crops and flips,
Transpose, Grayscale, Pad, the colour transforms (brightness, contrast, saturation, hue,
ColorJitter) and RandomErasing. Random draws come from dy2st's generator (paddle.seed)."""
from __future__ import annotations

import numbers
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from ...runtime.tensor import Tensor
from . import draw
from .functional import (
    adjust_brightness,
    adjust_contrast,
    adjust_hue,
    adjust_saturation,
    center_crop,
    crop,
    erase,
    hflip,
    normalize,
    pad,
    pair,
    resize,
    to_grayscale,
    to_tensor,
    vflip,
)
from .images import image_size
from .photometric import as_array as _as_array

__all__ = ["Compose", "ToTensor", "Normalize", "Resize", "CenterCrop", "RandomCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose", "BaseTransform",
           "Grayscale", "Pad", "BrightnessTransform", "ContrastTransform", "SaturationTransform",
           "HueTransform", "ColorJitter", "RandomErasing", "check_input"]


class BaseTransform:
    """Paddle's transform protocol: `keys` names what each element of a tuple input is
    ('image', 'boxes', 'mask', 'coords', or a name of a subclass's `_apply_<name>`); a
    non-tuple input is one image. `_get_params(inputs)` runs once per call (its result is
    `self.params`), then each element goes through its `_apply_<key>`; elements past the keys
    pass unchanged."""

    def __init__(self, keys: Any = None) -> None:
        if keys is None:
            keys = ("image",)
        elif not isinstance(keys, Sequence):
            raise ValueError(f"keys should be a sequence, but got keys={keys}")
        for k in keys:
            if self._get_apply(k) is None:
                raise NotImplementedError(f"{k} is unsupported data structure")
        self.keys = keys
        self.params: Any = None

    def _get_params(self, inputs: Any) -> Any:
        return None

    def __call__(self, inputs: Any) -> Any:
        items = inputs if isinstance(inputs, tuple) else (inputs,)
        self.params = self._get_params(items)
        outputs = [self._get_apply(key)(item) for key, item in zip(self.keys, items)]
        outputs.extend(items[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _get_apply(self, key: str) -> Optional[Callable[[Any], Any]]:
        return getattr(self, f"_apply_{key}", None)

    def _apply_image(self, image: Any) -> Any:
        raise NotImplementedError

    def _apply_boxes(self, boxes: Any) -> Any:
        raise NotImplementedError

    def _apply_mask(self, mask: Any) -> Any:
        raise NotImplementedError

    def _apply_coords(self, coords: Any) -> Any:
        raise NotImplementedError


def check_input(value: Any, name: str, center: float = 1, bound: Sequence[float] = (0, np.inf),
                clip_first_on_zero: bool = True) -> Optional[List[float]]:
    """A colour transform's range: a number v means [center - v, center + v] (its low end
    clipped at 0 for factors), a pair is taken as (min, max) within bound; None when the range
    is the single point `center` (the transform does nothing)."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        value = [center - value, center + value]
        if clip_first_on_zero:
            value[0] = max(value[0], 0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {tuple(bound)}")
        value = [float(value[0]), float(value[1])]
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
    return None if value[0] == value[1] == center else value


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
    """A random size crop, after padding by `padding` (as pad) and, with pad_if_needed, after
    padding a side shorter than the crop."""

    def __init__(self, size: Any, padding: Any = None, pad_if_needed: bool = False,
                 fill: Any = 0, padding_mode: str = "constant", keys: Any = None) -> None:
        super().__init__(keys)
        self.size = pair(size)
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = \
            padding, pad_if_needed, fill, padding_mode

    def _get_param(self, img: Any, output_size: Sequence[int]) -> Any:
        """(top, left, height, width) of the crop."""
        w, h = image_size(img)
        th, tw = output_size
        if w == tw and h == th:
            return 0, 0, h, w
        if th > h or tw > w:
            raise ValueError(f"RandomCrop: crop size {(th, tw)} is larger than the image "
                             f"{(h, w)}")
        return draw.randint(0, h - th), draw.randint(0, w - tw), th, tw

    def _apply_image(self, img: Any) -> Any:
        if self.padding is not None:
            img = pad(img, self.padding, self.fill, self.padding_mode)
        w, h = image_size(img)
        if self.pad_if_needed and w < self.size[1]:
            img = pad(img, (self.size[1] - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = pad(img, (0, self.size[0] - h), self.fill, self.padding_mode)
        return crop(img, *self._get_param(img, self.size))


class RandomHorizontalFlip(BaseTransform):
    def __init__(self, prob: float = 0.5, keys: Any = None) -> None:
        super().__init__(keys)
        self.prob = prob

    def _apply_image(self, img: Any) -> Any:
        return hflip(img) if draw.chance() < self.prob else img


class RandomVerticalFlip(BaseTransform):
    def __init__(self, prob: float = 0.5, keys: Any = None) -> None:
        super().__init__(keys)
        self.prob = prob

    def _apply_image(self, img: Any) -> Any:
        return vflip(img) if draw.chance() < self.prob else img


class Transpose(BaseTransform):
    """Reorder dims (default HWC -> CHW)."""

    def __init__(self, order: Sequence[int] = (2, 0, 1), keys: Any = None) -> None:
        super().__init__(keys)
        self.order = tuple(order)

    def _apply_image(self, img: Any) -> Any:
        if isinstance(img, Tensor):
            return Tensor(np.ascontiguousarray(img.numpy().transpose(self.order)))
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
    """adjust by a factor drawn uniformly from the range check_input makes of `value` (a
    number v: [max(0, 1 - v), 1 + v]; a pair: that range); value 0 keeps the image."""
    adjust = staticmethod(adjust_brightness)
    NAME, CENTER, BOUND, CLIP = "brightness", 1.0, (0, np.inf), True

    def __init__(self, value: Any, keys: Any = None) -> None:
        super().__init__(keys)
        self.value = check_input(value, self.NAME, self.CENTER, self.BOUND, self.CLIP)

    def _apply_image(self, img: Any) -> Any:
        if self.value is None:
            return img
        return self.adjust(img, draw.uniform(self.value[0], self.value[1]))


class BrightnessTransform(_RandomFactor):
    """adjust_brightness by a random factor in [1 - value, 1 + value] (or a (min, max) pair)."""
    adjust = staticmethod(adjust_brightness)


class ContrastTransform(_RandomFactor):
    """adjust_contrast by a random factor in [1 - value, 1 + value] (or a (min, max) pair)."""
    adjust = staticmethod(adjust_contrast)
    NAME = "contrast"


class SaturationTransform(_RandomFactor):
    """adjust_saturation by a random factor in [1 - value, 1 + value] (or a (min, max) pair)."""
    adjust = staticmethod(adjust_saturation)
    NAME = "saturation"


class HueTransform(_RandomFactor):
    """adjust_hue by a random factor in [-value, value] (or a (min, max) pair within
    [-0.5, 0.5])."""
    adjust = staticmethod(adjust_hue)
    NAME, CENTER, BOUND, CLIP = "hue", 0.0, (-0.5, 0.5), False


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue transforms (each given as for its own class;
    0 leaves that property alone) applied in a random order."""

    def __init__(self, brightness: Any = 0, contrast: Any = 0, saturation: Any = 0,
                 hue: Any = 0, keys: Any = None) -> None:
        super().__init__(keys)
        self.brightness, self.contrast, self.saturation, self.hue = \
            brightness, contrast, saturation, hue

    def _get_param(self, brightness: Any, contrast: Any, saturation: Any, hue: Any) -> Compose:
        kinds = [(BrightnessTransform, brightness), (ContrastTransform, contrast),
                 (SaturationTransform, saturation), (HueTransform, hue)]
        steps = [kind(value, self.keys) for kind, value in kinds if value is not None]
        return Compose(draw.shuffled(steps))

    def _apply_image(self, img: Any) -> Any:
        return self._get_param(self.brightness, self.contrast, self.saturation, self.hue)(img)


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
        if draw.chance() >= self.prob:
            return img
        chw = isinstance(img, Tensor)
        shape = _as_array(img).shape
        h, w = (shape[-2], shape[-1]) if chw else (shape[0], shape[1])
        for _ in range(10):
            area = h * w * draw.uniform(*self.scale)
            aspect = np.exp(draw.uniform(np.log(self.ratio[0]), np.log(self.ratio[1])))
            eh, ew = int(round(np.sqrt(area * aspect))), int(round(np.sqrt(area / aspect)))
            if 0 < eh < h and 0 < ew < w:
                i, j = draw.randint(0, h - eh), draw.randint(0, w - ew)
                box = (shape[0], eh, ew) if chw and len(shape) == 3 else \
                    (eh, ew) + tuple(shape[2:])
                if self.value == "random":
                    v = draw.normal(box)
                else:
                    v = np.asarray(self.value)
                    if chw and v.ndim == 1:
                        v = v.reshape(-1, 1, 1)
                return erase(img, i, j, eh, ew, v, self.inplace)
        return img
