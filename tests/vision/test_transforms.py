"""paddle.vision.transforms on numpy images against numpy references."""

import numpy as np
import pytest

import dy2st as paddle
from dy2st.vision import transforms as T


def _img(h=6, w=8, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3)).astype(np.uint8)


def test_to_tensor_and_normalize():
    img = _img()
    t = T.ToTensor()(img)
    assert isinstance(t, paddle.Tensor) and t.shape == [3, 6, 8]
    np.testing.assert_allclose(t.numpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    n = T.Normalize(mean=[0.5, 0.4, 0.3], std=[0.2, 0.2, 0.25])(t)
    want = (img.transpose(2, 0, 1) / 255.0 - np.array([0.5, 0.4, 0.3])[:, None, None]) / \
        np.array([0.2, 0.2, 0.25])[:, None, None]
    np.testing.assert_allclose(n.numpy(), want, rtol=1e-5, atol=1e-6)
    hwc = T.Normalize(127.5, 127.5, data_format="HWC")(img.astype(np.float32))
    np.testing.assert_allclose(hwc, (img - 127.5) / 127.5, rtol=1e-6)
    assert T.ToTensor(data_format="HWC")(img).shape == [6, 8, 3]


def test_resize_and_crops():
    img = _img(6, 8)
    assert T.Resize((3, 4))(img).shape == (3, 4, 3)
    assert T.Resize(3)(img).shape == (3, 4, 3)               # the shorter side becomes 3
    const = np.full((5, 7, 3), 9, np.uint8)
    np.testing.assert_array_equal(T.Resize((11, 3))(const), np.full((11, 3, 3), 9, np.uint8))
    np.testing.assert_array_equal(T.Resize((3, 4), interpolation="nearest")(img),
                                  img[[0, 2, 4]][:, [0, 2, 4, 6]])
    up = T.Resize((12, 16))(img)
    np.testing.assert_array_equal(up[0, 0], img[0, 0])      # corners keep their pixels
    np.testing.assert_array_equal(T.CenterCrop(4)(img), img[1:5, 2:6])
    with pytest.raises(ValueError, match="larger than the image"):
        T.CenterCrop(10)(img)
    paddle.seed(3)
    c = T.RandomCrop(4)(img)
    assert c.shape == (4, 4, 3)
    assert any(np.array_equal(c, img[t:t + 4, l:l + 4]) for t in range(3) for l in range(5))
    padded = T.RandomCrop(8, padding=1)(img)
    assert padded.shape == (8, 8, 3)
    assert T.RandomCrop(10, pad_if_needed=True)(img).shape == (10, 10, 3)


def test_flips_transpose_compose_and_pil():
    img = _img()
    np.testing.assert_array_equal(T.RandomHorizontalFlip(1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(T.RandomHorizontalFlip(0.0)(img), img)
    np.testing.assert_array_equal(T.RandomVerticalFlip(1.0)(img), img[::-1])
    np.testing.assert_array_equal(T.Transpose()(img), img.transpose(2, 0, 1))
    pipeline = T.Compose([T.CenterCrop(4), T.ToTensor(), T.Normalize(0.5, 0.5)])
    out = pipeline(img)
    np.testing.assert_allclose(out.numpy(), (img[1:5, 2:6].transpose(2, 0, 1) / 255.0 - 0.5) / 0.5,
                               rtol=1e-5)
    Image = pytest.importorskip("PIL.Image", reason="Pillow is optional")
    np.testing.assert_allclose(T.ToTensor()(Image.fromarray(img)).numpy(),
                               img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    with pytest.raises(TypeError, match="numpy image"):
        T.ToTensor()("not an image")
