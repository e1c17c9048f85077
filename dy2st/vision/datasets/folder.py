"""DatasetFolder (root/class_x/*.png, labelled by class folder) and ImageFolder (every image
under root, unlabelled), read with the image backend's loader or a user's."""
from __future__ import annotations

import os
from typing import Any, Callable, List, Optional, Sequence, Tuple

from ...io import Dataset
from .. import get_image_backend

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename: str, extensions: Sequence[str]) -> bool:
    """Whether filename ends with one of extensions (case-insensitive)."""
    return filename.lower().endswith(tuple(e.lower() for e in extensions))


def default_loader(path: str) -> Any:
    """An RGB image: a PIL image with the 'pil' backend, an HWC uint8 array with 'cv2'."""
    if get_image_backend() == "cv2":
        try:
            import cv2  # optional: only the cv2 backend needs OpenCV
        except ImportError as exc:
            raise ImportError("the 'cv2' image backend needs OpenCV (pip install "
                              "opencv-python)") from exc
        return cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2RGB)
    try:
        from PIL import Image  # optional: Pillow is not a dy2st dependency
    except ImportError as exc:
        raise ImportError("reading images needs Pillow (pip install Pillow), or pass "
                          "loader=") from exc
    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


def _validator(extensions: Optional[Sequence[str]],
               is_valid_file: Optional[Callable[[str], bool]]) -> Callable[[str], bool]:
    if extensions is not None and is_valid_file is not None:
        raise ValueError("Both extensions and is_valid_file cannot be not None at the same time")
    if is_valid_file is not None:
        return is_valid_file
    exts = IMG_EXTENSIONS if extensions is None else tuple(extensions)
    return lambda path: has_valid_extension(path, exts)


def _files(folder: str, valid: Callable[[str], bool]) -> List[str]:
    out = []
    for base, dirs, names in sorted(os.walk(folder, followlinks=True)):
        dirs.sort()
        out += [os.path.join(base, n) for n in sorted(names) if valid(os.path.join(base, n))]
    return out


class DatasetFolder(Dataset):
    """Samples root/<class>/**/<file>, labelled by the sorted index of <class>: items are
    (loader(path) after transform, label as an int). Attributes classes, class_to_idx, samples, targets."""

    def __init__(self, root: str, loader: Optional[Callable[[str], Any]] = None,
                 extensions: Optional[Sequence[str]] = None,
                 transform: Optional[Callable] = None,
                 is_valid_file: Optional[Callable[[str], bool]] = None) -> None:
        self.root = os.path.expanduser(root)
        valid = _validator(extensions, is_valid_file)
        self.classes = sorted(e.name for e in os.scandir(self.root) if e.is_dir())
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self.samples: List[Tuple[str, int]] = [
            (p, self.class_to_idx[c]) for c in self.classes
            for p in _files(os.path.join(self.root, c), valid)]
        if not self.samples:
            raise RuntimeError(f"Found 0 files in subfolders of: {self.root}; valid "
                               f"extensions: {extensions or IMG_EXTENSIONS}")
        self.targets = [t for _, t in self.samples]
        self.loader = loader or default_loader
        self.extensions = extensions
        self.transform = transform

    def __getitem__(self, index: int) -> Tuple[Any, int]:
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self) -> int:
        return len(self.samples)


class ImageFolder(Dataset):
    """Every valid file under root (recursively, sorted): items are [loader(path) after
    transform], without labels."""

    def __init__(self, root: str, loader: Optional[Callable[[str], Any]] = None,
                 extensions: Optional[Sequence[str]] = None,
                 transform: Optional[Callable] = None,
                 is_valid_file: Optional[Callable[[str], bool]] = None) -> None:
        self.root = os.path.expanduser(root)
        self.samples = _files(self.root, _validator(extensions, is_valid_file))
        if not self.samples:
            raise RuntimeError(f"Found 0 files in: {self.root}; valid extensions: "
                               f"{extensions or IMG_EXTENSIONS}")
        self.loader = loader or default_loader
        self.extensions = extensions
        self.transform = transform

    def __getitem__(self, index: int) -> List[Any]:
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self) -> int:
        return len(self.samples)
