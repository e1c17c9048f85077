"""Result dtypes of binary ops and reductions as Paddle 3.3.1 gives them (recorded from it as
literals; tools/dtype_parity.py surveys every pair): the same in eager, to_static and jit.load,
and a clear TypeError where Paddle refuses a pair of dtypes."""
import numpy as np
import pytest

import dy2st as paddle

T = paddle.to_tensor


def t(dtype, values=(1, 2)):
    return T(np.array(values)).astype(dtype)


# (left, right, Paddle 3.3.1's dtype of left + right); None: Paddle raises TypeError
PAIRS = [
    ("float32", "float64", "float64"), ("float16", "float32", "float32"),
    ("complex64", "float64", "complex128"), ("int64", "complex64", "complex64"),
    ("bool", "complex64", "complex64"),
    ("int32", "int64", None), ("bool", "float32", None), ("float32", "int64", None),
    ("uint8", "int8", None), ("bool", "int32", None), ("int16", "float64", None),
]
# 0-d tensors: next to a tensor of the same kind they act as a Python scalar (the tensor's dtype
# wins); of another kind, or both 0-d, the two promote
ZERO_D = [
    ("int32", [1, 2], "int64", 1, "int32"), ("float32", [1, 2], "float64", 1.0, "float32"),
    ("int32", [1, 2], "float32", 1.0, "float32"), ("int64", [1, 2], "float64", 1.0, "float64"),
    ("bool", [True], "int64", 1, "int64"), ("float64", [1.0], "complex64", 1j, "complex128"),
    ("int32", 1, "int64", 1, "int64"), ("float32", 1.0, "float64", 1.0, "float64"),
]


@pytest.mark.parametrize("a, b, want", PAIRS)
def test_tensor_pairs(a, b, want):
    x, y = t(a), t(b)
    if want is None:
        for fn in (lambda: x + y, lambda: y * x, lambda: x < y, lambda: paddle.maximum(x, y),
                   lambda: x == y, lambda: paddle.logical_and(x, y), lambda: x / y):
            with pytest.raises(TypeError, match=f"{a} and {b}|{b} and {a}"):
                fn()
    else:
        assert (x + y).dtype == want and (y - x).dtype == want and (x / y).dtype in (want,)
        assert (x < y).dtype == "bool"


@pytest.mark.parametrize("a, av, b, bv, want", ZERO_D)
def test_zero_d_tensors(a, av, b, bv, want):
    x, y = T(av).astype(a), T(bv).astype(b)
    assert (x + y).dtype == want and (y + x).dtype == want
    assert (x * y).dtype == want


def test_scalars_take_the_tensors_dtype():
    assert (t("int32") + 2).dtype == "int32" and (2.5 * t("int32")).dtype == "float32"
    assert (t("bool") + 1).dtype == "int64" and (t("bool") + True).dtype == "bool"
    assert (t("bool") * 2.5).dtype == "float32" and (1j * t("float64")).dtype == "complex128"


def test_bool_division_is_bool():
    x, y = T([True, False]), T([True, True])
    out = x / y
    assert out.dtype == "bool" and out.numpy().tolist() == [True, False]
    assert (x / True).dtype == "bool"
    with pytest.raises(ZeroDivisionError):
        y / x


def test_reductions():
    s = paddle.sum(t("int8", [100, 100]))
    assert s.dtype == "int8" and int(s) == -56                    # wraps as in Paddle
    assert paddle.sum(t("uint8", [200, 100])).numpy() == 44
    assert paddle.sum(t("int32")).dtype == "int64" and paddle.sum(t("bool")).dtype == "int64"
    assert paddle.sum(t("int8"), dtype="int64").dtype == "int64"
    m = paddle.mean(t("int64", [-1, -2]))
    assert m.dtype == "int64" and int(m) == -1                    # truncated toward zero
    assert int(T([-1, -2, -4]).mean()) == -2 and int(T([2 ** 62, 2 ** 62]).mean()) == 2 ** 62
    mb = paddle.mean(T([[False, True], [False, False]]), axis=0)
    assert mb.dtype == "bool" and mb.numpy().tolist() == [False, True]
    c = paddle.cumsum(t("int32", [100, 100]))
    assert c.dtype == "int64" and c.numpy().tolist() == [100, 200]
    assert paddle.cumsum(t("uint8", [200, 100])).numpy().tolist() == [200, 300]
    assert paddle.cumsum(t("int32"), dtype="int32").dtype == "int32"
    assert paddle.cumprod(t("int32", [2, 3]), dim=0).dtype == "int32"
    with pytest.raises(TypeError, match="cumsum.*bool"):
        paddle.cumsum(T([True, False]))
    assert paddle.cumsum(T([True, True]), dtype="int64").numpy().tolist() == [1, 2]


def mixed(i32, i64, f32, b):
    return (i32 + i64[0], f32 * paddle.to_tensor(2.0, "float64"), paddle.sum(i32.astype("int8")),
            i64.mean(), paddle.cumsum(i32), b.astype("bool") / True, f32 + f32.astype("float64"))


def inputs():
    return (t("int32", [3, -5]), t("int64", [7, 8]), t("float32", [0.5, 1.5]),
            t("int64", [1, 1]))


def check(fn):
    for got, want in zip(fn(*inputs()), mixed(*inputs())):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("full_graph", [True, False])
def test_to_static_infers_eagers_dtypes(full_graph):
    # eager: int32 + 0-d int64 is int32, float32 * 0-d float64 is float32, int8 sums stay int8
    want = [w.dtype for w in mixed(*inputs())]
    assert want == ["int32", "float32", "int8", "int64", "int64", "bool", "float64"]
    check(paddle.jit.to_static(mixed, full_graph=full_graph))


def test_xla():
    pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")
    check(paddle.jit.to_static(mixed, backend="xla"))


def test_saved_model(tmp_path):
    spec = [paddle.static.InputSpec([2], d) for d in ("int32", "int64", "float32", "int64")]
    paddle.jit.save(paddle.jit.to_static(mixed, input_spec=spec), str(tmp_path / "m"))
    check(paddle.jit.load(str(tmp_path / "m")))


def test_onnx(tmp_path):
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    from tests.support import onnx_outputs
    spec = [paddle.static.InputSpec([2], d) for d in ("int32", "int64", "float32", "int64")]
    paddle.onnx.export(mixed, str(tmp_path / "m"), input_spec=spec)
    got = onnx_outputs(str(tmp_path / "m.onnx"), *[x.numpy() for x in inputs()])
    for g, w in zip(got, mixed(*inputs())):
        assert g.dtype == w.numpy().dtype
        np.testing.assert_array_equal(g, w.numpy())


def refused(x, y):
    return x + y


def test_refusal_names_the_users_line_in_to_static():
    static = paddle.jit.to_static(refused, full_graph=True)
    with pytest.raises(TypeError) as info:
        static(t("int32"), t("int64"))
    text = str(info.value)
    assert "add" in text and "int32 and int64" in text and "return x + y" in text
