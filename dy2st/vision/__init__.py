"""paddle.vision: image transforms, datasets read from local files, the classic models with
Paddle's parameter names, and the detection ops (submodules load on first use)."""
from __future__ import annotations

from ..runtime.lazy import lazy_getattr as _lazy_getattr

__all__ = ["transforms", "models", "datasets", "ops", "set_image_backend", "get_image_backend"]

_backend = ["pil"]


def set_image_backend(backend: str) -> None:
    """'pil' or 'cv2': which library the datasets decode images with (dy2st's datasets give
    numpy arrays either way)."""
    if backend not in ("pil", "cv2", "tensor"):
        raise ValueError(f"Expected backend are one of ['pil', 'cv2', 'tensor'], but got "
                         f"{backend}")
    _backend[0] = backend


def get_image_backend() -> str:
    return _backend[0]


__getattr__ = _lazy_getattr(__name__, {"transforms": "transforms", "models": "models",
                                       "datasets": "datasets", "ops": "ops"}, globals())
