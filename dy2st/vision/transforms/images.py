"""What kind of image a transform got (numpy HWC array, PIL image, CHW / NCHW tensor), its
size, and Paddle's error for anything else."""
from __future__ import annotations

from typing import Any, Callable, Tuple

import numpy as np

from ...runtime.tensor import Tensor

__all__ = ["is_pil", "check_image", "image_size", "tensor_as_hwc", "pil_like"]


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


def tensor_as_hwc(img: Tensor) -> Tuple[np.ndarray, Callable[[np.ndarray], Tensor]]:
    """A CHW (or NCHW, the batch folded into the channels) tensor as one HWC array, and the
    function that turns an HWC result of the same layout back into such a tensor."""
    a = img.numpy()
    if a.ndim == 3:
        return a.transpose(1, 2, 0), \
            lambda out: Tensor(np.ascontiguousarray(np.moveaxis(out, -1, 0)))
    if a.ndim == 4:
        n = a.shape[0]
        hwc = a.transpose(2, 3, 0, 1).reshape(a.shape[2], a.shape[3], -1)
        return hwc, lambda out: Tensor(np.ascontiguousarray(
            out.reshape(out.shape[0], out.shape[1], n, -1).transpose(2, 3, 0, 1)))
    raise ValueError(f"The dim for input Tensor should be 3-D or 4-D, but received {a.ndim}")


def pil_like(out: np.ndarray) -> Any:
    """A PIL image from a numpy result (HW, HW1 or HWC): what Paddle gives for a PIL input."""
    from PIL import Image  # optional: only reached with a PIL image, so Pillow is there
    return Image.fromarray(out[..., 0] if out.ndim == 3 and out.shape[2] == 1 else out)
