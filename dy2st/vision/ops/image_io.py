"""read_file (a file's bytes as a uint8 tensor) and decode_jpeg (those bytes as a [C, H, W] uint8
image, decoded by Pillow: the standard library has no JPEG decoder)."""
from __future__ import annotations

import io
import os
from typing import Any, Optional

import numpy as np

from ...runtime import ops
from ...runtime.ops.operands import as_tensor

__all__ = ["read_file", "decode_jpeg"]

_MODES = {"unchanged": None, "gray": "L", "rgb": "RGB"}


def read_file(filename: str, name: Optional[str] = None) -> Any:
    """The bytes of `filename` as a 1-D uint8 tensor."""
    path = os.fspath(filename)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"read_file: no file at {path!r}")
    with open(path, "rb") as f:
        return ops.to_tensor(np.frombuffer(f.read(), dtype=np.uint8).copy())


def _pillow() -> Any:
    try:
        # Pillow is optional: only decoding needs it
        from PIL import Image
    except ImportError:
        raise ImportError("decode_jpeg needs Pillow to decode JPEG data (Python's standard "
                          "library has no JPEG decoder): pip install Pillow") from None
    return Image


def decode_jpeg(x: Any, mode: str = "unchanged", name: Optional[str] = None) -> Any:
    """Decode JPEG bytes (a 1-D uint8 tensor, as read_file gives) into a [C, H, W] uint8
    tensor: mode 'unchanged' keeps the file's channels, 'gray' gives 1, 'rgb' 3."""
    if mode not in _MODES:
        raise ValueError(f"decode_jpeg: mode must be one of {list(_MODES)}, got {mode!r}")
    data = as_tensor(x)
    if not hasattr(data, "numpy") or getattr(data, "_value", None) is None:
        raise TypeError("decode_jpeg decodes eager tensors only (it runs on the host, before "
                        "a converted program): call it outside to_static")
    raw = np.asarray(data.numpy())
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ValueError(f"decode_jpeg: x must be a 1-D uint8 tensor of file bytes, got "
                         f"{raw.dtype} with shape {list(raw.shape)}")
    image_mod = _pillow()
    try:
        img = image_mod.open(io.BytesIO(raw.tobytes()))
        img.load()
    except Exception as e:  # noqa: BLE001 - Pillow raises several types for a bad stream
        raise ValueError(f"decode_jpeg: the bytes are not a decodable image ({e})") from None
    if img.format != "JPEG":
        raise ValueError(f"decode_jpeg: the bytes hold a {img.format} image, not a JPEG")
    target = _MODES[mode]
    if target is not None and img.mode != target:
        img = img.convert(target)
    arr = np.asarray(img, dtype=np.uint8)
    arr = arr[:, :, None] if arr.ndim == 2 else arr
    return ops.to_tensor(np.ascontiguousarray(arr.transpose(2, 0, 1)))
