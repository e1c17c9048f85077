"""Where a dataset's files are looked for, and the message when one is absent (dy2st downloads
nothing)."""
from __future__ import annotations

import os
from typing import Optional

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
