"""Flowers (Oxford 102 Category Flowers) from Paddle's cached 102flowers.tgz, imagelabels.mat and
setid.mat.

The images are unpacked once next to the archive (as Paddle does, so either library reuses the
other's copy); the archive is checked member by member first and unpacked into a temporary folder
that is renamed only when complete, so a bad archive leaves nothing behind."""
from __future__ import annotations

import os
import re
import shutil
import tarfile
import zlib
from typing import Any, Callable, Optional, Tuple

import numpy as np

from ...io import Dataset
from ...runtime.config import get_default_dtype
from .files import decode_image, given_or_cached, mode_and_backend

DATA_URL = "http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz"
LABEL_URL = "http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat"
SETID_URL = "http://paddlemodels.bj.bcebos.com/flowers/setid.mat"
# Paddle trains on the dataset's larger 'test' split and tests on its 'train' split
MODE_FLAG_MAP = {"train": "tstid", "test": "trnid", "valid": "valid"}
_IMAGE = re.compile(r"jpg/image_\d{5}\.jpg")


def mat_vector(path: str, key: str, what: str) -> np.ndarray:
    """The 1 x n integer array `key` of the MATLAB file at path, as n int64 values."""
    from scipy import io as scipy_io  # lazy: scipy.io loads only for Flowers' .mat files
    try:
        mat = scipy_io.loadmat(path)
    except Exception as exc:  # noqa: BLE001 - scipy fails on foreign bytes in many ways
        raise ValueError(f"{what}: {path} is not a readable MATLAB .mat file ({exc})") from None
    if key not in mat:
        found = sorted(k for k in mat if not k.startswith("__"))
        raise ValueError(f"{what}: {path} has no '{key}' array (it holds {found})")
    arr = np.asarray(mat[key])
    if arr.ndim != 2 or arr.shape[0] != 1 or arr.dtype.kind not in "iuf" or \
            not np.all(np.mod(arr, 1) == 0):
        raise ValueError(f"{what}: '{key}' in {path} is not a 1 x n array of whole numbers "
                         f"(shape {list(arr.shape)}, dtype {arr.dtype})")
    return arr[0].astype(np.int64)


def unpack_images(data_file: str, what: str) -> str:
    """The folder holding jpg/image_NNNNN.jpg: data_file without '.tgz', unpacked now unless a
    complete copy is there already."""
    root = data_file[:-4] if data_file.endswith(".tgz") else data_file + ".d"
    if os.path.isdir(os.path.join(root, "jpg")):
        return root
    partial = f"{root}.partial-{os.getpid()}"
    try:
        with tarfile.open(data_file, mode="r:*") as tar:
            members = tar.getmembers()
            for m in members:
                if not ((m.isfile() and _IMAGE.fullmatch(m.name)) or
                        (m.isdir() and m.name.rstrip("/") == "jpg")):
                    raise ValueError(f"{what}: {data_file} holds {m.name!r}, which is not a "
                                     f"jpg/image_NNNNN.jpg file of 102flowers.tgz; refusing it")
            os.makedirs(os.path.join(partial, "jpg"))
            # only the checked names are written, as plain files: nothing else in the
            # archive (links, modes, owners) reaches the disk
            for m in members:
                if m.isfile():
                    with open(os.path.join(partial, m.name), "wb") as out:
                        out.write(tar.extractfile(m).read())
        os.makedirs(root, exist_ok=True)
        if not os.path.isdir(os.path.join(root, "jpg")):
            os.replace(os.path.join(partial, "jpg"), os.path.join(root, "jpg"))
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise ValueError(f"{what}: {data_file} is not a readable 102flowers.tgz archive "
                         f"({exc})") from None
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return root


class Flowers(Dataset):
    """Flowers(data_file=None, label_file=None, setid_file=None, mode='train', transform=None,
    download=True, backend=None): (image, label) pairs; the image is a PIL image (backend
    'pil') or an HWC float array in the default dtype ('cv2'), the label an int64 array of
    shape [1] with the class number 1..102."""

    def __init__(self, data_file: Optional[str] = None, label_file: Optional[str] = None,
                 setid_file: Optional[str] = None, mode: str = "train",
                 transform: Optional[Callable] = None, download: bool = True,
                 backend: Optional[str] = None) -> None:
        self.mode, self.backend = mode_and_backend(mode, backend, ("train", "valid", "test"))
        what = type(self).__name__
        flag = MODE_FLAG_MAP[self.mode]
        data_file = given_or_cached(data_file, download, "data_file", "flowers",
                                    "102flowers.tgz", DATA_URL, what)
        label_file = given_or_cached(label_file, download, "label_file", "flowers",
                                     "imagelabels.mat", LABEL_URL, what)
        setid_file = given_or_cached(setid_file, download, "setid_file", "flowers",
                                     "setid.mat", SETID_URL, what)
        labels = mat_vector(label_file, "labels", what)
        indexes = mat_vector(setid_file, flag, what)
        if indexes.size and (indexes.min() < 1 or indexes.max() > labels.size):
            raise ValueError(f"{what}: {setid_file} names images up to {indexes.max()}, but "
                             f"{label_file} labels {labels.size} images")
        self.data_path = unpack_images(data_file, what)
        missing = [i for i in indexes if not os.path.isfile(self._image_path(i))]
        if missing:
            raise ValueError(f"{what}: {data_file} lacks {len(missing)} images of the "
                             f"'{flag}' split (first: jpg/image_{missing[0]:05}.jpg)")
        self.data_file, self.label_file, self.setid_file = data_file, label_file, setid_file
        self.labels, self.indexes = labels, indexes
        self.transform = transform
        self.dtype = get_default_dtype()

    def _image_path(self, index: int) -> str:
        return os.path.join(self.data_path, "jpg", f"image_{index:05}.jpg")

    def __getitem__(self, idx: int) -> Tuple[Any, np.ndarray]:
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]], dtype=np.int64)
        path = self._image_path(index)
        with open(path, "rb") as f:
            image = decode_image(f.read(), path, type(self).__name__)
        if self.backend == "cv2":
            image = np.array(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return np.asarray(image).astype(self.dtype), label

    def __len__(self) -> int:
        return len(self.indexes)
