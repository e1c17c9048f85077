"""Complex tensors: the dtypes, Paddle's promotion, the complex functions and methods against
numpy, eagerly and under to_static, their errors, and saving / loading complex programs."""
import numpy as np
import pytest

import dy2st as paddle

RNG = np.random.default_rng(0)
Z = (RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))).astype("complex64")


def test_dtypes_are_paddle_names_with_kind_flags():
    assert paddle.complex64 == "complex64" and str(paddle.complex128) == "paddle.complex128"
    assert paddle.complex64.is_complex and not paddle.complex64.is_floating
    assert paddle.complex128.is_inexact and not paddle.float32.is_complex
    assert paddle.to_tensor(Z).dtype == paddle.complex64


@pytest.mark.parametrize("data, dtype", [([1 + 2j, 3], "complex64"), (1j, "complex64"),
                                         (np.array([1j]), "complex128"),
                                         (np.array([1j], "complex64"), "complex64")])
def test_to_tensor_of_complex_data(data, dtype):
    t = paddle.to_tensor(data)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), np.asarray(data, dtype))


def test_to_tensor_complex128_default_follows_the_default_float():
    paddle.set_default_dtype("float64")
    try:
        assert paddle.to_tensor([1j]).dtype == "complex128"
    finally:
        paddle.set_default_dtype("float32")


@pytest.mark.parametrize("a, b, expected", [
    ("float32", "complex64", "complex64"), ("float64", "complex64", "complex128"),
    ("int32", "complex64", "complex64"), ("complex64", "complex128", "complex128"),
    ("bool", "complex128", "complex128"), ("float16", "complex64", "complex64")])
def test_promotion_is_paddles(a, b, expected):
    x, y = paddle.ones([2], a), paddle.ones([2], b)
    assert (x + y).dtype == expected and (y * x).dtype == expected


@pytest.mark.parametrize("dtype, scalar, expected", [
    ("float32", 1j, "complex64"), ("float64", 2j, "complex128"), ("int64", 1j, "complex64"),
    ("complex64", 2.5, "complex64"), ("complex128", 3, "complex128")])
def test_python_scalars(dtype, scalar, expected):
    x = paddle.ones([2], dtype)
    out = x * scalar
    assert out.dtype == expected
    np.testing.assert_allclose(out.numpy(), np.ones(2) * scalar)


def test_astype_and_cast():
    z = paddle.to_tensor(Z)
    assert z.astype("complex128").dtype == "complex128"
    np.testing.assert_array_equal(z.astype("float32").numpy(), Z.real)  # Paddle keeps Re
    np.testing.assert_array_equal(paddle.cast(paddle.to_tensor([1.5]), "complex64").numpy(),
                                  [1.5 + 0j])


FUNCTIONS = [
    ("real", paddle.real, np.real), ("imag", paddle.imag, np.imag),
    ("conj", paddle.conj, np.conj), ("angle", paddle.angle, np.angle),
    ("abs", paddle.abs, np.abs), ("exp", paddle.exp, np.exp), ("sqrt", paddle.sqrt, np.sqrt),
    ("sgn", paddle.sgn, lambda z: z / np.abs(z)),
    ("as_real", paddle.as_real, lambda z: np.stack([z.real, z.imag], -1)),
    ("sum", paddle.sum, lambda z: np.sum(z)), ("mean", lambda z: paddle.mean(z, axis=0),
                                               lambda z: np.mean(z, axis=0)),
    ("matmul", lambda z: paddle.matmul(z, z.T), lambda z: z @ z.T),
    ("arith", lambda z: (z * z - z / (z + 2)) * 1j + 1.5, lambda z: (z * z - z / (z + 2)) * 1j
     + 1.5),
]


@pytest.mark.parametrize("name, fn, ref", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_functions_match_numpy_eager_and_static(name, fn, ref):
    expected = ref(Z)
    eager = fn(paddle.to_tensor(Z))
    static = paddle.jit.to_static(fn)(paddle.to_tensor(Z))
    for out in (eager, static):
        assert out.numpy().dtype == np.asarray(expected).dtype or name in ("sum", "mean")
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_complex_polar_as_complex_and_views():
    re, im = RNG.standard_normal(4).astype("float32"), RNG.standard_normal(4).astype("float32")
    z = paddle.complex(paddle.to_tensor(re), paddle.to_tensor(im))
    np.testing.assert_array_equal(z.numpy(), re + 1j * im)
    pair = paddle.to_tensor(np.stack([re, im], -1))
    np.testing.assert_array_equal(paddle.as_complex(pair).numpy(), re + 1j * im)
    np.testing.assert_array_equal(paddle.view_as_complex(pair).numpy(), re + 1j * im)
    np.testing.assert_array_equal(paddle.view_as_real(z).numpy(), pair.numpy())
    mag, ang = np.abs(re), im
    np.testing.assert_allclose(paddle.polar(paddle.to_tensor(mag), paddle.to_tensor(ang)).numpy(),
                               mag * np.exp(1j * ang), rtol=1e-6)


def test_predicates_and_real_inputs():
    z = paddle.to_tensor(np.array([1 + 0j, 2 - 1j, 0j]))
    assert paddle.is_complex(z) and z.is_complex() and not paddle.is_complex(paddle.ones([1]))
    np.testing.assert_array_equal(paddle.isreal(z).numpy(), [True, False, True])
    x = paddle.to_tensor([-2.0, 3.0])
    np.testing.assert_array_equal(paddle.isreal(x).numpy(), [True, True])
    np.testing.assert_array_equal(paddle.real(x).numpy(), [-2.0, 3.0])
    np.testing.assert_array_equal(paddle.imag(x).numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(paddle.conj(x).numpy(), [-2.0, 3.0])
    np.testing.assert_allclose(paddle.angle(x).numpy(), [np.pi, 0.0])
    np.testing.assert_array_equal(paddle.sgn(x).numpy(), [-1.0, 1.0])
    np.testing.assert_array_equal(paddle.sgn(paddle.to_tensor([0j])).numpy(), [0j])


def test_methods():
    z = paddle.to_tensor(Z)
    for name in ("real", "imag", "conj", "angle", "as_real", "sgn", "isreal", "abs"):
        np.testing.assert_array_equal(getattr(z, name)().numpy(),
                                      getattr(paddle, name)(z).numpy())
    assert not hasattr(z, "complex")


@pytest.mark.parametrize("call, match", [
    (lambda: paddle.complex(paddle.ones([2]), paddle.ones([2], "float64")), "one dtype"),
    (lambda: paddle.complex(paddle.ones([2], "int32"), paddle.ones([2], "int32")), "float"),
    (lambda: paddle.as_real(paddle.ones([2])), "complex64 or complex128"),
    (lambda: paddle.as_complex(paddle.ones([2, 3])), "last dim must have size 2"),
    (lambda: paddle.is_complex([1j]), "expects a tensor")])
def test_bad_input_names_the_function(call, match):
    with pytest.raises((TypeError, ValueError), match=match):
        call()


def test_complex_under_control_flow_and_unknown_dims():
    spec = [paddle.static.InputSpec([None, 3], "complex64", "z")]

    @paddle.jit.to_static(input_spec=spec)
    def f(z):
        if paddle.abs(z).sum() > 1.0:
            out = z * paddle.conj(z)
        else:
            out = z + 1j
        return paddle.real(out), out

    for data in (Z, Z * 0.01, Z[:1]):
        re, out = f(paddle.to_tensor(data))
        expected = data * np.conj(data) if np.abs(data).sum() > 1.0 else data + 1j
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
        np.testing.assert_allclose(re.numpy(), expected.real, rtol=1e-6)


class Rotate(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([3], dtype="complex64")
        self.w.set_value(paddle.to_tensor(np.array([1j, 2 - 1j, 0.5], "complex64")))

    def forward(self, z):
        return paddle.abs(z * self.w)


def test_jit_save_and_load_a_complex_parameter(tmp_path):
    layer = Rotate()
    spec = [paddle.static.InputSpec([None, 3], "complex64", "z")]
    paddle.jit.save(layer, str(tmp_path / "m"), input_spec=spec)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    z = paddle.to_tensor(Z)
    np.testing.assert_allclose(loaded(z).numpy(), layer(z).numpy(), rtol=1e-6)
    assert [p.dtype for p in loaded.parameters()] == [paddle.complex64]
    (params,) = tmp_path.glob("m.*.npz")     # plain npy members: numpy reads them unpickled
    with np.load(params, allow_pickle=False) as data:
        assert [data[k].dtype for k in data.files] == [np.complex64]


def test_complex_parameter_trains():
    layer = Rotate()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
    z = paddle.to_tensor(Z)
    before = float(layer(z).sum())
    step = paddle.jit.to_static(lambda z: layer(z).sum())
    for _ in range(3):
        loss = step(z)
        loss.backward()
        opt.step()
        opt.clear_grad()
    assert float(layer(z).sum()) < before


def test_onnx_refuses_complex_naming_the_line(tmp_path):
    pytest.importorskip("onnx", reason="onnx is not installed (pip install 'dy2st[onnx]')")
    from dy2st.onnx import NotExportableError

    def f(x):
        z = paddle.complex(x, x * 2.0)
        return paddle.abs(z)  # the line the error names
    spec = [paddle.static.InputSpec([2], "float32", "x")]
    with pytest.raises(NotExportableError, match=r"op complex .*test_complex.py.*complex\(x, x"
                       r".*do not compute on complex"):
        paddle.onnx.export(f, str(tmp_path / "m"), input_spec=spec)


def test_norm_and_python_complex():
    z = paddle.to_tensor(Z)
    np.testing.assert_allclose(float(paddle.linalg.norm(z)), np.linalg.norm(Z), rtol=1e-6)
    np.testing.assert_allclose(paddle.linalg.norm(z, p=1, axis=1).numpy(),
                               np.linalg.norm(Z, 1, axis=1), rtol=1e-6)
    with pytest.raises(ValueError, match="matrix norm p=2.0 of a complex tensor"):
        paddle.linalg.norm(z, p=2, axis=[0, 1])
    assert complex(paddle.to_tensor(1 + 2j)) == 1 + 2j
    w = paddle.to_tensor(Z, stop_gradient=False)
    (g,) = paddle.grad(paddle.linalg.norm(w), w)
    np.testing.assert_allclose(g.numpy(), Z / np.linalg.norm(Z), rtol=1e-5)


def test_common_ops_keep_complex_values_eager_and_static():
    z = paddle.to_tensor(Z)
    for fn in (lambda t: paddle.concat([t, t * 1j]), lambda t: t[0, 1:] ** 2,
               lambda t: paddle.where(paddle.abs(t) > 1, t, paddle.zeros_like(t)),
               lambda t: paddle.cumsum(t, 1), lambda t: paddle.einsum("ij,kj->ik", t, t),
               lambda t: paddle.log(t) + paddle.sin(t), lambda t: paddle.prod(t, axis=0)):
        eager = fn(z)
        assert eager.dtype == "complex64"
        np.testing.assert_allclose(paddle.jit.to_static(fn)(z).numpy(), eager.numpy(), rtol=1e-6)
