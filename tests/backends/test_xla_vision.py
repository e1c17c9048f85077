"""The vision ops on the XLA backend: RoI pooling and deformable sampling run inside the XLA
computation (host callbacks of their numpy kernels), gradients included; nms, whose output
length depends on the data, sends its program to numpy."""
import numpy as np
import pytest

pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")

import dy2st as paddle  # noqa: E402
from dy2st.backends.xla import FALLBACKS  # noqa: E402
from dy2st.vision import ops as vops  # noqa: E402

RNG = np.random.default_rng(0)
BOXES = np.array([[1, 1, 6, 7], [0.3, 2.2, 7.5, 6.9], [2, 3, 8, 8]], "float32")
NUM = np.array([2, 1], "int32")


def test_roi_ops_and_deform_conv_run_on_xla_with_gradients():
    paddle.seed(0)
    deform = vops.DeformConv2D(2, 3, 3, padding=1)

    def f(x, offset, boxes, num):
        y = deform(x, offset)
        return vops.roi_align(y, boxes, num, 2) + vops.roi_pool(y, boxes, num, 2)
    x = paddle.to_tensor(RNG.standard_normal((2, 2, 8, 9)).astype("float32"),
                         stop_gradient=False)
    offset = paddle.to_tensor(RNG.standard_normal((2, 18, 8, 9)).astype("float32"))
    args = (x, offset, paddle.to_tensor(BOXES), paddle.to_tensor(NUM))
    before = len(FALLBACKS)
    static = paddle.jit.to_static(f, backend="xla")
    out = static(*args)
    assert len(FALLBACKS) == before
    want = f(*args)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    (g_static,) = paddle.grad([out.sum()], [x])
    (g_eager,) = paddle.grad([want.sum()], [x])
    np.testing.assert_allclose(g_static.numpy(), g_eager.numpy(), rtol=1e-4, atol=1e-5)


def test_nms_falls_back_to_numpy():
    def f(boxes, scores):
        return vops.nms(boxes, 0.3, scores)
    lo = RNG.uniform(0, 10, (12, 2))
    boxes = paddle.to_tensor(np.concatenate([lo, lo + 3], 1).astype("float32"))
    scores = paddle.to_tensor(RNG.uniform(0, 1, 12).astype("float32"))
    static = paddle.jit.to_static(f, backend="xla")
    np.testing.assert_array_equal(static(boxes, scores).numpy(), f(boxes, scores).numpy())
    assert FALLBACKS[-1].op_type == "nms"
