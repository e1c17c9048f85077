"""dy2st against the installed PaddlePaddle on the same inputs: complex results, Paddle's complex
gradient convention, and every paddle.fft transform with its gradient. Importing paddle takes
seconds, so the module is slow; tests/runtime/test_complex.py and tests/test_fft.py check the
same behaviour against numpy and finite differences quickly."""
import numpy as np
import pytest

import dy2st

pytestmark = pytest.mark.slow
real_paddle = pytest.importorskip("paddle", reason="PaddlePaddle is not installed: the numpy "
                                                   "references in tests/test_fft.py stand in")

RNG = np.random.default_rng(3)
X = RNG.standard_normal((3, 4))
C = X + 1j * RNG.standard_normal((3, 4))
W = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))


def both(fn, *arrays, grad=True):
    """fn's value (and the gradient of sum(|fn|^2 + Re fn) at each input) in dy2st and paddle."""
    results = []
    for lib in (dy2st, real_paddle):
        ts = [lib.to_tensor(a, stop_gradient=not grad) for a in arrays]
        out = fn(lib, *ts)
        grads = []
        if grad:
            loss = (lib.abs(out) ** 2).sum() + lib.real(out).sum() if out.dtype in (
                lib.complex64, lib.complex128) else (out * out + out).sum()
            grads = [g.numpy() for g in lib.grad(loss, ts)]
        results.append((out.numpy(), grads))
    return results


def check(fn, *arrays, grad=True):
    (ours, our_grads), (theirs, their_grads) = both(fn, *arrays, grad=grad)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-8)  # Paddle's complex exp is ~1e-7 off
    for a, b in zip(our_grads, their_grads):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)  # Paddle's complex exp is ~1e-7 off


COMPLEX = {
    "mul_conj": lambda p, z, w: z * p.conj(w) + z / (w + 2.0),
    "abs_angle": lambda p, z, w: p.abs(z * w) + p.angle(z),
    "exp_sum_mean": lambda p, z, w: p.exp(z).sum(axis=0) + p.mean(w * w, axis=0),
    "matmul": lambda p, z, w: p.matmul(z, w.T),
    "real_imag": lambda p, z, w: p.real(z * w) - p.imag(z) * 2.0,
    "as_real": lambda p, z, w: p.as_real(z * w),
    "complex_of_parts": lambda p, z, w: p.complex(p.real(z), p.imag(w)) * z,
}


@pytest.mark.parametrize("name", sorted(COMPLEX))
def test_complex_values_and_gradients(name):
    check(COMPLEX[name], C, W)


def test_promotion_and_sgn_polar():
    check(lambda p, x, z: x + z, X, C.astype("complex64"), grad=False)
    check(lambda p, x, z: p.sgn(z) * x, X, C)
    check(lambda p, r, a: p.polar(r, a), np.abs(X), X)


# The functions dy2st refused for complex inputs before and Paddle 3.3.1 computes: the values
# agree; the gradients agree where Paddle's are right (tests/autograd/vjp_cases.py checks dy2st's
# against finite differences; Paddle's complex silu / softplus / log_sigmoid / softsign /
# soft_margin_loss / acosh gradients are not, see docs/complex.md).
NEWLY_CAPABLE = {
    "inverse_hyperbolic": (lambda p, z, w: p.acosh(z) + p.asinh(w) + p.atanh(z * 0.5), False),
    "asinh_sinc_stanh": (lambda p, z, w: p.asinh(z) + p.sinc(w * 0.3) + p.stanh(z, 0.5, 2.0),
                         True),
    "expm1_deg_rad": (lambda p, z, w: p.expm1(z) + p.deg2rad(w) + p.rad2deg(z) * 0.01, True),
    "linear_vecdot": (lambda p, z, w: p.nn.functional.linear(z, w.T) + p.linalg.vecdot(z, w),
                      True),
    "activations": (lambda p, z, w: p.nn.functional.silu(z) + p.nn.functional.log_sigmoid(w)
                    + p.nn.functional.softplus(z, 2.0, 0.5) + p.nn.functional.softsign(w), False),
    "soft_margin_loss": (lambda p, z, w: p.nn.functional.soft_margin_loss(z, w, "none"), False),
    "round_sign": (lambda p, z, w: p.round(z * 3) + p.sign(w), True),
    "det": (lambda p, z, w: p.linalg.det(p.reshape(z[:, :3], [1, 3, 3])) + p.linalg.det(
        p.matmul(w, w.T)), True),
}


@pytest.mark.parametrize("name", sorted(NEWLY_CAPABLE))
def test_newly_capable_functions_match_paddle(name):
    fn, grad = NEWLY_CAPABLE[name]
    check(fn, C, W, grad=grad)


def test_ordering_and_logic_of_complex_values_match_paddle():
    ties = C.copy()
    ties[0] = W[0].real + 1j * C[0].imag       # equal real parts: the imaginary parts decide
    for op in ("less_than", "less_equal", "greater_than", "greater_equal", "logical_and",
               "logical_xor"):
        check(lambda p, z, w: getattr(p, op)(z, w), ties, W, grad=False)
    check(lambda p, z: p.logical_not(z * (p.abs(z) > 1.0)), C, grad=False)


FFT = [
    ("fft", C, {}), ("ifft", C, {"n": 3, "norm": "ortho"}), ("rfft", X, {"n": 7}),
    ("irfft", C, {}), ("irfft", C, {"n": 5}), ("hfft", C, {"n": 5, "norm": "forward"}),
    ("ihfft", X, {}), ("fft2", C, {}), ("ifft2", C, {"s": [2, 5]}), ("rfft2", X, {}),
    ("irfft2", C, {"s": [3, 5]}), ("hfft2", C, {}), ("ihfft2", X, {"norm": "ortho"}),
    ("fftn", C, {"axes": [0]}), ("ifftn", C, {}), ("rfftn", X, {}), ("irfftn", C, {}),
    ("hfftn", C, {"s": [2, 6]}), ("ihfftn", X, {}),
]


@pytest.mark.parametrize("name, data, kw", FFT, ids=[f"{c[0]}-{i}" for i, c in enumerate(FFT)])
def test_fft_values_and_gradients(name, data, kw):
    check(lambda p, x: getattr(p.fft, name)(x, **kw), data)


def test_fft_helpers():
    for lib_fn, args in (("fftfreq", (5, 0.3)), ("rfftfreq", (6,))):
        np.testing.assert_allclose(getattr(dy2st.fft, lib_fn)(*args).numpy(),
                                   getattr(real_paddle.fft, lib_fn)(*args).numpy(), rtol=1e-6)
    data = np.arange(12).reshape(3, 4)
    for fn in ("fftshift", "ifftshift"):
        for axes in (None,):        # Paddle 3.3.1's roll fails on an axes list (its bug)
            np.testing.assert_array_equal(
                getattr(dy2st.fft, fn)(dy2st.to_tensor(data), axes).numpy(),
                getattr(real_paddle.fft, fn)(real_paddle.to_tensor(data), axes).numpy())


SIGNAL = [dict(n_fft=8), dict(n_fft=8, hop_length=3, pad_mode="constant", normalized=True),
          dict(n_fft=16, hop_length=4, win_length=10), dict(n_fft=8, center=False)]


@pytest.mark.parametrize("kw", SIGNAL, ids=[str(sorted(k)) for k in SIGNAL])
def test_stft_and_istft(kw):
    signal = RNG.standard_normal((2, 40))
    window = np.hanning(kw.get("win_length", kw["n_fft"])) + 0.1

    def stft(p, x, w):
        return p.signal.stft(x, window=w, **kw)
    check(stft, signal, window)
    inverse = {k: v for k, v in kw.items() if k != "pad_mode"}
    spec = stft(dy2st, dy2st.to_tensor(signal), dy2st.to_tensor(window)).numpy()
    check(lambda p, s, w: p.signal.istft(s, window=w, length=40 if kw.get("center", True)
                                         else None, **inverse), spec, window)


def test_eig_values_and_gradients():
    a = RNG.standard_normal((3, 3))
    weights = RNG.standard_normal((3, 3))

    def loss_of(p, x):      # the eigenvectors' free phase does not enter
        w, v = p.linalg.eig(x)
        return (p.abs(v) * p.to_tensor(weights)).sum() + p.real(w * w * w).sum()
    check(lambda p, x: p.abs(p.linalg.eigvals(x)).sum() + loss_of(p, x) * 0.0, a, grad=False)
    grads = []
    for lib in (dy2st, real_paddle):
        x = lib.to_tensor(a, stop_gradient=False)
        grads.append(lib.grad(loss_of(lib, x), x)[0].numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-8)
