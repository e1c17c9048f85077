"""RandomResizedCrop, RandomRotation, RandomAffine and RandomPerspective: parameters within
their ranges, repeatable under paddle.seed, Paddle's checks; and BaseTransform's keys."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.vision import transforms as T
from dy2st.vision.transforms import functional as F

IMG = np.random.default_rng(0).integers(0, 256, (10, 14, 3)).astype(np.uint8)


def chw(a):
    return paddle.to_tensor(np.ascontiguousarray(a.transpose(2, 0, 1)).astype("float32"))


@pytest.mark.parametrize("make", [
    lambda: T.RandomResizedCrop((4, 5)),
    lambda: T.RandomRotation(40, interpolation="bilinear", expand=True),
    lambda: T.RandomAffine(30, translate=(0.2, 0.1), scale=(0.8, 1.2), shear=(-5, 5, -3, 3)),
    lambda: T.RandomPerspective(prob=1.0, distortion_scale=0.6),
])
def test_repeatable_under_paddle_seed(make):
    runs = []
    for _ in range(2):
        paddle.seed(11)
        t = make()
        runs.append([t(IMG), t(IMG), t(chw(IMG)).numpy()])
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(runs[0][0], runs[0][1])       # a fresh draw per call


def test_random_resized_crop_is_a_resized_crop():
    t = T.RandomResizedCrop(6, scale=(0.3, 0.6), ratio=(0.5, 2.0), interpolation="nearest")
    for _ in range(5):
        top, left, h, w = t._dynamic_get_param(IMG)
        assert 0.3 * 140 - 14 <= h * w <= 0.6 * 140 + 14 and 0 <= top <= 10 - h
        assert 0 <= left <= 14 - w and 0.5 * 0.7 <= w / h <= 2.0 * 1.4
    paddle.seed(2)
    top, left, h, w = t._dynamic_get_param(IMG)
    paddle.seed(2)
    np.testing.assert_array_equal(
        t(IMG), F.resize(IMG[top:top + h, left:left + w], (6, 6), "nearest"))
    # no box fits (ratios far from the image's): the central box of the nearest ratio
    box = T.RandomResizedCrop(3, scale=(2.0, 3.0), ratio=(3.0, 4.0))._dynamic_get_param(IMG)
    assert box == (2, 0, 5, 14)                   # (10 - 5) // 2, ratio 14 / 5 near 3
    assert T.RandomResizedCrop((3, 2))(chw(IMG)).shape == [3, 3, 2]
    with pytest.raises(ValueError, match=r"scale should be of kind \(min, max\)"):
        T.RandomResizedCrop(3, scale=(0.9, 0.1))


def test_random_rotation_and_affine_ranges():
    t = T.RandomRotation((10, 20))
    angles = [t._get_param(t.degrees) for _ in range(20)]
    assert all(10 <= a <= 20 for a in angles) and len(set(angles)) > 1
    assert T.RandomRotation(15).degrees == (-15, 15)
    np.testing.assert_array_equal(T.RandomRotation((90, 90))(IMG[:10, :10]),
                                  np.rot90(IMG[:10, :10]))
    a = T.RandomAffine(10, translate=(0.5, 0.2), scale=(0.5, 0.7), shear=8)
    for _ in range(10):
        angle, (tx, ty), scale, (sx, sy) = a._get_param([14, 10], a.degrees, a.translate,
                                                       a.scale, a.shear)
        assert -10 <= angle <= 10 and abs(tx) <= 7 and abs(ty) <= 2
        assert isinstance(tx, int) and 0.5 <= scale <= 0.7 and -8 <= sx <= 8 and sy == 0.0
    assert T.RandomAffine(0)(IMG).shape == IMG.shape
    np.testing.assert_array_equal(T.RandomAffine((0, 0))(IMG), IMG)


def test_random_perspective_points_and_prob():
    t = T.RandomPerspective(prob=0.0)
    assert t(IMG) is IMG
    p = T.RandomPerspective(prob=1.0, distortion_scale=0.5)
    for _ in range(10):
        start, end = p.get_params(14, 10, 0.5)
        assert start == [[0, 0], [13, 0], [13, 9], [0, 9]]
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = end
        assert 0 <= x0 <= 3 and 0 <= y0 <= 2 and 10 <= x1 <= 13 and 0 <= y1 <= 2
        assert 10 <= x2 <= 13 and 7 <= y2 <= 9 and 0 <= x3 <= 3 and 7 <= y3 <= 9
    assert T.RandomPerspective(1.0, 0.0)(IMG).shape == IMG.shape
    tiny = T.RandomPerspective(1.0, 1.0)
    paddle.seed(0)
    for _ in range(30):          # corners drawn onto one line leave a tiny image unchanged
        assert tiny(IMG[:2, :3]).shape == (2, 3, 3)


def test_paddle_argument_checks():
    with pytest.raises(ValueError, match="If degrees is a single number, it must be positive"):
        T.RandomRotation(-1)
    with pytest.raises(ValueError, match="If degrees is a sequence, it must be of len 2"):
        T.RandomRotation([1, 2, 3])
    with pytest.raises(ValueError, match="translation values should be between 0 and 1"):
        T.RandomAffine(5, translate=(0.5, 1.5))
    with pytest.raises(ValueError, match="scale values should be positive"):
        T.RandomAffine(5, scale=(0, 1))
    with pytest.raises(ValueError, match="shear should be sequence of length 2 or 4"):
        T.RandomAffine(5, shear=(1, 2, 3))
    with pytest.raises(TypeError, match="translate should be a sequence of length 2"):
        T.RandomAffine(5, translate=0.5)
    with pytest.raises(TypeError, match="Fill should be either a sequence or a number"):
        T.RandomAffine(5, fill=object())
    with pytest.raises(ValueError, match="probability must be between 0 and 1"):
        T.RandomPerspective(prob=2)
    with pytest.raises(ValueError, match="distortion_scale must be between 0 and 1"):
        T.RandomPerspective(distortion_scale=-0.1)
    with pytest.raises(ValueError, match="interpolation should be one of"):
        T.RandomAffine(5, interpolation="area")


def test_base_transform_keys():
    class Shift(T.BaseTransform):
        def _get_params(self, inputs):
            return 1

        def _apply_image(self, image):
            return image + self.params

        def _apply_coords(self, coords):
            return coords * 10

    img, coords, extra = np.zeros(2), np.ones(2), "label"
    out = Shift(keys=("image", "coords"))((img, coords, extra))
    np.testing.assert_array_equal(out[0], [1, 1])
    np.testing.assert_array_equal(out[1], [10, 10])
    assert out[2] == "label"
    np.testing.assert_array_equal(Shift()(img), [1, 1])
    with pytest.raises(NotImplementedError, match="points is unsupported data structure"):
        Shift(keys=("image", "points"))
    with pytest.raises(ValueError, match="keys should be a sequence"):
        Shift(keys=3)
    rotated = T.RandomRotation((90, 90), keys=("image", "image"))((IMG[:10, :10], IMG[:10, :10]))
    np.testing.assert_array_equal(rotated[1], np.rot90(IMG[:10, :10]))
