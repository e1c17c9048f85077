"""paddle.fft: every transform against numpy / scipy.fft for each norm, n / s and axes, eagerly
and under to_static (None dims too); gradients against finite differences on the real and
imaginary parts; frequencies, shifts, dtypes and errors."""
import numpy as np
import pytest
import scipy.fft as sfft

import dy2st as paddle
from dy2st.static import InputSpec
from tests.support import numeric_gradient

F = paddle.fft
RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
C = X + 1j * RNG.standard_normal((3, 4))

# (name, input, kwargs): the reference is scipy.fft's function of the same name
CASES = [
    ("fft", C, {}), ("fft", X, {"n": 6, "axis": 0, "norm": "ortho"}),
    ("ifft", C, {"n": 3, "norm": "forward"}), ("rfft", X, {}), ("rfft", X, {"n": 7}),
    ("irfft", C, {}), ("irfft", C, {"n": 5, "axis": 0, "norm": "ortho"}),
    ("hfft", C, {}), ("hfft", C, {"n": 9, "norm": "forward"}),
    ("ihfft", X, {}), ("ihfft", X, {"n": 3, "axis": 0, "norm": "ortho"}),
    ("fft2", C, {}), ("ifft2", C, {"s": [2, 5], "norm": "ortho"}), ("rfft2", X, {}),
    ("irfft2", C, {"s": [3, 5]}), ("hfft2", C, {}), ("ihfft2", X, {"norm": "forward"}),
    ("fftn", C, {"axes": [0]}), ("ifftn", C, {}), ("rfftn", X, {"s": [4]}),
    ("irfftn", C, {}), ("hfftn", C, {"s": [2, 6]}), ("ihfftn", X, {"axes": [1, 0]}),
]


def _id(case):
    return f"{case[0]}-{'real' if case[1].dtype.kind == 'f' else 'complex'}-" + \
        "-".join(f"{k}={v}" for k, v in case[2].items())


@pytest.mark.parametrize("name, data, kw", CASES, ids=[_id(c) for c in CASES])
def test_transform_matches_scipy(name, data, kw):
    expected = getattr(sfft, name)(data, **kw)
    fn = getattr(F, name)
    eager = fn(paddle.to_tensor(data), **kw)
    static = paddle.jit.to_static(lambda x: fn(x, **kw))(paddle.to_tensor(data))
    for out in (eager, static):
        assert out.numpy().dtype == expected.dtype
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_single_precision_results():
    x = paddle.to_tensor(X.astype("float32"))
    assert F.rfft(x).dtype == "complex64" and F.fft(x).dtype == "complex64"
    assert F.irfft(F.rfft(x)).dtype == "float32"
    assert F.fft(paddle.to_tensor([1, 2, 3])).dtype == "complex64"     # ints as float32
    np.testing.assert_allclose(F.irfft(F.rfft(x), n=4).numpy(), X.astype("float32"), atol=1e-6)


def test_unknown_dims_with_and_without_n():
    spec = [InputSpec([None, 4], "float64", "x")]
    f = paddle.jit.to_static(lambda x: (F.fft(x, axis=0), F.rfft(x, n=6, axis=0),
                                        F.irfft(F.rfft(x, axis=0), n=5, axis=0)), input_spec=spec)
    for rows in (1, 3, 8):
        data = RNG.standard_normal((rows, 4))
        a, b, c = f(paddle.to_tensor(data))
        np.testing.assert_allclose(a.numpy(), np.fft.fft(data, axis=0), atol=1e-12)
        np.testing.assert_allclose(b.numpy(), np.fft.rfft(data, n=6, axis=0), atol=1e-12)
        np.testing.assert_allclose(c.numpy(), np.fft.irfft(np.fft.rfft(data, axis=0), n=5,
                                                           axis=0), atol=1e-12)
    program = f.concrete_program.program
    shapes = [list(program.find_var(n)._shape) for n in program.fetch_names]
    assert shapes == [[-1, 4], [4, 4], [5, 4]]     # n fixes the transformed dim


def _loss(y):
    y = paddle.as_real(y) if y.dtype.is_complex else y
    w = paddle.to_tensor(np.random.default_rng(5).standard_normal(y.shape))
    return (y * w).sum() + (y * y).sum() * 0.1


GRADS = [
    ("rfft", X, {"n": 7, "norm": "ortho"}), ("ihfft", X, {"norm": "forward"}),
    ("rfft2", X, {"s": [2, 5]}), ("ihfftn", X, {}), ("fft", X, {"axis": 0}),
    ("fft", C, {}), ("ifft", C, {"n": 3, "norm": "ortho"}), ("fftn", C, {}),
    ("irfft", C, {}), ("irfft", C, {"n": 5}), ("irfft", C, {"n": 9, "axis": 0}),
    ("hfft", C, {}), ("hfft", C, {"n": 5, "norm": "ortho"}), ("irfftn", C, {}),
    ("irfft2", C, {"s": [3, 5]}), ("hfftn", C, {"norm": "forward"}), ("hfft2", C, {}),
]


@pytest.mark.parametrize("name, data, kw", GRADS, ids=[_id(c) for c in GRADS])
def test_gradient_matches_finite_differences(name, data, kw):
    fn = getattr(F, name)

    def value(a):
        return float(_loss(fn(paddle.to_tensor(a), **kw)))
    if data.dtype.kind == "f":
        numeric = numeric_gradient(value, data)
    else:   # Paddle's convention: dL/dRe z + 1j dL/dIm z
        numeric = numeric_gradient(lambda r: value(r + 1j * data.imag), data.real) + \
            1j * numeric_gradient(lambda i: value(data.real + 1j * i), data.imag)
    x = paddle.to_tensor(data, stop_gradient=False)
    (eager,) = paddle.grad(_loss(fn(x, **kw)), x)
    xs = paddle.to_tensor(data, stop_gradient=False)
    paddle.jit.to_static(lambda t: _loss(fn(t, **kw)))(xs).backward()
    for got in (eager, xs.grad):
        assert got.numpy().dtype == data.dtype
        np.testing.assert_allclose(got.numpy(), numeric, rtol=1e-6, atol=1e-7)


def _grad_norm(x):
    y = F.irfft(F.rfft(x * x) * (1 + 2j), n=4)
    (g,) = paddle.grad((y * y).sum(), x, create_graph=True)
    return (g * g).sum()


def test_second_order_through_rfft_and_irfft():
    x = paddle.to_tensor(X[0], stop_gradient=False)
    (got,) = paddle.grad(_grad_norm(x), x)
    numeric = numeric_gradient(lambda a: float(_grad_norm(paddle.to_tensor(a, stop_gradient=False))),
                       X[0])
    np.testing.assert_allclose(got.numpy(), numeric, rtol=1e-5, atol=1e-6)


def test_frequencies():
    np.testing.assert_allclose(F.fftfreq(5, 0.5).numpy(), np.fft.fftfreq(5, 0.5), rtol=1e-6)
    np.testing.assert_allclose(F.rfftfreq(6).numpy(), np.fft.rfftfreq(6), rtol=1e-6)
    assert F.fftfreq(4).dtype == "float32" and F.rfftfreq(4, dtype="float64").dtype == "float64"
    static = paddle.jit.to_static(lambda x: x * F.fftfreq(4, d=0.1))(paddle.ones([4]))
    np.testing.assert_allclose(static.numpy(), np.fft.fftfreq(4, 0.1), rtol=1e-6)


@pytest.mark.parametrize("axes", [None, 1, [0], (0, 1)])
def test_shifts(axes):
    data = np.arange(15).reshape(3, 5)
    x = paddle.to_tensor(data)
    np.testing.assert_array_equal(F.fftshift(x, axes).numpy(), np.fft.fftshift(data, axes))
    np.testing.assert_array_equal(F.ifftshift(x, axes).numpy(), np.fft.ifftshift(data, axes))
    np.testing.assert_array_equal(F.ifftshift(F.fftshift(x, axes), axes).numpy(), data)
    static = paddle.jit.to_static(lambda t: F.fftshift(t, axes))(x)
    np.testing.assert_array_equal(static.numpy(), np.fft.fftshift(data, axes))


def test_out_argument():
    out = paddle.zeros([4], "complex128")
    got = F.fft(paddle.to_tensor(X[0]), out=out)
    assert got is out
    np.testing.assert_allclose(out.numpy(), np.fft.fft(X[0]))


@pytest.mark.parametrize("call, error, match", [
    (lambda: F.fft(paddle.to_tensor(X), norm="bad"), ValueError, "Unexpected norm: bad"),
    (lambda: F.fft(paddle.to_tensor(X), n=0), ValueError, r"Invalid FFT argument n\(0\)"),
    (lambda: F.rfft(paddle.to_tensor(C)), TypeError, "rfft: expects a real tensor"),
    (lambda: F.fft(paddle.to_tensor(X), axis=2), ValueError, "axis 2 is out of range"),
    (lambda: F.fftn(paddle.to_tensor(X), s=[2], axes=[0, 1]), ValueError, "same length"),
    (lambda: F.fft2(paddle.to_tensor(X), axes=[0]), ValueError, "fft2: expects 2 axes"),
    (lambda: F.fftn(paddle.to_tensor(X), axes=[0, 0]), ValueError, "repeat a dim"),
    (lambda: F.irfft(paddle.to_tensor([1j])), ValueError, "give n"),
    (lambda: F.fft(paddle.to_tensor(1.0)), ValueError, "rank >= 1"),
])
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_xla_backend_agrees():
    pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")

    def f(x, z):
        return (F.irfft2(F.rfft2(x) * z, s=[3, 4]), F.hfft(z, n=5), F.ifftn(F.fft(z)),
                F.ihfft(x, axis=0))
    x, z = paddle.to_tensor(X), paddle.to_tensor(C[:, :3])
    static = paddle.jit.to_static(f, backend="xla")
    for e, s in zip(f(x, z), static(x, z)):
        np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-10, atol=1e-12)
    assert static._last.compiled.fallback is None


def test_xla_gradients_agree():
    pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")

    def loss(x, z):
        return _loss(F.irfft(F.rfft(x) * z)) + _loss(F.hfft2(z))
    grads = []
    for backend in ("numpy", "xla"):
        x = paddle.to_tensor(X, stop_gradient=False)
        z = paddle.to_tensor(C[:, :3], stop_gradient=False)
        paddle.jit.to_static(loss, backend=backend)(x, z).backward()
        grads.append((x.grad.numpy(), z.grad.numpy()))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_onnx_refuses_fft(tmp_path):
    pytest.importorskip("onnx", reason="onnx is not installed (pip install 'dy2st[onnx]')")
    from dy2st.onnx import NotExportableError
    spec = [InputSpec([4], "float32", "x")]
    with pytest.raises(NotExportableError, match="op fft_r2c .*test_fft.py"):
        paddle.onnx.export(lambda x: paddle.abs(F.rfft(x)), str(tmp_path / "m"), input_spec=spec)
