"""CNN-family functions in a static program whose batch AND spatial dims are unknown: shapes are
inferred with -1 and the run matches eager."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.nn import functional as F
from tests.support import run_static

RNG = np.random.default_rng(2)
X = RNG.standard_normal((2, 4, 6, 5)).astype("float32")
W = paddle.to_tensor(RNG.standard_normal((4, 4, 3, 3)).astype("float32"))

CASES = {
    "conv2d": lambda x: F.conv2d(x, W, padding=1),
    "conv2d_transpose": lambda x: F.conv2d_transpose(x, W, stride=2),
    "max_pool2d": lambda x: F.max_pool2d(x, 2, ceil_mode=True),
    "avg_pool2d": lambda x: F.avg_pool2d(x, 3, 1, 1),
    "adaptive_avg_pool2d": lambda x: F.adaptive_avg_pool2d(x, 2),
    "adaptive_max_pool2d": lambda x: F.adaptive_max_pool2d(x, [3, 2]),
    "interpolate": lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
    "group_norm": lambda x: F.group_norm(x, 2),
    "instance_norm": lambda x: F.instance_norm(x),
    "local_response_norm": lambda x: F.local_response_norm(x, 3),
    "pixel_shuffle": lambda x: F.pixel_shuffle(x, 2),
    "unfold": lambda x: F.unfold(x, 2),
    "maxout": lambda x: F.maxout(x, 2),
    "glu": lambda x: F.glu(x, axis=1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_unknown_batch_and_spatial_dims(name):
    fn = CASES[name]
    eager = fn(paddle.to_tensor(X)).numpy()
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        out = fn(paddle.static.data("x", [None, 4, None, None]))
    assert out._shape[0] == -1 and len(out._shape) == eager.ndim
    static = run_static(fn, X, shapes=[[None, 4, None, None]])
    assert static.shape == eager.shape
    np.testing.assert_allclose(static, eager, rtol=1e-5, atol=1e-6)
