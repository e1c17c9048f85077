"""What kind of image a transform got (numpy HWC array, PIL image, CHW / NCHW tensor), its
size, and Paddle's error for anything else."""
from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from ...runtime.tensor import Tensor

__all__ = ["is_pil", "check_image", "image_size"]


def is_pil(img: Any) -> bool:
    """Whether img is a PIL image (checked without importing Pillow)."""
    return not isinstance(img, (np.ndarray, Tensor)) and hasattr(img, "getbands") and \
        hasattr(img, "mode") and hasattr(img, "size")


def check_image(img: Any) -> None:
    """Paddle's TypeError for anything that is not a PIL image, a Tensor or a 2-D/3-D array."""
    ok = is_pil(img) or isinstance(img, Tensor) or (
        isinstance(img, np.ndarray) and img.ndim in (2, 3))
    if not ok:
        raise TypeError(f"img should be PIL Image or Tensor Image or ndarray with dim=[2 or 3]. "
                        f"Got {type(img)}")


def image_size(img: Any) -> Tuple[int, int]:
    """(width, height): a PIL image's size, an HW(C) array's, a CHW / NCHW tensor's."""
    if is_pil(img):
        return tuple(img.size)
    if isinstance(img, Tensor):
        if len(img.shape) not in (3, 4):
            raise ValueError(f"The dim for input Tensor should be 3-D or 4-D, but received "
                             f"{len(img.shape)}")
        return img.shape[-1], img.shape[-2]
    if isinstance(img, np.ndarray):
        return img.shape[1], img.shape[0]
    raise TypeError(f"Unexpected type {type(img)}")
