"""CNN-family kernels against hand-written numpy doing the same work, measured in one run (not a
test): dense and depthwise convolution (forward and backward), max pooling, bilinear resizing,
and a small MobileNet-style model under to_static against eager.

Run with `PYTHONPATH=. python benchmarks/cnn.py` from the repository root; prints times and ratios
(dy2st / baseline)."""
from __future__ import annotations

import timeit
from typing import Callable

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import dy2st as paddle
from dy2st.nn import functional as F
from dy2st.nn.functional.conv import conv_any

REPEAT = 5
RNG = np.random.default_rng(0)


def best_time(fn: Callable[[], object], number: int = 3) -> float:
    return min(timeit.repeat(fn, number=number, repeat=REPEAT)) / number


def numpy_conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """im2col + one matmul, stride 1, padding 1 (the textbook dense convolution)."""
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = sliding_window_view(xp, w.shape[2:], axis=(2, 3))          # [N, C, H, W, kh, kw]
    return np.einsum("nchwij,ocij->nohw", cols, w, optimize=True)


def numpy_depthwise(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Depthwise 3x3, padding 1: nine shifted multiply-adds."""
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    h, wd = x.shape[2:]
    out = np.zeros_like(x)
    for i in range(3):
        for j in range(3):
            out += xp[:, :, i:i + h, j:j + wd] * w[:, 0, i, j][None, :, None, None]
    return out


def numpy_max_pool(x: np.ndarray) -> np.ndarray:
    """3x3 windows, stride 2, no padding."""
    return sliding_window_view(x, (3, 3), axis=(2, 3))[:, :, ::2, ::2].max(axis=(-1, -2))


def numpy_bilinear_x2(x: np.ndarray) -> np.ndarray:
    """Half-pixel bilinear upsampling by 2 (align_corners=False, align_mode=0)."""
    def taps(n):
        src = np.maximum((np.arange(2 * n) + 0.5) / 2 - 0.5, 0)
        i0 = src.astype(int)
        return i0, np.minimum(i0 + 1, n - 1), src - i0
    (y0, y1, ly), (x0, x1, lx) = taps(x.shape[2]), taps(x.shape[3])
    top = x[:, :, y0] * (1 - ly)[:, None] + x[:, :, y1] * ly[:, None]
    return top[..., x0] * (1 - lx) + top[..., x1] * lx


def row(name: str, ours: float, base: float) -> None:
    print(f"{name:<40} {ours * 1e3:9.2f} ms {base * 1e3:9.2f} ms {ours / base:7.2f}x")


def main() -> None:
    print(f"{'benchmark':<40} {'dy2st':>12} {'baseline':>12} {'ratio':>8}")
    x = RNG.standard_normal((8, 32, 32, 32)).astype("float32")
    w = RNG.standard_normal((64, 32, 3, 3)).astype("float32")
    xt, wt = paddle.to_tensor(x), paddle.to_tensor(w)
    row("conv2d 3x3 32->64 on 8x32x32", best_time(lambda: F.conv2d(xt, wt, padding=1)),
        best_time(lambda: numpy_conv(x, w)))

    xd = RNG.standard_normal((8, 128, 32, 32)).astype("float32")
    wd = RNG.standard_normal((128, 1, 3, 3)).astype("float32")
    xdt, wdt = paddle.to_tensor(xd), paddle.to_tensor(wd)
    row("depthwise conv 3x3, 128 ch, 8x32x32", best_time(lambda: F.conv2d(xdt, wdt, padding=1, groups=128)),
        best_time(lambda: numpy_depthwise(xd, wd)))

    def depthwise_fwd_bwd():
        v = paddle.to_tensor(xd)
        v.stop_gradient = False
        conv_any("bench", 2, v, wdt, None, 1, 1, 1, 128, "NCHW").sum().backward()
    row("depthwise conv forward + backward", best_time(depthwise_fwd_bwd),
        3 * best_time(lambda: numpy_depthwise(xd, wd)))

    row("max_pool2d 3x3 s2 on 8x128x32x32", best_time(lambda: F.max_pool2d(xdt, 3, 2)),
        best_time(lambda: numpy_max_pool(xd)))
    row("bilinear x2 on 8x128x32x32",
        best_time(lambda: F.interpolate(xdt, scale_factor=2, mode="bilinear")),
        best_time(lambda: numpy_bilinear_x2(xd)))

    class Small(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.stem = paddle.nn.Conv2D(3, 16, 3, stride=2, padding=1)
            self.dw = paddle.nn.Conv2D(16, 16, 3, padding=1, groups=16)
            self.pw = paddle.nn.Conv2D(16, 32, 1)
            self.bn = paddle.nn.BatchNorm(32, act="relu")
            self.pool = paddle.nn.AdaptiveAvgPool2D(1)
            self.fc = paddle.nn.Linear(32, 10)

        def forward(self, x):
            y = self.bn(self.pw(F.relu6(self.dw(F.relu(self.stem(x))))))
            return self.fc(paddle.flatten(self.pool(y), 1))

    net, twin = Small(), Small()
    twin.set_state_dict(net.state_dict())
    net.eval()
    twin.eval()
    img = paddle.to_tensor(RNG.standard_normal((8, 3, 64, 64)).astype("float32"))
    static = paddle.jit.to_static(twin)       # converts twin in place; net stays eager
    assert np.allclose(static(img).numpy(), net(img).numpy(), atol=1e-5)
    row("small MobileNet-style model: to_static / eager", best_time(lambda: static(img)),
        best_time(lambda: net(img)))


if __name__ == "__main__":
    main()
