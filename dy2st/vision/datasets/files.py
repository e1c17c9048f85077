"""Where a dataset's files are looked for and the message when one is absent (dy2st downloads
nothing), and the checks the datasets share: mode, image backend, image bytes."""
from __future__ import annotations

import io
import os
from typing import Any, Optional, Sequence, Tuple

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


def mode_and_backend(mode: str, backend: Optional[str],
                     modes: Sequence[str] = ("train", "test")) -> Tuple[str, str]:
    """The split (one of `modes`, any case) and the image backend ('pil' or 'cv2', default
    the current one), checked as Paddle's datasets check them."""
    if mode.lower() not in modes:
        names = ", ".join(f"'{m}'" for m in modes[:-1]) + f" or '{modes[-1]}'"
        raise ValueError(f"mode should be {names}, but got {mode}")
    backend = backend or get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ValueError(f"Expected backend are one of ['pil', 'cv2'], but got {backend}")
    return mode.lower(), backend


def given_or_cached(given: Optional[str], download: bool, name: str, folder: str, filename: str,
                    url: str, what: str) -> str:
    """A file argument of Paddle's datasets: the path given, else (download=True) the cached
    copy at DATA_HOME/folder/filename; Paddle's error when neither is allowed."""
    if not given and not download:
        raise ValueError(f"{name} is not set and downloading automatically is disabled")
    return locate(given, folder, filename, url, what)


def decode_image(raw: bytes, source: str, what: str) -> Any:
    """A PIL image from encoded bytes (JPEG, PNG, ...), read fully now; a clear error naming
    `source` when Pillow is absent or the bytes are not an image."""
    try:
        from PIL import Image, UnidentifiedImageError  # optional: Pillow decodes the images
    except ImportError as exc:
        raise ImportError(f"{what}: decoding {source} needs Pillow (pip install Pillow)") \
            from exc
    try:
        image = Image.open(io.BytesIO(raw))
        image.load()
    except (UnidentifiedImageError, OSError, SyntaxError) as exc:
        raise ValueError(f"{what}: {source} is not a readable image ({exc})") from None
    return image
