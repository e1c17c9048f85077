"""rotate, affine and perspective against PaddlePaddle 3.3.1 itself (skipped where Paddle or
Pillow is not installed): numpy images against Paddle's PIL path (the same pixels for
nearest, within one level for bilinear / bicubic, which Pillow truncates and dy2st rounds),
PIL images through both, and tensors against Paddle's tensor path."""
import numpy as np
import pytest

import dy2st
from dy2st.vision.transforms import functional as F

paddle = pytest.importorskip("paddle", reason="PaddlePaddle is not installed (reference only)")
Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed")
PF = paddle.vision.transforms.functional

RNG = np.random.default_rng(0)
IMG = RNG.integers(0, 256, (9, 12, 3)).astype(np.uint8)
PIL = Image.fromarray(IMG)
CHW = RNG.random((3, 9, 12)).astype(np.float32)
START = [[0, 0], [11, 0], [11, 8], [0, 8]]
END = [[1, 2], [10, 0], [11, 7], [2, 8]]
CASES = [
    ("rotate", (33,), {}), ("rotate", (-47.5,), {"expand": True}),
    ("rotate", (20,), {"center": (3, 4)}), ("rotate", (120,), {"expand": True,
                                                              "center": [2.5, 7]}),
    ("affine", (30, [1, -2], 1.2, [10, -5]), {}), ("affine", (0, [2, 1], 0.7, 0), {}),
    ("affine", (-75, [-3, 2], 0.9, 20), {"center": (4, 3)}),
    ("affine", (12.5, (1.5, 0.5), 1.1, [4]), {}),
    ("perspective", (START, END), {}),
    # the output's origin maps to infinity: a singular system, solved by least squares in both
    ("perspective", ([[0, 0], [4, 0], [4, 9], [0, 9]], [[1, 3], [3, 3], [4, 6], [0, 6]]), {}),
]


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear", "bicubic"])
def test_numpy_and_pil_images_against_paddles_pil_path(interpolation):
    for name, args, kw in CASES:
        fill = {} if name != "rotate" else {"fill": 7}   # Paddle's PIL affine ignores fill
        theirs = np.asarray(getattr(PF, name)(PIL, *args, interpolation=interpolation, **kw,
                                              **fill)).astype(int)
        ours = getattr(F, name)(IMG, *args, interpolation=interpolation, **kw, **fill)
        assert ours.shape == theirs.shape, (name, args)
        diff = np.abs(ours.astype(int) - theirs)
        assert diff.max() <= (0 if interpolation == "nearest" else 1), (name, args)
        pil = np.asarray(getattr(F, name)(PIL, *args, interpolation=interpolation, **kw, **fill))
        np.testing.assert_array_equal(pil, theirs)


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_tensors_against_paddles_tensor_path(interpolation):
    mine, theirs = dy2st.to_tensor(CHW), paddle.to_tensor(CHW)
    for name, args, kw in CASES[:3] + CASES[4:6] + CASES[-2:]:
        for fill in (0, 0.5, None):
            a = getattr(F, name)(mine, *args, interpolation=interpolation, fill=fill, **kw)
            b = getattr(PF, name)(theirs, *args, interpolation=interpolation, fill=fill, **kw)
            np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-5,
                                       err_msg=f"{name} {args} {kw} fill={fill}")
