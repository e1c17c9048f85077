"""transforms' grayscale, brightness / contrast / saturation / hue, pad, erase and
RandomErasing on numpy images; against PaddlePaddle (its PIL backend, within 1 grey level; its
tensor path for hue) when installed."""

import numpy as np
import pytest

import dy2st as paddle

T = paddle.vision.transforms
IMG = np.random.default_rng(0).integers(0, 256, (5, 6, 3)).astype("uint8")


def test_grayscale_brightness_contrast_saturation_by_formula():
    luma = IMG.astype(float) @ [0.299, 0.587, 0.114]
    g = T.to_grayscale(IMG)
    assert g.shape == (5, 6, 1) and np.abs(g[..., 0] - luma).max() <= 0.5
    assert T.Grayscale(3)(IMG).shape == (5, 6, 3)
    np.testing.assert_array_equal(T.adjust_brightness(IMG, 2.0),
                                  np.clip(IMG.astype(int) * 2, 0, 255))
    flat = T.adjust_contrast(IMG, 0.0)
    assert np.all(flat == np.round(luma.mean()))
    np.testing.assert_array_equal(T.adjust_contrast(IMG, 1.0), IMG)
    grey = T.SaturationTransform(0.0)(IMG)
    np.testing.assert_array_equal(grey, IMG)       # value 0 keeps the image
    with pytest.raises(ValueError, match="non negative"):
        T.BrightnessTransform(-1)


def test_random_factor_transforms_stay_in_range():
    paddle.seed(0)
    out = T.BrightnessTransform(0.5)(IMG).astype(float)
    mid = (IMG > 40) & (IMG < 150)          # neither clipped nor dominated by rounding
    ratio = out[mid] / IMG[mid]
    assert 0.45 <= ratio.min() and ratio.max() <= 1.55 and np.ptp(ratio) < 0.05
    assert T.ContrastTransform(0.3)(IMG).dtype == np.uint8


def test_pad_modes_and_errors():
    out = T.Pad((1, 2, 3, 0), fill=(9, 8, 7))(IMG)
    assert out.shape == (7, 10, 3)
    np.testing.assert_array_equal(out[0, 0], [9, 8, 7])
    np.testing.assert_array_equal(out[2:, 1:7], IMG)
    np.testing.assert_array_equal(T.pad(IMG, 1, padding_mode="edge")[0, 0], IMG[0, 0])
    np.testing.assert_array_equal(T.pad(IMG, 1, padding_mode="reflect")[0, 0], IMG[1, 1])
    with pytest.raises(ValueError, match="padding_mode"):
        T.pad(IMG, 1, padding_mode="wrap")
    with pytest.raises(ValueError, match="padding"):
        T.pad(IMG, (1, 2, 3))


def test_erase_numpy_and_tensor():
    out = T.erase(IMG, 1, 2, 2, 3, 0)
    assert np.all(out[1:3, 2:5] == 0) and np.array_equal(out[0], IMG[0])
    assert not np.all(IMG[1:3, 2:5] == 0)          # a copy unless inplace
    t = paddle.to_tensor(IMG.transpose(2, 0, 1).astype("float32"))
    e = T.erase(t, 0, 0, 2, 2, np.full((3, 1, 1), 5.0, "float32"))
    assert isinstance(e, paddle.Tensor) and np.all(e.numpy()[:, :2, :2] == 5.0)


def test_random_erasing():
    paddle.seed(1)
    img = np.full((20, 20, 3), 100, "uint8")
    out = T.RandomErasing(prob=1.0, value=0)(img)
    zeros = np.argwhere(out[..., 0] == 0)
    assert 0 < len(zeros) < 400
    box = zeros.max(0) - zeros.min(0) + 1
    assert len(zeros) == box[0] * box[1]              # one rectangle
    assert T.RandomErasing(prob=0.0)(img) is img
    with pytest.raises(ValueError, match="'random'"):
        T.RandomErasing(value="noise")


def test_adjust_hue_known_answers():
    np.testing.assert_array_equal(T.adjust_hue(IMG, 0.0), IMG)
    half = T.adjust_hue(IMG, 0.5)
    # half a turn gives the complementary colour: each channel becomes max + min - itself
    top, bottom = IMG.max(-1, keepdims=True).astype(int), IMG.min(-1, keepdims=True)
    np.testing.assert_array_equal(half, top + bottom - IMG)
    np.testing.assert_array_equal(T.adjust_hue(half, 0.5), IMG)
    third = T.adjust_hue(np.array([[[255, 0, 0], [0, 0, 255]]], "uint8"), 1 / 3)
    np.testing.assert_array_equal(third, [[[0, 255, 0], [255, 0, 0]]])   # red->green, blue->red
    f = IMG.astype("float32") / 255
    np.testing.assert_allclose(T.adjust_hue(T.adjust_hue(f, 0.3), -0.3), f, atol=1e-6)
    gray = IMG[..., :1]
    assert T.adjust_hue(gray, 0.2) is gray                      # one channel: unchanged
    t = T.adjust_hue(paddle.to_tensor(f.transpose(2, 0, 1)), 0.25)
    assert isinstance(t, paddle.Tensor)
    np.testing.assert_allclose(t.numpy(), T.adjust_hue(f, 0.25).transpose(2, 0, 1), atol=1e-6)
    with pytest.raises(ValueError, match=r"hue_factor:0.6 is not in \[-0.5, 0.5\]"):
        T.adjust_hue(IMG, 0.6)
    with pytest.raises(ValueError, match="either 1 or 3"):
        T.adjust_hue(np.zeros((2, 2, 4), "uint8"), 0.1)
    with pytest.raises(TypeError, match="img should be PIL Image"):
        T.adjust_hue("image", 0.1)


def test_hue_transform_and_color_jitter():
    paddle.seed(4)
    a = T.ColorJitter(0.4, (0.5, 1.5), 0.3, 0.1)(IMG)
    paddle.seed(4)
    np.testing.assert_array_equal(T.ColorJitter(0.4, (0.5, 1.5), 0.3, 0.1)(IMG), a)
    assert not np.array_equal(a, IMG)
    np.testing.assert_array_equal(T.ColorJitter()(IMG), IMG)      # all 0: nothing changes
    assert T.HueTransform(0).value is None and T.HueTransform(0.2).value == [-0.2, 0.2]
    out = T.HueTransform((0.5, 0.5))(IMG)              # a range of one point: always 0.5
    np.testing.assert_array_equal(out, T.adjust_hue(IMG, 0.5))
    with pytest.raises(ValueError, match=r"hue values should be between \(-0.5, 0.5\)"):
        T.HueTransform((-0.6, 0.1))
    with pytest.raises(TypeError, match="a single number or a list/tuple with length 2"):
        T.ColorJitter(brightness=[1, 2, 3])(IMG)


def test_against_paddle():
    real = pytest.importorskip("paddle", reason="PaddlePaddle is not installed (reference)")
    Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed")
    im, R = Image.fromarray(IMG), real.vision.transforms
    for name, args in [("to_grayscale", (3,)), ("adjust_brightness", (1.5,)),
                       ("adjust_contrast", (0.5,)), ("pad", ((1, 2, 3, 0), (9, 8, 7))),
                       ("pad", (2, 0, "reflect")), ("pad", (2, 0, "symmetric"))]:
        theirs = np.asarray(getattr(R, name)(im, *args)).astype(int)
        ours = getattr(T, name)(IMG, *args).astype(int)
        assert np.abs(theirs - ours).max() <= 1, name
    hsv = pytest.importorskip("PIL.Image").fromarray(IMG)
    for factor in (0.0, 0.2, -0.37, 0.5):
        # Paddle's tensor path computes hue in floats, as dy2st does for every kind of image
        theirs = R.adjust_hue(real.to_tensor(IMG.transpose(2, 0, 1) / 255.0), factor).numpy()
        ours = T.adjust_hue(IMG / 255.0, factor).transpose(2, 0, 1)
        np.testing.assert_allclose(ours, theirs, atol=1e-6)
        # a PIL image goes through Pillow's HSV, in bytes, as in Paddle: the same pixels
        np.testing.assert_array_equal(np.asarray(T.adjust_hue(hsv, factor)),
                                      np.asarray(R.adjust_hue(hsv, factor)))
