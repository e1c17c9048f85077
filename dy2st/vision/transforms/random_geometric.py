"""The random geometric transforms of paddle.vision.transforms: RandomResizedCrop,
RandomRotation, RandomAffine and RandomPerspective, with Paddle's arguments, checks and
parameter draws (from dy2st's generator, so paddle.seed repeats them)."""
from __future__ import annotations

import math
import numbers
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ...runtime.tensor import Tensor
from . import draw
from .functional import crop, pair, resize
from .geometric import affine, perspective, rotate, three_on_a_line
from .images import image_size, is_pil
from .sampling import INTERPOLATIONS
from .transforms import BaseTransform

__all__ = ["RandomResizedCrop", "RandomRotation", "RandomAffine", "RandomPerspective"]


def _check_sequence(x: Any, name: str, req_sizes: Sequence[int]) -> None:
    sizes = " or ".join(str(s) for s in req_sizes)
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {sizes}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be sequence of length {sizes}.")


def _angle_range(x: Any, name: str, req_sizes: Sequence[int] = (2,)) -> List[float]:
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]
    else:
        _check_sequence(x, name, req_sizes)
    return [float(d) for d in x]


def _check_interpolation(interpolation: Any) -> None:
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation should be one of {list(INTERPOLATIONS)}, but got "
                         f"{interpolation!r}")


class RandomResizedCrop(BaseTransform):
    """Crop a random box (area fraction drawn from `scale`, aspect ratio log-uniform in
    `ratio`; after 10 misses, the central box of the nearest allowed ratio) and resize it to
    `size` ((h, w), or an int for a square)."""

    def __init__(self, size: Any, scale: Sequence[float] = (0.08, 1.0),
                 ratio: Sequence[float] = (3.0 / 4, 4.0 / 3), interpolation: str = "bilinear",
                 keys: Any = None) -> None:
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else size
        if scale[0] > scale[1]:
            raise ValueError("scale should be of kind (min, max)")
        if ratio[0] > ratio[1]:
            raise ValueError("ratio should be of kind (min, max)")
        self.scale, self.ratio, self.interpolation = scale, ratio, interpolation

    def _dynamic_get_param(self, image: Any, attempts: int = 10) -> Tuple[int, int, int, int]:
        """(top, left, height, width) of the box to crop."""
        width, height = image_size(image)
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            target = draw.uniform(*self.scale) * area
            aspect = math.exp(draw.uniform(*log_ratio))
            w = int(round(math.sqrt(target * aspect)))
            h = int(round(math.sqrt(target / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return draw.randint(0, height - h), draw.randint(0, width - w), h, w
        in_ratio = width / height
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            w, h = int(round(height * max(self.ratio))), height
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img: Any) -> Any:
        top, left, h, w = self._dynamic_get_param(img)
        oh, ow = pair(self.size)
        if is_pil(img):
            from PIL import Image  # optional: only reached with a PIL image, so Pillow is there
            resample = {"nearest": Image.Resampling.NEAREST, "bilinear": Image.Resampling.BILINEAR,
                        "bicubic": Image.Resampling.BICUBIC}.get(self.interpolation)
            if resample is None:
                _check_interpolation(self.interpolation)
            return img.crop((left, top, left + w, top + h)).resize((ow, oh), resample)
        if isinstance(img, Tensor):
            a = img.numpy()
            hwc = np.moveaxis(a, -3, -1)[..., top:top + h, left:left + w, :]
            flat = hwc.reshape(hwc.shape[-3:-1] + (-1,))         # fold a batch into channels
            out = resize(flat, (oh, ow), self.interpolation)
            out = np.moveaxis(out.reshape((oh, ow) + hwc.shape[:-3] + hwc.shape[-1:]), (0, 1),
                              (-2, -1)) if a.ndim == 4 else np.moveaxis(out, -1, 0)
            return Tensor(np.ascontiguousarray(out))
        return resize(crop(img, top, left, h, w), (oh, ow), self.interpolation)


class RandomRotation(BaseTransform):
    """rotate by an angle drawn uniformly from `degrees` ((min, max), or a number d for
    (-d, d)), with rotate's interpolation, expand, center and fill."""

    def __init__(self, degrees: Any, interpolation: str = "nearest", expand: bool = False,
                 center: Optional[Sequence[float]] = None, fill: Any = 0,
                 keys: Any = None) -> None:
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ValueError("If degrees is a single number, it must be positive.")
            self.degrees = (-degrees, degrees)
        else:
            if len(degrees) != 2:
                raise ValueError("If degrees is a sequence, it must be of len 2.")
            self.degrees = degrees
        super().__init__(keys)
        self.interpolation, self.expand, self.center, self.fill = \
            interpolation, expand, center, fill

    def _get_param(self, degrees: Sequence[float]) -> float:
        return draw.uniform(degrees[0], degrees[1])

    def _apply_image(self, img: Any) -> Any:
        return rotate(img, self._get_param(self.degrees), self.interpolation, self.expand,
                      self.center, self.fill)


class RandomAffine(BaseTransform):
    """affine with parameters drawn per call: an angle from `degrees`, a translation of up to
    translate = (fx, fy) of the width / height (whole pixels), a scale from `scale`
    ((min, max)), shears from `shear` (a number s: x in (-s, s); 2 values: x range; 4: x and
    y ranges)."""

    def __init__(self, degrees: Any, translate: Optional[Sequence[float]] = None,
                 scale: Optional[Sequence[float]] = None, shear: Any = None,
                 interpolation: str = "nearest", fill: Any = 0,
                 center: Optional[Sequence[float]] = None, keys: Any = None) -> None:
        self.degrees = _angle_range(degrees, name="degrees", req_sizes=(2,))
        super().__init__(keys)
        _check_interpolation(interpolation)
        self.interpolation = interpolation
        if translate is not None:
            _check_sequence(translate, "translate", req_sizes=(2,))
            if not all(0.0 <= t <= 1.0 for t in translate):
                raise ValueError("translation values should be between 0 and 1")
        self.translate = translate
        if scale is not None:
            _check_sequence(scale, "scale", req_sizes=(2,))
            if any(s <= 0 for s in scale):
                raise ValueError("scale values should be positive")
        self.scale = scale
        self.shear = None if shear is None else _angle_range(shear, "shear", (2, 4))
        if fill is None:
            fill = 0
        elif not isinstance(fill, (Sequence, numbers.Number)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.fill = fill
        if center is not None:
            _check_sequence(center, "center", req_sizes=(2,))
        self.center = center

    def _get_param(self, img_size: Sequence[int], degrees: Sequence[float],
                   translate: Optional[Sequence[float]] = None,
                   scale_ranges: Optional[Sequence[float]] = None,
                   shears: Optional[Sequence[float]] = None,
                   ) -> Tuple[float, Tuple[int, int], float, Tuple[float, float]]:
        """(angle, (tx, ty), scale, (shear_x, shear_y)) for an image of img_size (w, h)."""
        angle = draw.uniform(degrees[0], degrees[1])
        shift = (0, 0)
        if translate is not None:
            max_dx, max_dy = float(translate[0] * img_size[0]), float(translate[1] * img_size[1])
            shift = (int(draw.uniform(-max_dx, max_dx)), int(draw.uniform(-max_dy, max_dy)))
        scale = 1.0 if scale_ranges is None else draw.uniform(scale_ranges[0], scale_ranges[1])
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = draw.uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = draw.uniform(shears[2], shears[3])
        return angle, shift, scale, (shear_x, shear_y)

    def _apply_image(self, img: Any) -> Any:
        angle, shift, scale, shear = self._get_param(image_size(img), self.degrees,
                                                     self.translate, self.scale, self.shear)
        return affine(img, angle, list(shift), scale, list(shear),
                      interpolation=self.interpolation, fill=self.fill, center=self.center)


class RandomPerspective(BaseTransform):
    """With probability `prob`, perspective-warp the corners inward by random amounts of up
    to distortion_scale of half the width / height."""

    def __init__(self, prob: float = 0.5, distortion_scale: float = 0.5,
                 interpolation: str = "nearest", fill: Any = 0, keys: Any = None) -> None:
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise ValueError("probability must be between 0 and 1")
        if not 0 <= distortion_scale <= 1:
            raise ValueError("distortion_scale must be between 0 and 1")
        _check_interpolation(interpolation)
        if not isinstance(fill, (numbers.Number, str, list, tuple)):
            raise TypeError(f"fill should be a number, a string or a sequence, got "
                            f"{type(fill).__name__}")
        self.prob, self.distortion_scale, self.interpolation, self.fill = \
            prob, distortion_scale, interpolation, fill

    def get_params(self, width: int, height: int, distortion_scale: float,
                   ) -> Tuple[List[List[int]], List[List[int]]]:
        """(startpoints, endpoints): the image corners and where they go (top-left,
        top-right, bottom-right, bottom-left)."""
        dx, dy = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))

        def near(end: int, reach: int, far: bool) -> int:
            # a position within `reach` of the edge at 0 (far=False) or at end - 1 (far=True)
            return int(draw.uniform(end - reach - 1, end)) if far else \
                int(draw.uniform(0, reach + 1))

        topleft = [near(width, dx, False), near(height, dy, False)]
        topright = [near(width, dx, True), near(height, dy, False)]
        botright = [near(width, dx, True), near(height, dy, True)]
        botleft = [near(width, dx, False), near(height, dy, True)]
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return start, [topleft, topright, botright, botleft]

    def _apply_image(self, img: Any) -> Any:
        width, height = image_size(img)
        if draw.chance() < self.prob:
            start, end = self.get_params(width, height, self.distortion_scale)
            # on a tiny image three drawn corners can fall on one line, where no perspective
            # map exists: that draw leaves the image as it is
            if not three_on_a_line(end):
                return perspective(img, start, end, self.interpolation, self.fill)
        return img
