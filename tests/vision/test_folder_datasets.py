"""DatasetFolder and ImageFolder over a small directory tree: order, labels, extensions,
is_valid_file, custom loaders, transforms and errors; against PaddlePaddle when installed."""
import os

import numpy as np
import pytest

import dy2st as paddle

datasets = paddle.vision.datasets


@pytest.fixture
def tree(tmp_path):
    for rel in ["cat/b.png", "cat/a.png", "dog/sub/c.png", "dog/notes.txt", "empty/.keep"]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rel.encode())
    return str(tmp_path)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def test_dataset_folder_labels_by_sorted_class(tree):
    ds = datasets.DatasetFolder(tree, loader=_read)
    assert ds.classes == ["cat", "dog", "empty"] and ds.class_to_idx["dog"] == 1
    rel = [(os.path.relpath(p, tree), t) for p, t in ds.samples]
    assert rel == [("cat/a.png", 0), ("cat/b.png", 0), (os.path.join("dog", "sub", "c.png"), 1)]
    assert ds.targets == [0, 0, 1] and len(ds) == 3
    sample, target = ds[2]
    assert sample == b"dog/sub/c.png" and target == 1 and isinstance(target, int)


def test_extensions_is_valid_file_and_transform(tree):
    ds = datasets.DatasetFolder(tree, loader=_read, extensions=(".txt",), transform=len)
    assert [os.path.basename(p) for p, _ in ds.samples] == ["notes.txt"]
    assert ds[0] == (len(b"dog/notes.txt"), 1)
    ds = datasets.DatasetFolder(tree, loader=_read, is_valid_file=lambda p: "a." in p)
    assert len(ds) == 1
    with pytest.raises(ValueError, match="at the same time"):
        datasets.DatasetFolder(tree, extensions=(".png",), is_valid_file=lambda p: True)
    with pytest.raises(RuntimeError, match="Found 0 files"):
        datasets.DatasetFolder(tree, extensions=(".jpg",))


def test_image_folder_lists_every_image_unlabelled(tree):
    ds = datasets.ImageFolder(tree, loader=_read)
    assert [os.path.relpath(p, tree) for p in ds.samples] == [
        "cat/a.png", "cat/b.png", os.path.join("dog", "sub", "c.png")]
    assert ds[0] == [b"cat/a.png"]


def test_default_loader_reads_rgb_images_like_paddle(tmp_path):
    Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed")
    pixels = np.arange(2 * 3 * 3, dtype="uint8").reshape(2, 3, 3)
    os.makedirs(tmp_path / "k")
    Image.fromarray(pixels).save(tmp_path / "k" / "x.png")
    img, label = datasets.DatasetFolder(str(tmp_path))[0]
    assert label == 0 and np.array_equal(np.asarray(img), pixels)
    try:
        import paddle as real
    except ImportError:
        return
    theirs = real.vision.datasets.DatasetFolder(str(tmp_path))
    assert np.array_equal(np.asarray(theirs[0][0]), np.asarray(img))
    assert theirs.samples == datasets.DatasetFolder(str(tmp_path)).samples
