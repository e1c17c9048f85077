"""VOC2012 (the segmentation part of Pascal VOC 2012) from Paddle's cached
VOCtrainval_11-May-2012.tar, read in place: the split's list is checked against the archive
when the dataset is built, and each item's image and label are decoded when asked for."""
from __future__ import annotations

import tarfile
import zlib
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ...io import Dataset
from ...runtime.config import get_default_dtype
from .files import decode_image, given_or_cached, mode_and_backend

VOC_URL = "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"
SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"
CACHE_DIR = "voc2012"
# as in Paddle: 'train' reads the trainval list, 'test' the train list, 'valid' the val list
MODE_FLAG_MAP = {"train": "trainval", "test": "train", "valid": "val"}


def index_archive(path: str, what: str) -> Dict[str, tarfile.TarInfo]:
    """The regular files of the tar archive at path, by name."""
    try:
        with tarfile.open(path, mode="r:*") as tar:
            return {m.name: m for m in tar.getmembers() if m.isfile()}
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise ValueError(f"{what}: {path} is not a readable tar archive ({exc})") from None


class VOC2012(Dataset):
    """VOC2012(data_file=None, mode='train', transform=None, download=True, backend=None):
    (image, label) pairs, the photo and its class map (PIL images with backend 'pil'; arrays
    in the default dtype with 'cv2'); transform applies to the photo only."""

    def __init__(self, data_file: Optional[str] = None, mode: str = "train",
                 transform: Optional[Callable] = None, download: bool = True,
                 backend: Optional[str] = None) -> None:
        self.mode, self.backend = mode_and_backend(mode, backend, ("train", "valid", "test"))
        what = type(self).__name__
        self.flag = MODE_FLAG_MAP[self.mode]
        self.data_file = given_or_cached(data_file, download, "data_file", CACHE_DIR,
                                         "VOCtrainval_11-May-2012.tar", VOC_URL, what)
        self.transform = transform
        self.dtype = get_default_dtype()
        self._load_anno()
        self._tar: Optional[tarfile.TarFile] = None

    def _load_anno(self) -> None:
        what = type(self).__name__
        self.name2mem = index_archive(self.data_file, what)
        set_file = SET_FILE.format(self.flag)
        if set_file not in self.name2mem:
            raise ValueError(f"{what}: {self.data_file} has no {set_file}; it is not the "
                             f"VOCtrainval tar")
        with tarfile.open(self.data_file, mode="r:*") as tar:
            raw = tar.extractfile(self.name2mem[set_file]).read()
        try:
            names = [line.strip() for line in raw.decode("utf-8").splitlines() if line.strip()]
        except UnicodeDecodeError:
            raise ValueError(f"{what}: {set_file} in {self.data_file} is not a text list of "
                             f"image names") from None
        self.data: List[str] = [DATA_FILE.format(n) for n in names]
        self.labels: List[str] = [LABEL_FILE.format(n) for n in names]
        missing = [m for m in self.data + self.labels if m not in self.name2mem]
        if missing:
            raise ValueError(f"{what}: {self.data_file} lacks {len(missing)} files listed in "
                             f"{set_file} (first: {missing[0]})")

    def _read(self, name: str) -> Any:
        if self._tar is None:               # opened lazily, once per process (see __getstate__)
            self._tar = tarfile.open(self.data_file, mode="r:*")
        raw = self._tar.extractfile(self.name2mem[name]).read()
        return decode_image(raw, f"{name} in {self.data_file}", type(self).__name__)

    def __getitem__(self, idx: int) -> Tuple[Any, Any]:
        data, label = self._read(self.data[idx]), self._read(self.labels[idx])
        if self.backend == "cv2":
            data, label = np.array(data), np.array(label)
        if self.transform is not None:
            data = self.transform(data)
        if self.backend == "cv2":
            return np.asarray(data).astype(self.dtype), label.astype(self.dtype)
        return data, label

    def __len__(self) -> int:
        return len(self.data)

    def __getstate__(self) -> Dict[str, Any]:
        # an open archive cannot cross to a worker process: each process opens its own
        state = dict(self.__dict__)
        state["_tar"] = None
        return state

    def __del__(self) -> None:
        if getattr(self, "_tar", None) is not None:
            self._tar.close()
