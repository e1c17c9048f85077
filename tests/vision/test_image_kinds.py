"""The basic functional transforms on each kind of image Paddle takes: HWC numpy arrays, CHW /
NCHW tensors (results stay tensors) and PIL images (results stay PIL images); against
PaddlePaddle's tensor and PIL paths when it is installed."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.vision import transforms as T
from dy2st.vision.transforms import functional as F

IMG = np.random.default_rng(0).integers(0, 256, (6, 9, 3)).astype(np.uint8)
FLOAT = (IMG / 255.0).astype(np.float32)


def chw(a):
    return paddle.to_tensor(np.ascontiguousarray(a.transpose(2, 0, 1)))


def hwc(t):
    return t.numpy().transpose(1, 2, 0)


def test_tensors_stay_tensors_and_match_numpy():
    t = chw(FLOAT)
    for name, args in [("hflip", ()), ("vflip", ()), ("crop", (1, 2, 3, 4)),
                       ("center_crop", (4,)), ("resize", ((4, 5), "nearest")),
                       ("resize", ((9, 12), "bilinear")), ("resize", ((3, 7), "bicubic")),
                       ("resize", (4,)), ("pad", ((1, 2), (0.1, 0.2, 0.3))),
                       ("pad", (2, 0, "reflect")), ("pad", ((1, 0, 2, 3), 0, "edge"))]:
        got = getattr(F, name)(t, *args)
        assert isinstance(got, paddle.Tensor), name
        np.testing.assert_allclose(hwc(got), getattr(F, name)(FLOAT, *args), atol=1e-6,
                                   err_msg=name)
    batch = paddle.to_tensor(np.stack([FLOAT.transpose(2, 0, 1)] * 2))
    assert F.resize(batch, (3, 4)).shape == [2, 3, 3, 4]
    np.testing.assert_allclose(F.hflip(batch).numpy()[1], hwc(F.hflip(t)).transpose(2, 0, 1))
    assert F.to_grayscale(t).shape == [1, 6, 9] and F.to_grayscale(t, 3).shape == [3, 6, 9]
    assert float(F.adjust_brightness(t, 5.0).numpy().max()) == 1.0      # floats clip at 1
    np.testing.assert_allclose(F.adjust_saturation(t, 1.0).numpy(), t.numpy(), atol=1e-6)
    assert T.RandomCrop(4, padding=1, padding_mode="reflect")(t).shape == [3, 4, 4]
    np.testing.assert_allclose(hwc(T.RandomHorizontalFlip(1.0)(t)), FLOAT[:, ::-1])
    assert T.ToTensor()(t) is t and T.ToTensor("HWC")(t).shape == [6, 9, 3]


def test_resize_kernels_known_answers():
    flat = np.full((5, 7, 3), 77, np.uint8)
    for mode in ("nearest", "bilinear", "bicubic"):
        np.testing.assert_array_equal(F.resize(flat, (9, 4), mode), np.full((9, 4, 3), 77))
    ramp = np.tile(np.arange(8.0), (2, 1))
    # bilinear and bicubic reproduce a linear ramp inside the border (cubic: a = -0.75)
    for mode in ("bilinear", "bicubic"):
        np.testing.assert_allclose(F.resize(ramp, (2, 4), mode)[0, 1:3], [2.5, 4.5])
    assert F.resize(IMG, 6) is IMG                         # the shorter side is already 6
    assert F.resize(IMG, 3).shape == (3, 4, 3)
    with pytest.raises(ValueError, match="interpolation should be one of"):
        F.resize(IMG, 3, "lanczos")


def test_pil_images_stay_pil():
    Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed")
    pil = Image.fromarray(IMG)
    for name, args, want in [("hflip", (), IMG[:, ::-1]), ("vflip", (), IMG[::-1]),
                             ("crop", (1, 2, 3, 4), IMG[1:4, 2:6]),
                             ("center_crop", (4,), IMG[1:5, 2:6]),
                             ("pad", (1, (1, 2, 3)), F.pad(IMG, 1, (1, 2, 3)))]:
        got = getattr(F, name)(pil, *args)
        assert isinstance(got, Image.Image), name
        np.testing.assert_array_equal(np.asarray(got), want)
    assert F.resize(pil, (3, 4)).size == (4, 3) and F.to_grayscale(pil).mode == "L"
    assert np.abs(np.asarray(F.adjust_contrast(pil, 0.5)).astype(int) -
                  F.adjust_contrast(IMG, 0.5)).max() == 0


def test_against_paddle():
    real = pytest.importorskip("paddle", reason="PaddlePaddle is not installed (reference)")
    Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed")
    R = real.vision.transforms.functional
    mine, theirs = chw(FLOAT), real.to_tensor(FLOAT.transpose(2, 0, 1))
    for name, args in [("hflip", ()), ("vflip", ()), ("crop", (1, 2, 3, 4)),
                       ("center_crop", ((4, 5),)), ("resize", ((4, 5), "nearest")),
                       ("resize", ((9, 12), "bilinear")), ("resize", ((3, 7), "bicubic")),
                       ("resize", (4,)), ("pad", ((1, 2), 0.5)), ("pad", (2, 0, "reflect")),
                       ("pad", ((1, 0, 2, 3), 0, "edge")), ("to_grayscale", (3,)),
                       ("adjust_brightness", (1.7,)), ("adjust_contrast", (0.4,)),
                       ("adjust_saturation", (1.6,))]:
        np.testing.assert_allclose(getattr(F, name)(mine, *args).numpy(),
                                   getattr(R, name)(theirs, *args).numpy(), atol=1e-5,
                                   err_msg=name)
    pil = Image.fromarray(IMG)
    for size, mode in [((4, 5), "bilinear"), ((11, 13), "bicubic"), (4, "nearest"),
                       ((3, 3), "lanczos")]:
        np.testing.assert_array_equal(np.asarray(F.resize(pil, size, mode)),
                                      np.asarray(R.resize(pil, size, mode)))
