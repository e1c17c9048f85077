"""Index-based ops (gather/scatter family, take/put along axis): eager vs numpy, static vs eager."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import run_static


def build(fn, *specs):
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        return fn(*[paddle.static.data(f"x{i}", s, d) for i, (s, d) in enumerate(specs)])


def check(fn, ref, *arrays, unknown=None):
    eager = fn(*[paddle.to_tensor(a) for a in arrays])
    expected = np.asarray(ref(*arrays))
    assert eager.shape == list(expected.shape) and eager.dtype == str(expected.dtype)
    np.testing.assert_allclose(eager.numpy(), expected)
    for shapes in (None, unknown or [[None] * a.ndim for a in arrays]):
        static = run_static(fn, *arrays, shapes=shapes)
        assert static.dtype == expected.dtype
        np.testing.assert_allclose(static, eager.numpy())


X = np.arange(20, dtype="float32").reshape(4, 5)
IDX = np.array([3, 0, 3], "int64")

CASES = [
    ("gather", lambda x, i: paddle.gather(x, i), lambda a, i: a[i], X, IDX),
    ("gather_axis1", lambda x, i: paddle.gather(x, i, axis=1), lambda a, i: a[:, i], X, IDX),
    ("gather_0d", lambda x, i: paddle.gather(x, i), lambda a, i: a[i], X, np.array(2, "int64")),
    ("index_select", lambda x, i: paddle.index_select(x, i, axis=1), lambda a, i: a[:, i], X, IDX),
    ("gather_nd", paddle.gather_nd, lambda a, i: a[i[..., 0], i[..., 1]], X,
     np.array([[0, 1], [3, 4], [2, 2]], "int64")),
    ("gather_nd_rows", paddle.gather_nd, lambda a, i: a[i[..., 0]], X,
     np.array([[[1]], [[3]]], "int32")),  # the index's last dim must be known when building
    ("take_along_axis", lambda x, i: paddle.take_along_axis(x, i, 1),
     lambda a, i: np.take_along_axis(a, i, 1), X, np.array([[0, 4], [1, 1], [2, 0], [4, 3]], "int64")),
    ("take_along_axis_bcast", lambda x, i: paddle.take_along_axis(x, i, 0),
     lambda a, i: np.take_along_axis(a, np.broadcast_to(i, (2, 5)), 0), X,
     np.array([[3], [0]], "int64")),
]


@pytest.mark.parametrize("name,fn,ref,a,i", CASES, ids=[c[0] for c in CASES])
def test_gather_family(name, fn, ref, a, i):
    unknown = [[None] * a.ndim, [None] * (i.ndim - 1) + [i.shape[-1]]] if name.startswith("gather_nd") else None
    check(fn, ref, a, i, unknown=unknown)


def test_gather_static_shapes():
    out = build(paddle.gather, ([-1, 5], "float32"), ([-1], "int64"))
    assert out._shape == (-1, 5)
    out = build(lambda x, i: paddle.gather_nd(x, i), ([4, 5, 6], "float32"), ([-1, 2], "int64"))
    assert out._shape == (-1, 6)
    with pytest.raises(TypeError, match="int"):
        build(paddle.gather, ([4, 5], "float32"), ([2], "float32"))


def test_scatter_overwrite_and_accumulate():
    x = np.ones((4, 2), "float32")
    upd = np.array([[1, 2], [3, 4], [5, 6]], "float32")
    idx = np.array([1, 3, 1], "int64")

    def over(a, i, u):
        out = a.copy()
        out[i] = u
        return out

    def acc(a, i, u):
        out = a.copy()
        out[i] = 0
        np.add.at(out, i, u)
        return out

    check(paddle.scatter, over, x, np.array([1, 3], "int64"), upd[:2])
    check(lambda a, i, u: paddle.scatter(a, i, u, overwrite=False), acc, x, idx, upd)
    assert acc(x, idx, upd)[1].tolist() == [6, 8]


PUTS = [
    ("assign", lambda a, i, v: _put(a, i, v, lambda o, k, w: o.__setitem__(k, w))),
    ("add", lambda a, i, v: _put(a, i, v, np.add.at)),
    ("mul", lambda a, i, v: _put(a, i, v, np.multiply.at)),
    ("amax", lambda a, i, v: _put(a, i, v, np.maximum.at)),
    ("amin", lambda a, i, v: _put(a, i, v, np.minimum.at)),
]


def _put(a, i, v, at):
    out = a.copy()
    rows = np.arange(a.shape[0])[:, None]
    at(out, (rows, i), np.broadcast_to(v, i.shape))
    return out


@pytest.mark.parametrize("reduce,ref", PUTS, ids=[p[0] for p in PUTS])
def test_put_along_axis(reduce, ref):
    a = X.copy()
    i = np.array([[0, 0], [1, 4], [2, 3], [4, 4]], "int64")
    v = np.array([[10, 20], [30, 40], [50, 60], [-70, 80]], "float32")
    check(lambda x, k, w: paddle.put_along_axis(x, k, w, 1, reduce=reduce), ref, a, i, v)


def test_put_along_axis_include_self_false_and_mean():
    a = np.ones((1, 3), "float32")
    i = np.array([[0, 0, 2]], "int64")
    v = np.array([[4.0, 6.0, 8.0]], "float32")
    t = paddle.put_along_axis(paddle.to_tensor(a), paddle.to_tensor(i), paddle.to_tensor(v), 1,
                              reduce="add", include_self=False)
    assert t.numpy().tolist() == [[10.0, 1.0, 8.0]]
    t = paddle.put_along_axis(paddle.to_tensor(a), paddle.to_tensor(i), paddle.to_tensor(v), 1,
                              reduce="mean")
    np.testing.assert_allclose(t.numpy(), [[11 / 3, 1.0, 4.5]])
    t = paddle.put_along_axis(paddle.to_tensor(a), paddle.to_tensor(i), 5.0, 1)
    assert t.numpy().tolist() == [[5.0, 1.0, 5.0]]
    with pytest.raises(ValueError, match="reduce"):
        paddle.put_along_axis(paddle.to_tensor(a), paddle.to_tensor(i), 5.0, 1, reduce="max")


def test_take_along_axis_rank_error():
    with pytest.raises(ValueError, match=r"take_along_axis.*\[4, 5\].*\[4\]"):
        build(lambda x, i: paddle.take_along_axis(x, i, 1), ([4, 5], "float32"), ([4], "int64"))


def test_getitem_setitem():
    x = paddle.to_tensor(X.copy())
    np.testing.assert_array_equal(x[paddle.to_tensor(IDX)].numpy(), X[IDX])
    np.testing.assert_array_equal(x[x > 10].numpy(), X[X > 10])
    x[1:3, 0] = -1.0
    ref = X.copy()
    ref[1:3, 0] = -1
    np.testing.assert_array_equal(x.numpy(), ref)

    def fn(v):
        v[0] = 0.0
        return v[:, 1:]
    np.testing.assert_array_equal(run_static(fn, X, shapes=[[None, 5]]),
                                  np.concatenate([np.zeros((1, 4)), X[1:, 1:]]).astype("float32"))
