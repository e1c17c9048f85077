"""Where a dataset's files are looked for, and the message when one is absent (dy2st downloads
nothing)."""
from __future__ import annotations

import os
from typing import Optional, Tuple

from .. import get_image_backend

DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))


def locate(given: Optional[str], folder: str, filename: str, url: str, what: str) -> str:
    """The file to read: `given`, else DATA_HOME/folder/filename; a clear error if absent."""
    path = given or os.path.join(DATA_HOME, folder, filename)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"{what}: {path} does not exist and dy2st downloads nothing. Download {url} and "
            f"put it at {os.path.join(DATA_HOME, folder, filename)} (Paddle's cache, shared "
            f"with Paddle), or pass its path")
    return path


def mode_and_backend(mode: str, backend: Optional[str]) -> Tuple[str, str]:
    """The split ('train' or 'test', any case) and the image backend ('pil' or 'cv2', default
    the current one), checked as Paddle's datasets check them."""
    if mode.lower() not in ("train", "test"):
        raise ValueError(f"mode should be 'train' or 'test', but got {mode}")
    backend = backend or get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ValueError(f"Expected backend are one of ['pil', 'cv2'], but got {backend}")
    return mode.lower(), backend
