"""paddle.vision.datasets read Paddle's on-disk formats (written here in miniature), explain
where to put absent files, and refuse pickles holding anything but data."""
import gzip
import io
import os
import pickle
import struct
import tarfile

import numpy as np
import pytest

import dy2st as paddle
from dy2st.vision import datasets, transforms as T


def _write_idx(path, array, labels=False):
    with gzip.open(path, "wb") as f:
        if labels:
            f.write(struct.pack(">II", 0x801, len(array)) + array.astype(np.uint8).tobytes())
        else:
            n, r, c = array.shape
            f.write(struct.pack(">IIII", 0x803, n, r, c) + array.astype(np.uint8).tobytes())


def test_mnist_from_idx_files(tmp_path):
    images = np.random.default_rng(0).integers(0, 256, (5, 28, 28)).astype(np.uint8)
    labels = np.array([3, 1, 4, 1, 5], np.uint8)
    _write_idx(tmp_path / "img.gz", images)
    _write_idx(tmp_path / "lab.gz", labels, labels=True)
    ds = datasets.MNIST(str(tmp_path / "img.gz"), str(tmp_path / "lab.gz"), mode="test",
                        backend="cv2")
    assert len(ds) == 5
    image, label = ds[2]
    assert image.dtype == np.float32 and image.shape == (28, 28)
    np.testing.assert_array_equal(image, images[2])
    assert label.dtype == np.int64 and label.tolist() == [4]
    with_t = datasets.FashionMNIST(str(tmp_path / "img.gz"), str(tmp_path / "lab.gz"),
                                   transform=T.ToTensor(), backend="cv2")
    assert with_t[0][0].shape == [1, 28, 28]
    loader = paddle.io.DataLoader(with_t, batch_size=2)
    xb, yb = next(iter(loader))
    assert xb.shape == [2, 1, 28, 28] and yb.shape == [2, 1]


def test_absent_files_say_where_to_put_them(tmp_path):
    with pytest.raises(FileNotFoundError, match="downloads nothing.*mnist"):
        datasets.MNIST(str(tmp_path / "none.gz"), str(tmp_path / "none2.gz"))
    with pytest.raises(ValueError, match="mode should be"):
        datasets.MNIST(mode="valid")


def _cifar_tar(path, batches):
    with tarfile.open(path, "w:gz") as tar:
        for name, payload in batches.items():
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))


def test_cifar10_reads_batches_as_data(tmp_path):
    data = np.random.default_rng(1).integers(0, 256, (4, 3072)).astype(np.uint8)
    batch = pickle.dumps({b"data": data, b"labels": [0, 9, 3, 2], b"batch_label": b"x"},
                         protocol=2)
    _cifar_tar(tmp_path / "c.tar.gz", {"data_batch_1": batch, "test_batch": batch})
    ds = datasets.Cifar10(str(tmp_path / "c.tar.gz"), mode="train", backend="cv2")
    assert len(ds) == 4
    image, label = ds[1]
    assert image.shape == (32, 32, 3) and int(label) == 9
    np.testing.assert_array_equal(image, data[1].reshape(3, 32, 32).transpose(1, 2, 0))


class _Evil:
    def __reduce__(self):
        return (os.getcwd, ())


def test_cifar10_refuses_pickles_holding_code(tmp_path):
    _cifar_tar(tmp_path / "bad.tar.gz", {"data_batch_1": pickle.dumps({b"data": _Evil()})})
    with pytest.raises(pickle.UnpicklingError, match="not data"):
        datasets.Cifar10(str(tmp_path / "bad.tar.gz"))


def test_cifar100_reads_fine_labels_per_mode(tmp_path):
    rng = np.random.default_rng(2)
    train, test = (rng.integers(0, 256, (n, 3072)).astype(np.uint8) for n in (3, 2))
    members = {"train": pickle.dumps({b"data": train, b"fine_labels": [5, 99, 0],
                                      b"coarse_labels": [1, 2, 3]}, protocol=2),
               "test": pickle.dumps({b"data": test, b"fine_labels": [42, 7]}, protocol=2),
               "meta": pickle.dumps({b"fine_label_names": [b"apple"]}, protocol=2)}
    with tarfile.open(tmp_path / "c100.tar.gz", "w:gz") as tar:
        for name, payload in members.items():
            info = tarfile.TarInfo(f"cifar-100-python/{name}")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    ds = datasets.Cifar100(str(tmp_path / "c100.tar.gz"), mode="train", backend="cv2")
    assert len(ds) == 3 and [int(ds[i][1]) for i in range(3)] == [5, 99, 0]
    np.testing.assert_array_equal(ds[2][0], train[2].reshape(3, 32, 32).transpose(1, 2, 0))
    ds = datasets.Cifar100(str(tmp_path / "c100.tar.gz"), mode="test", backend="cv2")
    assert [int(ds[i][1]) for i in range(len(ds))] == [42, 7]
    with pytest.raises(FileNotFoundError, match="cifar-100-python.tar.gz"):
        datasets.Cifar100(str(tmp_path / "absent.tar.gz"))
