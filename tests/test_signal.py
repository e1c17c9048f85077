"""paddle.signal.stft / istft against a numpy reference (pad, frame, window, FFT), their round
trip, to_static, gradients against finite differences, and bad arguments."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.support import numeric_gradient

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 40))


def reference_stft(x, n_fft, hop, window, center, pad_mode, normalized, onesided):
    if center:
        pad = [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)]
        x = np.pad(x, pad, mode=pad_mode)
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., f * hop:f * hop + n_fft] for f in range(n_frames)], -2) * window
    norm = "ortho" if normalized else "backward"
    spec = np.fft.rfft(frames, axis=-1, norm=norm) if onesided else \
        np.fft.fft(frames, axis=-1, norm=norm)
    return np.swapaxes(spec, -1, -2)


def centred(window, n_fft):
    left = (n_fft - len(window)) // 2
    return np.pad(window, (left, n_fft - len(window) - left))


CASES = [
    dict(n_fft=8), dict(n_fft=8, hop_length=3, pad_mode="constant"),
    dict(n_fft=16, hop_length=4, win_length=10, window=np.hanning(10)),
    dict(n_fft=8, center=False, normalized=True), dict(n_fft=8, hop_length=2, onesided=False),
]


@pytest.mark.parametrize("kw", CASES, ids=[str(sorted(k)) for k in CASES])
@pytest.mark.parametrize("batch", [True, False])
def test_stft_matches_numpy_and_inverts(kw, batch):
    x = X if batch else X[0]
    n_fft = kw["n_fft"]
    hop = kw.get("hop_length", n_fft // 4)
    win = kw.get("window", np.ones(kw.get("win_length", n_fft)))
    args = dict(kw)
    if "window" in args:
        args["window"] = paddle.to_tensor(args["window"])
    expected = reference_stft(x, n_fft, hop, centred(win, n_fft), kw.get("center", True),
                              kw.get("pad_mode", "reflect"), kw.get("normalized", False),
                              kw.get("onesided", True))
    got = paddle.signal.stft(paddle.to_tensor(x), **args)
    np.testing.assert_allclose(got.numpy(), expected, atol=1e-12)
    static = paddle.jit.to_static(lambda t: paddle.signal.stft(t, **args))(paddle.to_tensor(x))
    np.testing.assert_allclose(static.numpy(), expected, atol=1e-12)
    inverse = {k: v for k, v in args.items() if k not in ("pad_mode",)}
    if kw.get("center", True):
        back = paddle.signal.istft(got, length=x.shape[-1], **inverse)
        np.testing.assert_allclose(back.numpy(), x, atol=1e-12)


def test_istft_under_to_static_with_an_unknown_batch():
    spec = paddle.signal.stft(paddle.to_tensor(X), 8)
    f = paddle.jit.to_static(lambda s: paddle.signal.istft(s, 8, length=40),
                             input_spec=[InputSpec([None, 5, 21], "complex128", "s")])
    np.testing.assert_allclose(f(spec).numpy(), X, atol=1e-12)
    np.testing.assert_allclose(f(spec[:1]).numpy(), X[:1], atol=1e-12)


def test_return_complex_round_trip():
    z = X[0] + 1j * X[1]
    spec = paddle.signal.stft(paddle.to_tensor(z), 8, onesided=False)
    back = paddle.signal.istft(spec, 8, onesided=False, return_complex=True, length=40)
    np.testing.assert_allclose(back.numpy(), z, atol=1e-12)


def test_gradients_match_finite_differences():
    x0 = X[0, :20]
    w0 = np.hanning(8) + 0.1

    def loss(x, w):
        s = paddle.signal.stft(x, 8, hop_length=3, window=w)
        y = paddle.signal.istft(s * (1 + 0.5j), 8, hop_length=3, window=w, length=20)
        return (paddle.abs(s) ** 2).sum() + (y * y * y).sum()
    x = paddle.to_tensor(x0, stop_gradient=False)
    w = paddle.to_tensor(w0, stop_gradient=False)
    gx, gw = paddle.grad(loss(x, w), [x, w])
    np.testing.assert_allclose(gx.numpy(), numeric_gradient(lambda a: float(loss(paddle.to_tensor(a),
                                                                   paddle.to_tensor(w0))), x0),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gw.numpy(), numeric_gradient(lambda a: float(loss(paddle.to_tensor(x0),
                                                                   paddle.to_tensor(a))), w0),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call, match", [
    (lambda: paddle.signal.stft(paddle.ones([2, 2, 8]), 4), "1-D or 2-D"),
    (lambda: paddle.signal.stft(paddle.ones([8]), 16), r"n_fft should be in \(0, seq_length"),
    (lambda: paddle.signal.stft(paddle.ones([8]), 4, win_length=6), "win_length"),
    (lambda: paddle.signal.stft(paddle.ones([8]), 4, pad_mode="edge"), "pad_mode"),
    (lambda: paddle.signal.stft(paddle.ones([8], "complex64"), 4, onesided=True), "onesided"),
    (lambda: paddle.signal.istft(paddle.ones([3, 4]), 4), "complex tensor"),
    (lambda: paddle.signal.istft(paddle.ones([4, 2], "complex64"), 4), "frequency dim"),
    (lambda: paddle.signal.istft(paddle.ones([3, 3], "complex64"), 4, window=paddle.zeros([4])),
     "NOLA"),
])
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()
