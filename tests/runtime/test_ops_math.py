"""Elementwise math, comparison, logic and selection ops: eager vs numpy, static vs eager."""
import math

import numpy as np
import pytest

import dy2st as paddle
from tests.support import run_static


def unknown(a):
    return [None] * a.ndim


def check(fn, ref, *arrays, rtol=1e-6):
    """eager == numpy reference; static (known and unknown dims) == eager, same dtype."""
    eager = fn(*[paddle.to_tensor(a) for a in arrays]).numpy()
    expected = np.asarray(ref(*arrays))
    assert eager.shape == expected.shape
    assert eager.dtype == expected.dtype, (eager.dtype, expected.dtype)
    np.testing.assert_allclose(eager, expected, rtol=rtol, equal_nan=True)
    for shapes in (None, [unknown(a) for a in arrays]):
        static = run_static(fn, *arrays, shapes=shapes)
        assert static.dtype == eager.dtype
        np.testing.assert_allclose(static, eager, rtol=rtol, equal_nan=True)
    return eager


RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 4)).astype("float32")
POS = RNG.uniform(0.1, 3.0, size=(3, 4)).astype("float32")
UNIT = RNG.uniform(-0.9, 0.9, size=(3, 4)).astype("float32")
IX = np.array([[-3, 0, 2, 7], [1, -1, 5, 4], [9, 8, -6, 3]], "int64")

UNARY = [
    ("exp", X, np.exp), ("log", POS, np.log), ("log2", POS, np.log2), ("log10", POS, np.log10),
    ("log1p", POS, np.log1p), ("sqrt", POS, np.sqrt), ("rsqrt", POS, lambda a: 1 / np.sqrt(a)),
    ("square", X, np.square), ("sin", X, np.sin), ("cos", X, np.cos), ("tan", UNIT, np.tan),
    ("tanh", X, np.tanh), ("sinh", X, np.sinh), ("cosh", X, np.cosh), ("asin", UNIT, np.arcsin),
    ("acos", UNIT, np.arccos), ("atan", X, np.arctan), ("floor", X * 3, np.floor),
    ("ceil", X * 3, np.ceil), ("sign", X, np.sign), ("reciprocal", POS, lambda a: 1 / a),
    ("abs", X, np.abs), ("neg", X, np.negative), ("sigmoid", X, lambda a: 1 / (1 + np.exp(-a))),
    ("erf", X, np.vectorize(math.erf, otypes=["float32"])),
    ("isnan", np.array([1.0, np.nan, np.inf], "float32"), np.isnan),
    ("isinf", np.array([1.0, np.nan, -np.inf], "float32"), np.isinf),
    ("isfinite", np.array([1.0, np.nan, np.inf], "float32"), np.isfinite),
    ("abs", IX, np.abs), ("neg", IX, np.negative), ("square", IX, np.square), ("sign", IX, np.sign),
    ("logical_not", np.array([True, False]), np.logical_not),
    ("bitwise_not", IX, np.invert),
]


@pytest.mark.parametrize("name,a,ref", UNARY, ids=[f"{u[0]}-{u[1].dtype}" for u in UNARY])
def test_unary(name, a, ref):
    check(getattr(paddle, name), lambda v: np.asarray(ref(v)).astype(ref(v).dtype), a, rtol=2e-6)


def test_round_halves_to_even_as_paddle():
    # Paddle 3.3.1 on CPU: round([-2.5, -0.5, 0.5, 1.5, 2.5]) is [-2, -0, 0, 2, 2]
    a = np.array([-2.5, -0.5, 0.5, 1.5, 2.5, 0.4, -1.6], "float32")
    check(paddle.round, lambda v: np.array([-2, -0.0, 0, 2, 2, 0, -2], "float32"), a)


def test_erf_float64_is_exact():
    a = np.linspace(-4, 4, 41)
    out = paddle.erf(paddle.to_tensor(a)).numpy()
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, [math.erf(v) for v in a], rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", ["exp", "sqrt", "log", "sin", "erf", "sigmoid", "floor"])
def test_int_input_gives_float32(name):
    out = getattr(paddle, name)(paddle.to_tensor([1, 4]))
    assert out.dtype == paddle.float32
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        assert getattr(paddle, name)(paddle.static.data("x", [2], "int64")).dtype == "float32"


A = RNG.normal(size=(2, 3)).astype("float32")
B = RNG.normal(size=(3,)).astype("float32") + 2.0
IA = np.array([[7, -7, 5], [0, 3, -2]], "int64")
IB = np.array([2, -3, 4], "int64")

BINARY = [
    ("add", A, B, np.add), ("subtract", A, B, np.subtract), ("multiply", A, B, np.multiply),
    ("divide", A, B, np.divide), ("maximum", A, B, np.maximum), ("minimum", A, B, np.minimum),
    ("pow", np.abs(A), B, np.power), ("floor_divide", A, B, np.floor_divide),
    ("remainder", A, B, np.mod), ("mod", IA, IB, np.mod), ("floor_divide", IA, IB, np.floor_divide),
    ("add", IA, IB, np.add), ("multiply", IA, IB, np.multiply),
    ("divide", IA, IB, lambda a, b: (a / b).astype("float32")),
    ("bitwise_and", IA, IB, np.bitwise_and), ("bitwise_or", IA, IB, np.bitwise_or),
    ("bitwise_xor", IA, IB, np.bitwise_xor),
    ("equal", IA, IB, np.equal), ("not_equal", IA, IB, np.not_equal),
    ("less_than", A, B, np.less), ("less_equal", IA, IB, np.less_equal),
    ("greater_than", A, B, np.greater), ("greater_equal", IA, IB, np.greater_equal),
    ("logical_and", IA > 0, IB > 0, np.logical_and), ("logical_or", IA > 0, IB > 0, np.logical_or),
    ("logical_xor", IA > 0, IB > 0, np.logical_xor),
]


@pytest.mark.parametrize("name,a,b,ref", BINARY, ids=[f"{t[0]}-{t[1].dtype}" for t in BINARY])
def test_binary_broadcast(name, a, b, ref):
    check(getattr(paddle, name), ref, a, b, rtol=1e-5)


# Paddle 3.3.1 promotes floating dtypes with each other and complex with real ones, and refuses
# other pairs of different dtypes (None) - in eager mode and in static programs alike
@pytest.mark.parametrize("xd,yd,out", [("int32", "int64", None), ("int64", "float32", None),
                                       ("float32", "float64", "float64"), ("bool", "int32", None),
                                       ("float16", "int64", None), ("float16", "float32", "float32"),
                                       ("int32", "complex64", "complex64")])
def test_promotion(xd, yd, out):
    x = paddle.to_tensor(np.ones(2, xd))
    y = paddle.to_tensor(np.ones(2, yd))
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        sx = paddle.static.data("x", [2], xd)
        sy = paddle.static.data("y", [2], yd)
        for a, b in ((x, y), (sx, sy)):
            if out is None:
                with pytest.raises(TypeError, match=f"add: .*{xd} and {yd}"):
                    paddle.add(a, b)
            else:
                assert paddle.add(a, b).dtype == out


@pytest.mark.parametrize("dtype,scalar,out", [("int64", 2, "int64"), ("int32", 2.5, "float32"),
                                              ("float64", 2, "float64"), ("bool", 1, "int64")])
def test_scalar_operand_dtype(dtype, scalar, out):
    x = paddle.to_tensor(np.ones(2, dtype))
    assert (x * scalar).dtype == out
    assert (scalar + x).dtype == out


def test_broadcast_error_names_op_and_shapes():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [3, 4], "float32")
        y = paddle.static.data("y", [5], "float32")
        with pytest.raises(ValueError, match=r"add.*\[3, 4\].*\[5\]"):
            paddle.add(x, y)
        # unknown dims cannot be proven wrong: the build succeeds
        z = paddle.static.data("z", [-1], "float32")
        assert paddle.add(x, z)._shape == (3, 4)


def test_clip_and_scale():
    a = np.array([-3.0, 0.5, 7.0], "float32")
    check(lambda x: paddle.clip(x, -1.0, 2.0), lambda v: np.clip(v, -1, 2), a)
    check(lambda x: paddle.clip(x, min=0.0), lambda v: np.clip(v, 0, None), a)
    check(lambda x: paddle.clip(x, max=1.0), lambda v: np.clip(v, None, 1), a)
    check(lambda x: paddle.scale(x, 2.0, 1.0), lambda v: v * 2 + 1, a)
    check(lambda x: paddle.scale(x, 2.0, 1.0, bias_after_scale=False), lambda v: (v + 1) * 2, a)
    check(lambda x: paddle.clip(x, 0, 5), lambda v: np.clip(v, 0, 5), np.array([-2, 3, 9]))


def test_increment():
    x = paddle.to_tensor(np.array([1.5], "float32"))
    out = paddle.increment(x, 2.0)
    assert out is x and x.numpy().tolist() == [3.5]
    np.testing.assert_array_equal(run_static(lambda v: paddle.increment(v), np.array([4], "int64")),
                                  [5])
    i = paddle.to_tensor(np.array(0, "int64"))
    paddle.increment(i)
    assert i.dtype == "int64" and int(i) == 1


def _increment_in_a_branch(x):
    i = paddle.zeros([1], dtype="int64")
    if x.sum() > 0:
        paddle.increment(i, 2.0)           # in place, its result unused
    return i


def test_increment_in_place_inside_a_tensor_branch():
    """The static op changes the counter in place as the eager one does, so a branch (or a
    loop body) that increments a tensor from outside carries the new value out."""
    sf = paddle.jit.to_static(_increment_in_a_branch, full_graph=True)
    for v, want in ((1.0, 2), (-1.0, 0)):
        x = paddle.to_tensor(np.full([3], v, "float32"))
        assert sf(x).numpy().tolist() == _increment_in_a_branch(x).numpy().tolist() == [want]


# ----------------------------------------------------------------------------- closeness
def test_isclose_allclose_equal_all():
    a = np.array([1.0, 2.0, np.nan], "float32")
    b = np.array([1.0 + 1e-7, 2.1, np.nan], "float32")
    check(paddle.isclose, lambda x, y: np.isclose(x, y), a, b)
    check(lambda x, y: paddle.isclose(x, y, equal_nan=True),
          lambda x, y: np.isclose(x, y, equal_nan=True), a, b)
    check(lambda x, y: paddle.isclose(x, y, rtol=0.1), lambda x, y: np.isclose(x, y, rtol=0.1), a, b)
    out = check(paddle.allclose, lambda x, y: np.array(np.allclose(x, y)), a[:2], b[:2])
    assert out.shape == () and not out
    check(lambda x, y: paddle.allclose(x, y, atol=0.2), lambda x, y: np.array(True), a[:2], b[:2])
    check(paddle.equal_all, lambda x, y: np.array(True), a[:2], a[:2].copy())
    check(paddle.equal_all, lambda x, y: np.array(False), a[:2], b[:2])
    assert not bool(paddle.equal_all(paddle.to_tensor([1, 2]), paddle.to_tensor([1, 2, 3])))


# ----------------------------------------------------------------------------- selection
def test_where_three_args():
    c = np.array([[True, False, True]])
    a = np.arange(6, dtype="float32").reshape(2, 3)
    b = np.array([-1.0, -2.0, -3.0], "float32")
    check(paddle.where, np.where, c, a, b)
    out = paddle.where(paddle.to_tensor(c), paddle.to_tensor(a), 0.0)
    np.testing.assert_array_equal(out.numpy(), np.where(c, a, 0.0))
    assert out.dtype == "float32"


def test_where_promotes_and_errors():
    c = paddle.to_tensor([True, False])
    out = paddle.where(c, paddle.to_tensor([1, 2]), paddle.to_tensor([0.5, 0.5]))
    assert out.dtype == "float32" and out.numpy().tolist() == [1.0, 0.5]
    with pytest.raises(ValueError, match="where"):
        paddle.where(c, paddle.to_tensor([1, 2]))
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        with pytest.raises(ValueError, match=r"where.*\[2\].*\[3\]"):
            paddle.where(paddle.static.data("c", [2], "bool"), paddle.static.data("x", [3], "float32"),
                         paddle.static.data("y", [3], "float32"))


def test_nonzero_and_where_one_arg():
    a = np.array([[0, 3, 0], [5, 0, 6]], "int64")
    out = check(paddle.nonzero, np.argwhere, a)
    assert out.dtype == np.int64
    rows, cols = paddle.where(paddle.to_tensor(a))
    np.testing.assert_array_equal(rows.numpy(), [0, 1, 1])
    np.testing.assert_array_equal(cols.numpy(), [1, 0, 2])
    srows, scols = run_static(lambda x: paddle.nonzero(x, as_tuple=True), a, shapes=[[None, None]])
    np.testing.assert_array_equal(srows, rows.numpy())
    np.testing.assert_array_equal(scols, cols.numpy())


def test_masked_select():
    a = np.arange(6, dtype="float32").reshape(2, 3)
    m = np.array([True, False, True])
    check(paddle.masked_select, lambda x, k: x[np.broadcast_to(k, x.shape)], a, m)
    with pytest.raises(TypeError, match="bool"):
        paddle.masked_select(paddle.to_tensor(a), paddle.to_tensor([1, 0, 1]))


@pytest.mark.parametrize("name", ["equal", "less_than", "logical_and", "isclose"])
def test_compare_dtype_is_bool(name):
    x = paddle.to_tensor([1.0, 2.0])
    assert getattr(paddle, name)(x, x).dtype == paddle.bool


def test_any_all_methods():
    x = paddle.to_tensor([[True, False], [True, True]])
    assert x.any().numpy().tolist() is True and x.all().numpy().tolist() is False
    np.testing.assert_array_equal(x.all(axis=1).numpy(), [False, True])


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_ops_write_into_out(name):
    """As in Paddle 3.3.1: `out` takes the result (it was ignored) and is what is returned."""
    a = paddle.to_tensor([True, False, True, False])
    b = paddle.to_tensor([True, True, False, False])
    out = paddle.to_tensor([False, True, False, True])
    kept = [out]
    got = getattr(paddle, name)(a, b, out=out)
    want = getattr(np, name)(a.numpy(), b.numpy())
    assert got is out
    np.testing.assert_array_equal(kept[0].numpy(), want)
