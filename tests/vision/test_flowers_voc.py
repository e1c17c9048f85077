"""vision.datasets.Flowers and VOC2012 on miniature copies of Paddle's files (built here): the
splits and items Paddle gives, where to put absent files, and refusal of foreign archives."""
import io
import os
import pickle
import tarfile

import numpy as np
import pytest
import scipy.io

from dy2st.vision import datasets, transforms as T

RNG = np.random.default_rng(0)
PICS = [RNG.integers(0, 256, (4, 5, 3)).astype(np.uint8) for _ in range(5)]


def png(array, mode=None):
    Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed")
    buf = io.BytesIO()
    Image.fromarray(array, mode).save(buf, format="PNG")     # lossless, whatever the name
    return buf.getvalue()


def add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def flowers_files(tmp_path, members=None):
    data = tmp_path / "102flowers.tgz"
    with tarfile.open(data, "w:gz") as tar:
        for name, raw in (members or [(f"jpg/image_{i + 1:05}.jpg", png(p))
                                      for i, p in enumerate(PICS)]):
            add(tar, name, raw)
    scipy.io.savemat(tmp_path / "imagelabels.mat", {"labels": np.array([[7, 3, 102, 1, 5]])})
    scipy.io.savemat(tmp_path / "setid.mat", {"tstid": np.array([[1, 3, 5]]),
                                              "trnid": np.array([[2]]),
                                              "valid": np.array([[4, 1]])})
    return str(data), str(tmp_path / "imagelabels.mat"), str(tmp_path / "setid.mat")


def test_flowers_splits_items_and_reuse(tmp_path):
    files = flowers_files(tmp_path)
    train = datasets.Flowers(*files, mode="train", backend="cv2")
    assert len(train) == 3 and len(datasets.Flowers(*files, mode="TEST")) == 1
    image, label = train[1]                                  # setid 'tstid'[1] = image 3
    assert image.dtype == np.float32 and label.dtype == np.int64
    np.testing.assert_array_equal(image, PICS[2])
    np.testing.assert_array_equal(label, [102])
    valid = datasets.Flowers(*files, mode="valid", backend="pil",
                             transform=T.Compose([T.Resize((2, 2)), T.ToTensor()]))
    pic, label = valid[0]
    assert list(pic.shape) == [3, 2, 2] and label.tolist() == [1]
    assert os.path.isfile(tmp_path / "102flowers" / "jpg" / "image_00005.jpg")
    os.remove(files[0])                 # the unpacked images are reused without the archive
    with pytest.raises(FileNotFoundError):
        datasets.Flowers(*files)
    open(files[0], "wb").close()
    assert len(datasets.Flowers(*files, mode="valid")) == 2


def test_flowers_refuses_foreign_files(tmp_path):
    with pytest.raises(ValueError, match=r"holds '\.\./evil'.*refusing it"):
        datasets.Flowers(*flowers_files(tmp_path, [("../evil", b"x")]))
    assert not os.path.exists(tmp_path / "102flowers" / "jpg")   # nothing left half-done
    data, labels, setid = flowers_files(tmp_path)
    with open(data, "r+b") as f:
        f.truncate(40)
    with pytest.raises(ValueError, match="102flowers.tgz is not a readable"):
        datasets.Flowers(data, labels, setid)
    assert not os.path.exists(tmp_path / "102flowers" / "jpg")
    with pytest.raises(ValueError, match=r"imagelabels\.mat has no 'tstid' array \(it holds "
                                         r"\['labels'\]\)"):
        datasets.Flowers(data, labels, labels)               # the labels given as the split
    with pytest.raises(ValueError, match="102flowers.tgz is not a readable MATLAB"):
        datasets.Flowers(data, data, setid)
    (tmp_path / "few").mkdir()
    missing = flowers_files(tmp_path / "few", [("jpg/image_00001.jpg", png(PICS[0]))])
    with pytest.raises(ValueError, match=r"lacks 2 images .*image_00003\.jpg"):
        datasets.Flowers(*missing)


def test_flowers_absent_files_and_modes(tmp_path, monkeypatch):
    monkeypatch.setattr("dy2st.vision.datasets.files.DATA_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"102flowers\.tgz does not exist.*Download "
                                                r"http://paddlemodels\.bj\.bcebos\.com"):
        datasets.Flowers()
    with pytest.raises(ValueError, match="data_file is not set and downloading automatically "
                                         "is disabled"):
        datasets.Flowers(download=False)
    with pytest.raises(ValueError, match="mode should be 'train', 'valid' or 'test', but got x"):
        datasets.Flowers(mode="x")
    with pytest.raises(ValueError, match="Expected backend are one of"):
        datasets.Flowers(backend="tensor")


def voc_tar(tmp_path, drop=None):
    path = tmp_path / "VOCtrainval_11-May-2012.tar"
    root = "VOCdevkit/VOC2012/"
    with tarfile.open(path, "w") as tar:
        for split, names in (("trainval", "a b c"), ("train", "a"), ("val", "b c")):
            add(tar, f"{root}ImageSets/Segmentation/{split}.txt",
                "\n".join(names.split()).encode() + b"\n")
        for i, name in enumerate("abc"):
            if name != drop:
                add(tar, f"{root}JPEGImages/{name}.jpg", png(PICS[i]))
            mask = np.full((4, 5), i, np.uint8)
            add(tar, f"{root}SegmentationClass/{name}.png", png(mask, "L"))
    return str(path)


def test_voc2012_items(tmp_path):
    path = voc_tar(tmp_path)
    train = datasets.VOC2012(path, backend="cv2")
    assert len(train) == 3 and len(datasets.VOC2012(path, mode="test")) == 1
    image, label = train[2]
    np.testing.assert_array_equal(image, PICS[2])
    np.testing.assert_array_equal(label, np.full((4, 5), 2))
    assert image.dtype == label.dtype == np.float32
    valid = datasets.VOC2012(path, mode="valid", transform=T.Grayscale())
    pic, mask = valid[0]                                      # backend 'pil': the mask stays PIL
    assert np.asarray(pic).shape == (4, 5) and np.asarray(mask).tolist() == [[1] * 5] * 4
    clone = pickle.loads(pickle.dumps(train))
    np.testing.assert_array_equal(clone[0][0], PICS[0])


def test_voc2012_refuses_incomplete_or_foreign_archives(tmp_path):
    with pytest.raises(ValueError, match=r"lacks 1 files .*JPEGImages/b\.jpg"):
        datasets.VOC2012(voc_tar(tmp_path, drop="b"))
    other = tmp_path / "other.tar"
    with tarfile.open(other, "w") as tar:
        add(tar, "readme.txt", b"hello")
    with pytest.raises(ValueError, match="has no VOCdevkit/VOC2012/ImageSets/Segmentation/"
                                         "trainval.txt; it is not the VOCtrainval tar"):
        datasets.VOC2012(str(other))
    garbage = tmp_path / "garbage.tar"
    garbage.write_bytes(b"not a tar at all" * 40)
    with pytest.raises(ValueError, match="garbage.tar is not a readable tar archive"):
        datasets.VOC2012(str(garbage))
    with pytest.raises(ValueError, match="data_file is not set and downloading"):
        datasets.VOC2012(download=False)
