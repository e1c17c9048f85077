"""rotate, affine and perspective of paddle.vision.transforms on known answers (numpy, tensor
and PIL images), and Paddle's errors for bad arguments."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.vision.transforms import functional as F

IMG = np.random.default_rng(0).integers(0, 256, (6, 6, 3)).astype(np.uint8)
WIDE = np.random.default_rng(1).integers(0, 256, (5, 8, 3)).astype(np.uint8)
CORNERS = [[0, 0], [7, 0], [7, 4], [0, 4]]


def chw(a):
    return paddle.to_tensor(np.ascontiguousarray(a.transpose(2, 0, 1)).astype("float32"))


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear", "bicubic"])
def test_quarter_turns_are_rot90(interpolation):
    for angle, k in ((90, 1), (-90, 3), (180, 2), (270, 3), (360, 0)):
        want = np.rot90(IMG, k)
        np.testing.assert_array_equal(F.rotate(IMG, angle, interpolation), want)
        # an explicit centre takes the general warp (no transpose shortcut): same pixels
        np.testing.assert_array_equal(F.rotate(IMG, angle, interpolation, center=(3, 3)), want)
    # a wide image: expand turns it upright, as np.rot90
    np.testing.assert_array_equal(F.rotate(WIDE, 90, interpolation, expand=True),
                                  np.rot90(WIDE))
    t = F.rotate(chw(IMG), 90, "bilinear" if interpolation == "bicubic" else interpolation)
    np.testing.assert_allclose(t.numpy(), chw(np.rot90(IMG)).numpy(), atol=1e-4)


def test_rotate_fill_expand_center_and_gray():
    out = F.rotate(WIDE, 45, fill=(1, 2, 3))
    assert out.shape == WIDE.shape and out.dtype == np.uint8
    np.testing.assert_array_equal(out[0, 0], [1, 2, 3])          # a corner leaves the image
    big = F.rotate(WIDE, 45, expand=True)
    # an 8x5 rectangle turned by 45 degrees about (4, 2.5) spans x in 4 +- 4.6 and y in
    # 2.5 +- 4.6; Pillow's output size counts the whole pixels touched: 10 wide, 11 high
    assert big.shape == (11, 10, 3)
    gray = WIDE[..., 0]
    np.testing.assert_array_equal(F.rotate(gray, 33, center=[2, 1]),
                                  F.rotate(WIDE, 33, center=[2, 1])[..., 0])
    np.testing.assert_array_equal(F.rotate(IMG.astype(np.float32), 0), IMG)
    # rotating about a pixel's corner by 180 degrees mirrors around that point
    np.testing.assert_array_equal(F.rotate(IMG, 180, center=(2, 2))[:4, :4], IMG[:4, :4][::-1, ::-1])


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear", "bicubic"])
def test_identity_affine_and_integer_shift(interpolation):
    np.testing.assert_array_equal(F.affine(WIDE, 0, [0, 0], 1.0, [0, 0], interpolation), WIDE)
    np.testing.assert_array_equal(F.affine(WIDE, 0.0, (0, 0), 1, 0, interpolation,
                                           center=[1, 3]), WIDE)
    shifted = F.affine(WIDE, 0, [2, 1], 1.0, 0, interpolation, fill=9)
    np.testing.assert_array_equal(shifted[1:, 2:], WIDE[:-1, :-2])
    assert (shifted[0] == 9).all() and (shifted[:, :2] == 9).all()
    if interpolation != "bicubic":
        t = F.affine(chw(WIDE), 0, [0, 0], 1.0, [0, 0], interpolation)
        np.testing.assert_allclose(t.numpy(), chw(WIDE).numpy(), atol=1e-4)


def test_affine_matches_rotate_and_scales_about_the_center():
    # affine's angle turns clockwise, rotate's counter-clockwise
    np.testing.assert_array_equal(F.affine(IMG, -90, [0, 0], 1.0, 0), np.rot90(IMG))
    np.testing.assert_array_equal(F.affine(IMG, 37, [0, 0], 1.0, 0), F.rotate(IMG, -37))
    half = F.affine(np.arange(16.0).reshape(4, 4), 0, [0, 0], 0.5, 0, fill=-1)
    # shrinking by 2 about the centre (2, 2): output centres 1.5, 2.5 come from 1.0, 3.0
    np.testing.assert_array_equal(half[1:3, 1:3], [[5, 7], [13, 15]])
    assert (half[0] == -1).all()
    sheared = F.affine(np.arange(12.0).reshape(3, 4), 0, [0, 0], 1.0, [45, 0], fill=-1)
    # a 45-degree shear along x shifts each row by its distance from the centre row
    np.testing.assert_array_equal(sheared[1], [4, 5, 6, 7])
    np.testing.assert_array_equal(sheared[0, 1:], [0, 1, 2])


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_perspective_known_maps(interpolation):
    np.testing.assert_array_equal(F.perspective(WIDE, CORNERS, CORNERS, interpolation), WIDE)
    moved = [[x + 1, y + 2] for x, y in CORNERS]                 # a pure translation
    out = F.perspective(WIDE, CORNERS, moved, interpolation, fill=[7, 8, 9])
    np.testing.assert_array_equal(out[2:, 1:], WIDE[:-2, :-1])
    np.testing.assert_array_equal(out[0, 0], [7, 8, 9])
    t = F.perspective(chw(WIDE), CORNERS, moved, interpolation, fill=0)
    np.testing.assert_allclose(t.numpy()[:, 2:, 1:], chw(WIDE).numpy()[:, :-2, :-1], atol=1e-4)
    batch = paddle.to_tensor(np.stack([chw(WIDE).numpy()] * 2))
    assert F.perspective(batch, CORNERS, moved, interpolation).shape == [2, 3, 5, 8]


def test_tensor_fill_blends_like_paddle():
    ones = paddle.ones([1, 4, 4])
    # a half-pixel shift: the edge column is half image, half fill (Paddle weights the
    # zero-padded sample by its coverage, then adds the fill for the rest)
    out = F.affine(ones, 0, [0.5, 0], 1.0, 0, "bilinear", fill=3.0).numpy()
    np.testing.assert_allclose(out[0, :, 1:], 1.0, atol=1e-6)
    np.testing.assert_allclose(out[0, :, 0], 0.5 * 0.5 + 0.5 * 3.0, atol=1e-6)
    assert F.rotate(ones, 45, fill=None).numpy()[0, 0, 0] == 0.0


def test_pil_images_stay_pil_and_match_numpy():
    Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed")
    pil = Image.fromarray(WIDE)
    for got, want in [(F.rotate(pil, 33, expand=True, fill=5), F.rotate(WIDE, 33, expand=True,
                                                                       fill=5)),
                      (F.affine(pil, 20, [1, -1], 1.1, [5, 3], fill=5),
                       F.affine(WIDE, 20, [1, -1], 1.1, [5, 3], fill=5)),
                      (F.perspective(pil, CORNERS, [[1, 0], [6, 1], [7, 4], [0, 3]], fill=5),
                       F.perspective(WIDE, CORNERS, [[1, 0], [6, 1], [7, 4], [0, 3]], fill=5))]:
        assert isinstance(got, Image.Image)
        np.testing.assert_array_equal(np.asarray(got), want)


def test_bad_arguments_raise_paddles_errors():
    with pytest.raises(TypeError, match="img should be PIL Image or Tensor Image or ndarray"):
        F.rotate([[1, 2]], 30)
    with pytest.raises(TypeError, match="Argument angle should be int or float"):
        F.affine(IMG, "30", [0, 0], 1.0, 0)
    with pytest.raises(TypeError, match="Argument translate should be a sequence"):
        F.affine(IMG, 30, 1, 1.0, 0)
    with pytest.raises(ValueError, match="translate should be a sequence of length 2"):
        F.affine(IMG, 30, [1, 2, 3], 1.0, 0)
    with pytest.raises(ValueError, match="Argument scale should be positive"):
        F.affine(IMG, 30, [0, 0], 0.0, 0)
    with pytest.raises(TypeError, match="Shear should be either a single value"):
        F.affine(IMG, 30, [0, 0], 1.0, "x")
    with pytest.raises(ValueError, match="Shear should be a sequence containing two values"):
        F.affine(IMG, 30, [0, 0], 1.0, [1, 2, 3])
    with pytest.raises(TypeError, match="Argument center should be a sequence"):
        F.affine(IMG, 30, [0, 0], 1.0, 0, center=3)
    with pytest.raises(ValueError, match="interpolation should be one of"):
        F.rotate(IMG, 30, "lanczos")
    with pytest.raises(ValueError, match=r"should be in \['bilinear', 'nearest'\]"):
        F.rotate(chw(IMG), 30, "bicubic")
    with pytest.raises(ValueError, match="three of the endpoints .* are on one line"):
        F.perspective(IMG, CORNERS, [[0, 0], [1, 1], [2, 2], [3, 3]])
    with pytest.raises(ValueError, match="3-D or 4-D"):
        F.rotate(paddle.ones([4, 4]), 30)
