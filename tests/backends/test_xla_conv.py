"""Convolutions and max pooling on XLA (native lowerings, gradients from the convolution's own
vjp and the pooling mask) agree with the numpy backend, forward and backward, in every layout."""
import numpy as np
import pytest

pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")

import dy2st as paddle  # noqa: E402
import dy2st.nn.functional as F  # noqa: E402

CONFIGS = [
    dict(stride=1, padding=1, dilation=1, groups=1, pool=(2, 2, 0, False)),
    dict(stride=2, padding=0, dilation=1, groups=2, pool=(3, 2, 1, False)),
    dict(stride=1, padding=2, dilation=2, groups=1, pool=(3, 2, 1, True)),
]


def net(x, w, b, cfg, fmt):
    y = F.conv2d(x, w, b, stride=cfg["stride"], padding=cfg["padding"],
                 dilation=cfg["dilation"], groups=cfg["groups"], data_format=fmt)
    k, s, p, ceil = cfg["pool"]
    y = F.max_pool2d(F.relu(y), k, s, p, ceil_mode=ceil, data_format=fmt)
    return (y * y).mean()


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=["plain", "strided-groups", "dilated-ceil"])
def test_conv_and_pool_forward_and_gradients_match_numpy(cfg, fmt, monkeypatch):
    monkeypatch.setenv("DY2ST_XLA_STRICT", "1")      # no fallback to numpy
    rng = np.random.default_rng(0)
    shape = (2, 4, 9, 11) if fmt == "NCHW" else (2, 9, 11, 4)
    x0 = rng.standard_normal(shape).astype("float32")
    w0 = rng.standard_normal((6, 4 // cfg["groups"], 3, 3)).astype("float32")
    b0 = rng.standard_normal(6).astype("float32")
    got = {}
    for backend in ("numpy", "xla"):
        x = paddle.to_tensor(x0, stop_gradient=False)
        w = paddle.to_tensor(w0, stop_gradient=False)
        b = paddle.to_tensor(b0, stop_gradient=False)
        static = paddle.jit.to_static(lambda a, c, d: net(a, c, d, cfg, fmt), backend=backend)
        loss = static(x, w, b)
        loss.backward()
        got[backend] = [float(loss), x.grad.numpy(), w.grad.numpy(), b.grad.numpy()]
    np.testing.assert_allclose(got["xla"][0], got["numpy"][0], rtol=1e-5)
    for a, e in zip(got["xla"][1:], got["numpy"][1:]):
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-5)
