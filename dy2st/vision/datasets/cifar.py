"""Cifar10 and Cifar100 from Paddle's cached cifar-10/100-python.tar.gz. Its batches are pickles: they are read
with an unpickler that builds only dicts, lists, strings, bytes, numbers and numpy arrays (any
other object in the file is refused), so reading it runs no code from the file."""
from __future__ import annotations

import io
import pickle
import tarfile
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from ...io import Dataset
from .files import locate, mode_and_backend

_URL = "https://dataset.bj.bcebos.com/cifar/cifar-10-python.tar.gz"
_ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
            ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "scalar"),
            ("numpy._core.multiarray", "scalar"), ("_codecs", "encode")}


class _DataOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"Cifar: the batch file holds {module}.{name}, "
                                         f"which is not data; refusing to load it")
        return super().find_class(module, name)


def load_batch(raw: bytes) -> dict:
    batch = _DataOnly(io.BytesIO(raw), encoding="bytes").load()
    if not isinstance(batch, dict):
        raise ValueError("Cifar: a batch is not a dict")
    return {k.decode() if isinstance(k, bytes) else k: v for k, v in batch.items()}


class Cifar10(Dataset):
    """Cifar10(data_file=None, mode='train', transform=None, download=True, backend=None):
    (image, label) pairs; image is 32x32x3 (HWC) uint8 data as float32, label an int64."""
    # the archive, where Paddle downloads it from, and the member names of each mode
    FILE, URL = "cifar-10-python.tar.gz", _URL
    FLAGS = {"train": "data_batch", "test": "test_batch"}

    def __init__(self, data_file: Optional[str] = None, mode: str = "train",
                 transform: Optional[Callable] = None, download: bool = True,
                 backend: Optional[str] = None) -> None:
        self.mode, self.backend = mode_and_backend(mode, backend)
        what = type(self).__name__
        path = locate(data_file, "cifar", self.FILE, self.URL, what)
        flag = self.FLAGS[self.mode]
        images: List[np.ndarray] = []
        labels: List[int] = []
        with tarfile.open(path, mode="r") as f:
            for member in sorted(f.getmembers(), key=lambda m: m.name):
                if flag not in member.name or not member.isfile():
                    continue
                batch = load_batch(f.extractfile(member).read())
                data = np.asarray(batch["data"], dtype=np.uint8)
                images.append(data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
                labels.extend(int(v) for v in batch.get("labels", batch.get("fine_labels", [])))
        if not images:
            raise ValueError(f"{what}: {path} holds no {flag} members")
        self.images = np.concatenate(images)
        self.labels = np.asarray(labels, dtype=np.int64)
        self.transform = transform
        self.dtype = "float32"

    def __getitem__(self, idx: int) -> Tuple[Any, np.ndarray]:
        image, label = self.images[idx], np.array(self.labels[idx], dtype=np.int64)
        if self.backend == "pil":
            try:
                from PIL import Image  # optional: only for backend='pil' images
                image = Image.fromarray(image)
            except ImportError:
                pass
        if self.transform is not None:
            image = self.transform(image)
        if isinstance(image, np.ndarray) and self.backend != "pil":
            image = image.astype(np.float32)
        return image, label

    def __len__(self) -> int:
        return len(self.labels)


class Cifar100(Cifar10):
    """Cifar100(data_file=None, mode='train', transform=None, download=True, backend=None): as
    Cifar10, from cifar-100-python.tar.gz (members train / test, the 100 fine labels)."""
    FILE = "cifar-100-python.tar.gz"
    URL = "https://dataset.bj.bcebos.com/cifar/cifar-100-python.tar.gz"
    FLAGS = {"train": "train", "test": "test"}
