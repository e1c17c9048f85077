"""Reductions, scans and order-based ops: eager vs numpy, static (incl. unknown dims) vs eager."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import run_static


def build(fn, shape, dtype="float32"):
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        return fn(paddle.static.data("x", shape, dtype))


def check(fn, ref, a, rtol=1e-5):
    eager = fn(paddle.to_tensor(a))
    eager = [t.numpy() for t in eager] if isinstance(eager, (list, tuple)) else eager.numpy()
    expected = ref(a)
    for e, r in zip(eager if isinstance(eager, list) else [eager],
                    expected if isinstance(expected, tuple) else [expected]):
        r = np.asarray(r)
        assert e.shape == r.shape and e.dtype == r.dtype, (e.shape, r.shape, e.dtype, r.dtype)
        np.testing.assert_allclose(e, r, rtol=rtol)
    for shapes in (None, [[None] * a.ndim]):
        static = run_static(fn, a, shapes=shapes)
        for s, e in zip(static if isinstance(eager, list) else [static],
                        eager if isinstance(eager, list) else [eager]):
            assert s.dtype == e.dtype and s.shape == e.shape
            np.testing.assert_allclose(s, e, rtol=rtol)
    return eager


RNG = np.random.default_rng(1)
X = RNG.normal(size=(3, 4, 5)).astype("float32")
I = RNG.integers(-5, 5, size=(3, 4)).astype("int32")

REDUCE = [
    ("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min), ("prod", np.prod),
    ("amax", np.max), ("amin", np.min),
    ("std", lambda a, axis=None, keepdims=False: np.std(a, axis=axis, keepdims=keepdims, ddof=1)),
    ("var", lambda a, axis=None, keepdims=False: np.var(a, axis=axis, keepdims=keepdims, ddof=1)),
    ("logsumexp", lambda a, axis=None, keepdims=False: np.log(np.sum(np.exp(a), axis=axis,
                                                                     keepdims=keepdims))),
]
AXES = [None, 0, -1, [0, 2], (1,)]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name,ref", REDUCE, ids=[r[0] for r in REDUCE])
def test_reduce(name, ref, axis, keepdim):
    np_axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    out = check(lambda x: getattr(paddle, name)(x, axis=axis, keepdim=keepdim),
                lambda a: np.asarray(ref(a, axis=np_axis, keepdims=keepdim)).astype("float32"), X)
    if axis is None and not keepdim:
        assert out.shape == ()     # a full reduction is 0-d, as in Paddle


def test_reduce_static_shape_keeps_unknown_dims():
    out = build(lambda x: paddle.sum(x, axis=1), [-1, 4, 5])
    assert out._shape == (-1, 5)
    out = build(lambda x: paddle.std(x, axis=[0, 2], keepdim=True), [-1, 4, -1])
    assert out._shape == (1, 4, 1)


# Paddle 3.3.1: an int32 mean is int32 (truncated toward zero), as its prod and max are
@pytest.mark.parametrize("name,dtype", [("sum", "int64"), ("prod", "int32"), ("max", "int32"),
                                        ("mean", "int32"), ("std", "float32"),
                                        ("logsumexp", "float32")])
def test_reduce_int_dtypes(name, dtype):
    out = getattr(paddle, name)(paddle.to_tensor(I))
    assert out.dtype == dtype
    assert build(getattr(paddle, name), [3, 4], "int32").dtype == dtype


def test_sum_bool_and_dtype_arg():
    assert paddle.sum(paddle.to_tensor([True, True, False])).numpy() == 2
    assert paddle.sum(paddle.to_tensor([True])).dtype == "int64"
    out = paddle.sum(paddle.to_tensor(I), dtype="float64")
    assert out.dtype == "float64" and float(out) == float(I.sum())


def test_std_var_biased():
    check(lambda x: paddle.std(x, axis=1, unbiased=False), lambda a: np.std(a, axis=1), X)
    check(lambda x: paddle.var(x, unbiased=False), lambda a: np.asarray(np.var(a), "float32"), X)


def test_logsumexp_is_stable():
    a = np.array([[1000.0, 1000.0], [-np.inf, -np.inf]], "float32")
    out = paddle.logsumexp(paddle.to_tensor(a), axis=1).numpy()
    assert out[0] == pytest.approx(1000 + np.log(2))
    assert out[1] == -np.inf


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_argmax_argmin(axis):
    a = RNG.normal(size=(3, 4)).astype("float32")
    check(lambda x: paddle.argmax(x, axis=axis), lambda v: np.asarray(np.argmax(v, axis=axis)), a)
    check(lambda x: paddle.argmin(x, axis=axis, keepdim=True),
          lambda v: np.argmin(v, axis=axis, keepdims=True) if axis is not None
          else np.argmin(v).reshape(1, 1), a)


# ----------------------------------------------------------------------------- norm
NORMS = [
    (None, None, lambda a: np.linalg.norm(a.reshape(-1))),
    ("fro", None, lambda a: np.linalg.norm(a.reshape(-1))),
    (1, None, lambda a: np.abs(a).sum()),
    (float("inf"), None, lambda a: np.abs(a).max()),
    (2, 1, lambda a: np.linalg.norm(a, axis=1)),
    (1, -1, lambda a: np.abs(a).sum(axis=-1)),
    (3, 0, lambda a: (np.abs(a) ** 3).sum(axis=0) ** (1 / 3)),
    (0, 1, lambda a: (a != 0).sum(axis=1)),
    (float("-inf"), 1, lambda a: np.abs(a).min(axis=1)),
    ("fro", [0, 1], lambda a: np.linalg.norm(a, "fro", axis=(0, 1))),
    ("nuc", [1, 2], lambda a: np.linalg.norm(a, "nuc", axis=(1, 2))),
    (2, [1, 2], lambda a: np.linalg.norm(a, 2, axis=(1, 2))),
    (float("inf"), [1, 2], lambda a: np.abs(a).sum(axis=2).max(axis=1)),
]


@pytest.mark.parametrize("p,axis,ref", NORMS, ids=[f"{n[0]}-{n[1]}" for n in NORMS])
def test_norm(p, axis, ref):
    out = check(lambda x: paddle.norm(x, p=p, axis=axis), lambda a: np.asarray(ref(a), "float32"), X,
                rtol=1e-4)
    np.testing.assert_allclose(paddle.linalg.norm(paddle.to_tensor(X), p, axis).numpy(), out)


def test_norm_keepdim_and_errors():
    out = paddle.norm(paddle.to_tensor(X), p=2, axis=1, keepdim=True)
    assert out.shape == [3, 1, 5]
    assert paddle.norm(paddle.to_tensor(X), keepdim=True).shape == [1, 1, 1]
    with pytest.raises(ValueError, match="axis"):
        paddle.norm(paddle.to_tensor(X), axis=[0, 1, 2])
    with pytest.raises(ValueError, match="nuc"):
        paddle.norm(paddle.to_tensor(X), p="nuc", axis=1)


# ----------------------------------------------------------------------------- scans
SCANS = [
    (lambda x: paddle.cumsum(x), lambda a: np.cumsum(a)),
    (lambda x: paddle.cumsum(x, axis=1), lambda a: np.cumsum(a, axis=1)),
    (lambda x: paddle.cumsum(x, axis=-1, dtype="float64"), lambda a: np.cumsum(a, -1, "float64")),
    (lambda x: paddle.cumprod(x, dim=0), lambda a: np.cumprod(a, axis=0)),
    (lambda x: paddle.cumprod(x), lambda a: np.cumprod(a)),
]


@pytest.mark.parametrize("fn,ref", SCANS)
def test_scans_float(fn, ref):
    a = RNG.uniform(0.5, 1.5, size=(3, 4)).astype("float32")
    check(fn, lambda v: ref(v).astype("float64" if ref(v).dtype == np.float64 else "float32"), a)


def test_scans_int_dtypes_as_paddle():
    # Paddle 3.3.1: cumsum accumulates int32 in int64, cumprod keeps it; no bool cumsum
    check(lambda x: paddle.cumsum(x, axis=0), lambda a: np.cumsum(a, axis=0).astype("int64"), I)
    check(lambda x: x.cumprod(1), lambda a: np.cumprod(a, axis=1).astype("int32"), I)
    out = paddle.cumsum(paddle.to_tensor([True, True, False]), dtype="int64")
    assert out.dtype == "int64" and out.numpy().tolist() == [1, 2, 2]
    with pytest.raises(TypeError, match="bool"):
        paddle.cumsum(paddle.to_tensor([True, True, False]))
    assert build(paddle.cumsum, [-1, 4])._shape == (-1,)
    assert build(paddle.cumsum, [3, 4])._shape == (12,)


# ----------------------------------------------------------------------------- sort & co
S = np.array([[3.0, 1.0, 2.0, 1.0], [0.0, 5.0, 5.0, -1.0]], "float32")


@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_argsort(axis, descending):
    def ref_idx(a):
        idx = np.argsort(-a if descending else a, axis=axis, kind="stable")
        return idx.astype("int64")
    check(lambda x: paddle.argsort(x, axis=axis, descending=descending), ref_idx, S)
    check(lambda x: paddle.sort(x, axis=axis, descending=descending),
          lambda a: np.take_along_axis(a, ref_idx(a), axis), S)


def test_sort_descending_ints_keeps_tie_order():
    a = np.array([2, 7, 2, -9223372036854775808, 7], "int64")
    idx = paddle.argsort(paddle.to_tensor(a), descending=True).numpy()
    assert idx.tolist() == [1, 4, 0, 2, 3]


@pytest.mark.parametrize("k,axis,largest", [(2, None, True), (1, 0, True), (3, -1, False)])
def test_topk(k, axis, largest):
    def ref(a):
        ax = -1 if axis is None else axis
        idx = np.argsort(-a if largest else a, axis=ax, kind="stable")
        idx = np.take(idx, np.arange(k), axis=ax)
        return np.take_along_axis(a, idx, ax), idx.astype("int64")
    vals, idx = check(lambda x: paddle.topk(x, k, axis=axis, largest=largest), ref, S)
    assert idx.dtype == np.int64


def test_topk_static_shapes_and_errors():
    v, i = build(lambda x: paddle.topk(x, 2), [-1, 6])
    assert v._shape == (-1, 2) and i._shape == (-1, 2) and i.dtype == "int64"
    with pytest.raises(ValueError, match=r"topk.*k=9.*\[-1, 6\]"):
        build(lambda x: paddle.topk(x, 9), [-1, 6])


def test_topk_with_tensor_k_static():
    a = S.copy()
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [2, 4], "float32")
        k = paddle.static.data("k", [], "int64")
        v, i = paddle.topk(x, k)
    assert v._shape == (2, -1)
    sv, si = paddle.static.Executor().run(main, feed={"x": a, "k": np.array(3, "int64")},
                                          fetch_list=[v, i])
    ev, ei = paddle.topk(paddle.to_tensor(a), 3)
    np.testing.assert_array_equal(sv, ev.numpy())
    np.testing.assert_array_equal(si, ei.numpy())


U = np.array([[2, 1, 2], [3, 1, 1]], "int64")


def test_unique_all_outputs():
    def ref(a):
        out, idx, inv, cnt = np.unique(a.reshape(-1), return_index=True, return_inverse=True,
                                       return_counts=True)
        return out, idx.astype("int64"), inv.reshape(-1).astype("int64"), cnt.astype("int64")
    check(lambda x: paddle.unique(x, return_index=True, return_inverse=True, return_counts=True),
          ref, U)
    out = check(paddle.unique, lambda a: np.unique(a), U)
    assert out.tolist() == [1, 2, 3]


def test_unique_axis_and_dtype():
    a = np.array([[1, 2], [3, 4], [1, 2]], "float32")
    check(lambda x: paddle.unique(x, return_counts=True, axis=0, dtype="int32"),
          lambda v: (np.unique(v, axis=0), np.array([2, 1], "int32")), a)
    counts = build(lambda x: paddle.unique(x, return_inverse=True, axis=0), [-1, 2])[1]
    assert counts._shape == (-1,)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "bool"])
def test_reductions_give_arrays_of_their_dtype_whole_and_along_an_axis(dtype):
    x = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    t = paddle.to_tensor(x)
    cases = {
        "sum": (paddle.sum, lambda a, **k: np.sum(a, **k).astype(
            "int64" if dtype in ("int32", "bool") else dtype)),
        # Paddle's integer mean is truncated toward zero, its bool mean is "any"
        "mean": (paddle.mean, lambda a, **k: np.mean(a, **k).astype(dtype) if "float" in dtype
                 else (np.mean(a, **k) != 0) if dtype == "bool" else
                 np.trunc(np.mean(a, **k)).astype(dtype)),
        "max": (paddle.max, lambda a, **k: np.max(a, **k).astype(dtype)),
    }
    for name, (fn, ref) in cases.items():
        for axis in (None, 1):
            out = fn(t, axis=axis).numpy()
            want = np.asarray(ref(x, axis=axis))
            assert isinstance(out, np.ndarray) and out.dtype == want.dtype, (name, axis)
            np.testing.assert_array_equal(out, want)
