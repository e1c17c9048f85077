"""paddle.round(x, decimals): Paddle 3.3.1's results (recorded from it as literals), the same in
eager, to_static, jit.load, XLA and ONNX; integer inputs, argument checks, in-place and gradient."""
import numpy as np
import pytest

import dy2st as paddle

X = np.array([0.5, 1.5, 2.5, -0.5, 1.25, 1.35, -1.25, 123.456, -123.456], "float32")
# paddle.round(paddle.to_tensor(X), decimals=d) on Paddle 3.3.1 (CPU)
PADDLE_F32 = {
    0: [0.0, 2.0, 2.0, -0.0, 1.0, 1.0, -1.0, 123.0, -123.0],
    1: [0.5, 1.5, 2.5, -0.5, 1.2000000476837158, 1.399999976158142, -1.2000000476837158, 123.5,
        -123.5],
    2: [0.5, 1.5, 2.5, -0.5, 1.25, 1.350000023841858, -1.25, 123.45999908447266,
        -123.45999908447266],
    -1: [0.0, 0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 120.0, -120.0],
    -2: [0.0, 0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 100.0, -100.0],
}
X64 = np.array([0.125, 1.35, 2.675, -1.005], "float64")
PADDLE_F64 = {0: [0.0, 1.0, 3.0, -1.0], 1: [0.1, 1.4, 2.7, -1.0], 2: [0.12, 1.35, 2.68, -1.0],
              -1: [0.0, 0.0, 0.0, -0.0]}


def same(got, want, dtype):
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    want = np.asarray(want, dtype)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    if got.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))      # -0.0 kept


@pytest.mark.parametrize("d", sorted(PADDLE_F32))
def test_float32_matches_paddle(d):
    same(paddle.round(paddle.to_tensor(X), decimals=d), PADDLE_F32[d], "float32")
    same(paddle.to_tensor(X).round(d), PADDLE_F32[d], "float32")


@pytest.mark.parametrize("d", sorted(PADDLE_F64))
def test_float64_matches_paddle(d):
    same(paddle.round(paddle.to_tensor(X64), d), PADDLE_F64[d], "float64")


def test_decimals_past_the_dtype_range_give_nan_as_paddle():
    # Paddle: 10**40 is inf in float32, so x * inf / inf is nan; 10**30 still fits
    x = paddle.to_tensor([1.25, 2.35], "float32")
    assert np.isnan(paddle.round(x, 40).numpy()).all()
    assert np.isnan(paddle.round(x, -400).numpy()).all()
    np.testing.assert_array_equal(paddle.round(x, 30).numpy(), x.numpy())


def test_integers_come_back_unchanged_in_their_dtype():
    for dtype in ("int32", "int64"):
        for d in (0, 2, -1):
            same(paddle.round(paddle.to_tensor([15, 25, -35], dtype), d), [15, 25, -35], dtype)


def test_complex_rounds_both_parts():
    z = paddle.to_tensor([1.25 + 2.35j, 15 + 25j], "complex64")
    same(paddle.round(z, -1), [0j, 20 + 20j], "complex64")
    same(paddle.round(z, 1), np.array([1.2 + 2.4j, 15 + 25j], "complex64"), "complex64")


def test_decimals_must_be_an_int_as_paddle():
    x = paddle.to_tensor(X)
    for bad, kind in ((1.0, "float"), (True, "bool"), (None, "NoneType"), ("1", "str")):
        with pytest.raises(TypeError, match=f"'decimals'.*must be int, but got {kind}"):
            paddle.round(x, bad)
    with pytest.raises(IndexError, match="int32 range"):
        paddle.round(x, 2 ** 40)
    # numpy integers and integer tensors are taken, as Paddle takes them
    same(paddle.round(x, np.int64(1)), PADDLE_F32[1], "float32")
    same(paddle.round(x, paddle.to_tensor(1)), PADDLE_F32[1], "float32")


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16"])
def test_dtypes_paddle_has_no_kernel_for_are_refused(dtype):
    with pytest.raises(TypeError, match=f"no kernel for {dtype}"):
        paddle.round(paddle.to_tensor([1, 0], dtype))


def test_in_place_and_out():
    x = paddle.to_tensor(X)
    alias = x
    x.round_(1)
    same(alias, PADDLE_F32[1], "float32")
    out = paddle.zeros([9])
    paddle.round(paddle.to_tensor(X), -1, out=out)
    same(out, PADDLE_F32[-1], "float32")


def test_gradient_is_zero():
    x = paddle.to_tensor(X, stop_gradient=False)
    (paddle.round(x, 1) * paddle.arange(9).astype("float32")).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(9, "float32"))


def rounds(x, n):
    return paddle.round(x, 1) + paddle.round(x, -1) * 1000.0, paddle.round(n, -1), x.round(2)


def check_against_eager(fn):
    x, n = paddle.to_tensor(X), paddle.to_tensor([15, 25, -35], "int32")
    for got, want in zip(fn(x, n), rounds(x, n)):
        same(got, want.numpy(), want.numpy().dtype)


@pytest.mark.parametrize("full_graph", [True, False])
def test_to_static(full_graph):
    check_against_eager(paddle.jit.to_static(rounds, full_graph=full_graph))


def test_saved_model(tmp_path):
    spec = [paddle.static.InputSpec([9], "float32"), paddle.static.InputSpec([3], "int32")]
    paddle.jit.save(paddle.jit.to_static(rounds, input_spec=spec), str(tmp_path / "m"))
    check_against_eager(paddle.jit.load(str(tmp_path / "m")))


def test_xla():
    pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")
    check_against_eager(paddle.jit.to_static(rounds, backend="xla"))


def test_onnx(tmp_path):
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    from tests.support import onnx_outputs
    spec = [paddle.static.InputSpec([9], "float32"), paddle.static.InputSpec([3], "int32")]
    paddle.onnx.export(rounds, str(tmp_path / "m"), input_spec=spec)
    x, n = X, np.array([15, 25, -35], "int32")
    got = onnx_outputs(str(tmp_path / "m.onnx"), x, n)
    for g, w in zip(got, rounds(paddle.to_tensor(x), paddle.to_tensor(n))):
        same(g, w.numpy(), w.numpy().dtype)


def test_decimals_in_a_static_program_is_a_python_int():
    @paddle.jit.to_static(full_graph=True)
    def f(x, d):
        return paddle.round(x, d)
    with pytest.raises(TypeError, match="must be int"):
        f(paddle.to_tensor(X), paddle.to_tensor(1))
