"""paddle.vision.set_image_backend / get_image_backend / image_load on a PNG written here."""
import numpy as np
import pytest

import dy2st as paddle

Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed (image_load's 'pil')")


@pytest.fixture
def png(tmp_path):
    pixels = (np.arange(4 * 5 * 3) % 251).astype("uint8").reshape(4, 5, 3)
    path = tmp_path / "img.png"
    Image.fromarray(pixels).save(path)
    return str(path), pixels


def test_pil_and_tensor_backends(png):
    path, pixels = png
    assert paddle.vision.get_image_backend() == "pil"
    img = paddle.vision.image_load(path)
    assert isinstance(img, Image.Image) and img.size == (5, 4)
    assert np.array_equal(np.asarray(img.convert("RGB")), pixels)
    t = paddle.vision.image_load(path, backend="tensor")
    assert t.dtype == "uint8" and np.array_equal(t.numpy(), pixels)


def test_set_image_backend_is_what_image_load_uses(png):
    path, pixels = png
    paddle.vision.set_image_backend("tensor")
    try:
        assert np.array_equal(paddle.vision.image_load(path).numpy(), pixels)
    finally:
        paddle.vision.set_image_backend("pil")


def test_unknown_backends_are_refused(png):
    with pytest.raises(ValueError, match="'pil', 'cv2', 'tensor'"):
        paddle.vision.image_load(png[0], backend="skimage")
    with pytest.raises(ValueError, match="'pil', 'cv2', 'tensor'"):
        paddle.vision.set_image_backend("skimage")
