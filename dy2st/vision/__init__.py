"""paddle.vision: image transforms, datasets read from local files, the classic models with
Paddle's parameter names, and the detection ops (submodules load on first use)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..runtime.lazy import lazy_getattr as _lazy_getattr
from ..runtime.ops import to_tensor

__all__ = ["transforms", "models", "datasets", "ops", "set_image_backend", "get_image_backend",
           "image_load"]

_backend = ["pil"]


def set_image_backend(backend: str) -> None:
    """'pil' or 'cv2': which library the datasets decode images with (dy2st's datasets give
    numpy arrays either way)."""
    if backend not in ("pil", "cv2", "tensor"):
        raise ValueError(f"Expected backend are one of ['pil', 'cv2', 'tensor'], but got "
                         f"{backend}")
    _backend[0] = backend


def get_image_backend() -> str:
    """The backend image_load uses when given none ('pil' by default)."""
    return _backend[0]


def image_load(path: str, backend: Optional[str] = None) -> Any:
    """Read the image file at `path`: a PIL image with backend 'pil', an HWC BGR uint8 array with
    'cv2' (OpenCV's imread), and (dy2st; Paddle 3.3.1 returns None there) an HWC uint8 tensor
    with 'tensor'. None means get_image_backend()."""
    backend = get_image_backend() if backend is None else backend
    if backend not in ("pil", "cv2", "tensor"):
        raise ValueError(f"Expected backend are one of ['pil', 'cv2', 'tensor'], but got "
                         f"{backend}")
    if backend == "cv2":
        try:
            import cv2  # optional: only this backend needs OpenCV
        except ImportError as exc:
            raise ImportError("image_load(backend='cv2') needs OpenCV (pip install "
                              "opencv-python); backend='pil' needs Pillow") from exc
        return cv2.imread(path)
    try:
        from PIL import Image  # optional: Pillow is not a dy2st dependency
    except ImportError as exc:
        raise ImportError(f"image_load(backend={backend!r}) needs Pillow (pip install "
                          "Pillow)") from exc
    image = Image.open(path)
    return image if backend == "pil" else to_tensor(np.asarray(image))


__getattr__ = _lazy_getattr(__name__, {"transforms": "transforms", "models": "models",
                                       "datasets": "datasets", "ops": "ops"}, globals())
