"""MNIST and FashionMNIST from the gzipped IDX files Paddle caches
(~/.cache/paddle/dataset/mnist/train-images-idx3-ubyte.gz, ...)."""
from __future__ import annotations

import gzip
import struct
from typing import Any, Callable, Optional, Tuple

import numpy as np

from ...io import Dataset
from .files import locate, mode_and_backend

_MNIST_URL = "https://dataset.bj.bcebos.com/mnist/"
_FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
          "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}


def read_idx(path: str, what: str) -> np.ndarray:
    """The array of a (gzipped) IDX file: magic 0x00000801 labels, 0x00000803 images."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError(f"{what}: {path} is too short for an IDX file")
    magic, count = struct.unpack(">II", raw[:8])
    if magic == 0x801:
        data = np.frombuffer(raw, np.uint8, count, 8)
    elif magic == 0x803:
        rows, cols = struct.unpack(">II", raw[8:16])
        data = np.frombuffer(raw, np.uint8, count * rows * cols, 16).reshape(count, rows, cols)
    else:
        raise ValueError(f"{what}: {path} is not an MNIST IDX file (magic {magic:#x})")
    return data


class MNIST(Dataset):
    """MNIST(image_path=None, label_path=None, mode='train', transform=None, download=True,
    backend=None): (image, label) pairs; image is 28x28 float32 (a PIL image with backend
    'pil' and Pillow), label an int64 array of shape [1]."""

    NAME = "mnist"
    URL_PREFIX = _MNIST_URL

    def __init__(self, image_path: Optional[str] = None, label_path: Optional[str] = None,
                 mode: str = "train", transform: Optional[Callable] = None,
                 download: bool = True, backend: Optional[str] = None) -> None:
        self.mode, self.backend = mode_and_backend(mode, backend)
        what = type(self).__name__
        image_file, label_file = _FILES[self.mode]
        image_path = locate(image_path, self.NAME, image_file, self.URL_PREFIX + image_file, what)
        label_path = locate(label_path, self.NAME, label_file, self.URL_PREFIX + label_file, what)
        self.images = read_idx(image_path, what)
        self.labels = read_idx(label_path, what)
        if len(self.images) != len(self.labels):
            raise ValueError(f"{what}: {len(self.images)} images but {len(self.labels)} labels")
        self.transform = transform
        self.dtype = "float32"

    def __getitem__(self, idx: int) -> Tuple[Any, np.ndarray]:
        image = self.images[idx]
        label = np.array([self.labels[idx]], dtype=np.int64)
        if self.backend == "pil":
            try:
                from PIL import Image  # optional: only for backend='pil' images
                image = Image.fromarray(image, mode="L")
            except ImportError:
                image = image.astype(np.float32)
        else:
            image = image.astype(np.float32)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return (image.astype(np.float32) if isinstance(image, np.ndarray) else image), label

    def __len__(self) -> int:
        return len(self.labels)


class FashionMNIST(MNIST):
    """FashionMNIST: the same files and format as MNIST, under dataset/fashion-mnist."""

    NAME = "fashion-mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/fashion_mnist/"
