"""The tensor functions of issue 13 (composed from existing ops) against numpy written by hand:
eagerly, in a static Program with unknown batch dims, and their gradients by finite differences."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import check_grad, run_static

R = np.random.default_rng(0)
A34 = R.standard_normal((3, 4))
A345 = R.standard_normal((3, 4, 5))
I3 = np.array([0, 2, 0], dtype="int64")


def _np_cummax(a, axis):
    vals = np.maximum.accumulate(a, axis=axis)
    idx = np.zeros(a.shape, dtype="int64")
    a2, v2 = np.moveaxis(a, axis, -1), np.moveaxis(vals, axis, -1)
    i2 = np.moveaxis(idx, axis, -1)
    for pos in np.ndindex(a2.shape[:-1]):
        best = 0
        for j in range(a2.shape[-1]):
            if a2[pos][j] >= a2[pos][best]:
                best = j
            i2[pos][j] = best
    return vals, idx


def _np_index_add(x, index, axis, value):
    out = x.copy()
    xt, vt = np.moveaxis(out, axis, 0), np.moveaxis(value, axis, 0)
    for k, i in enumerate(index):
        xt[i] += vt[k]
    return out


def _np_masked_scatter(x, mask, value):
    out = x.copy()
    flat_v = value.reshape(-1)
    out[mask] = flat_v[:mask.sum()]
    return out


# name, fn, inputs, numpy reference, static shapes (None: unknown dims)
CASES = [
    ("add_n", lambda a, b: paddle.add_n([a, b, a]), [A34, A34 * 2], lambda a, b: 2 * a + b,
     [[None, 4], [None, 4]]),
    ("lerp", lambda a, b: paddle.lerp(a, b, 0.25), [A34, A34 ** 2],
     lambda a, b: a + 0.25 * (b - a), [[None, 4], [None, 4]]),
    ("hypot", paddle.hypot, [A34, A34 + 1], np.hypot, [[None, 4], [None, 4]]),
    ("atan2", paddle.atan2, [A34, A34[::-1] * 2], np.arctan2, [[None, 4], [None, 4]]),
    ("clamp", lambda a: paddle.clamp(a, -0.5, 0.5), [A34], lambda a: np.clip(a, -0.5, 0.5),
     [[None, 4]]),
    ("masked_fill", lambda a: paddle.masked_fill(a, a > 0, -1.0), [A34],
     lambda a: np.where(a > 0, -1.0, a), [[None, 4]]),
    ("nansum", lambda a: paddle.nansum(a, axis=1), [np.where(A34 > 1, np.nan, A34)],
     lambda a: np.nansum(a, axis=1), [[None, 4]]),
    ("nanmean", lambda a: paddle.nanmean(a, axis=0), [np.where(A34 > 1, np.nan, A34)],
     lambda a: np.nanmean(a, axis=0), [[None, 4]]),
    ("count_nonzero", lambda a: paddle.count_nonzero(a, axis=1), [np.round(A34)],
     lambda a: np.count_nonzero(a, axis=1), [[None, 4]]),
    ("isin", lambda a, b: paddle.isin(a, b), [np.array([[1, 5], [3, 2]]), np.array([2, 3, 9])],
     lambda a, b: np.isin(a, b), [[None, 2], [None]]),
    ("cross", lambda a, b: paddle.cross(a, b, axis=1), [A34[:, :3], A34[:, 1:]],
     lambda a, b: np.cross(a, b, axis=1), [[None, 3], [None, 3]]),
    ("diff", lambda a: paddle.diff(a, n=2, axis=1), [A34], lambda a: np.diff(a, 2, axis=1),
     [[None, 4]]),
    ("diff_prepend", lambda a, p: paddle.diff(a, axis=0, prepend=p), [A34, A34[:1]],
     lambda a, p: np.diff(a, axis=0, prepend=p), [[None, 4], [1, 4]]),
    ("diagonal", lambda a: paddle.diagonal(a, offset=1, axis1=1, axis2=2), [A345],
     lambda a: np.diagonal(a, 1, 1, 2), [[None, 4, 5]]),
    ("kron", paddle.kron, [A34[:2, :2], A34[1:, 1:]], np.kron, [[2, 2], [2, 3]]),
    ("moveaxis", lambda a: paddle.moveaxis(a, [0, 1], [2, 0]), [A345],
     lambda a: np.moveaxis(a, [0, 1], [2, 0]), [[None, 4, 5]]),
    ("permute", lambda a: paddle.permute(a, 2, 0, 1), [A345],
     lambda a: a.transpose(2, 0, 1), [[None, 4, 5]]),
    ("ravel", paddle.ravel, [A34], np.ravel, [[None, 4]]),
    ("narrow", lambda a: paddle.narrow(a, 1, 1, 2), [A34], lambda a: a[:, 1:3], [[None, 4]]),
    ("hstack", lambda a, b: paddle.hstack([a, b]), [A34, A34[:, :2]],
     lambda a, b: np.hstack([a, b]), [[None, 4], [None, 2]]),
    ("vstack", lambda a, b: paddle.vstack([a, b]), [A34, A34[0]],
     lambda a, b: np.vstack([a, b]), [[None, 4], [4]]),
    ("dstack", lambda a, b: paddle.dstack([a, b]), [A34, A34],
     lambda a, b: np.dstack([a, b]), [[None, 4], [None, 4]]),
    ("atleast_3d", paddle.atleast_3d, [A34], np.atleast_3d, [[None, 4]]),
    ("broadcast_tensors", lambda a, b: paddle.broadcast_tensors([a, b]),
     [A34[:, :1], A34[0]], lambda a, b: list(np.broadcast_arrays(a, b)), [[None, 1], [4]]),
    ("median", lambda a: paddle.median(a, axis=1), [A34], lambda a: np.median(a, axis=1),
     [[None, 4]]),
    ("median_odd_keepdim", lambda a: paddle.median(a, axis=0, keepdim=True), [A34],
     lambda a: np.median(a, axis=0, keepdims=True), [[3, None]]),
    ("median_min", lambda a: paddle.median(a, axis=1, mode="min"), [A34],
     lambda a: [np.sort(a, 1)[:, 1], np.argsort(a, 1, kind="stable")[:, 1]], [[None, 4]]),
    ("quantile", lambda a: paddle.quantile(a, [0.1, 0.5], axis=1), [A34],
     lambda a: np.quantile(a, [0.1, 0.5], axis=1), [[None, 4]]),
    ("quantile_lower", lambda a: paddle.quantile(a, 0.4, axis=1, interpolation="lower"), [A34],
     lambda a: np.quantile(a, 0.4, axis=1, method="lower"), [[None, 4]]),
    ("logcumsumexp", lambda a: paddle.logcumsumexp(a, axis=1), [A34],
     lambda a: np.log(np.cumsum(np.exp(a), axis=1)), [[None, 4]]),
    ("cummax", lambda a: paddle.cummax(a, axis=1), [np.round(A34)],
     lambda a: list(_np_cummax(a, 1)), [[None, 4]]),
    ("cummin", lambda a: paddle.cummin(a, axis=0), [np.round(A34)],
     lambda a: [np.minimum.accumulate(a, 0), _np_cummax(-a, 0)[1]], [[3, None]]),
    ("searchsorted", lambda s, v: paddle.searchsorted(s, v),
     [np.array([1.0, 3.0, 5.0, 7.0]), np.array([[0.0, 3.0], [6.0, 9.0]])],
     lambda s, v: np.searchsorted(s, v), [[4], [None, 2]]),
    ("searchsorted_right", lambda s, v: paddle.searchsorted(s, v, right=True),
     [np.array([[1.0, 3.0, 5.0], [2.0, 2.0, 4.0]]), np.array([[3.0, 6.0], [2.0, 0.0]])],
     lambda s, v: np.stack([np.searchsorted(s[i], v[i], "right") for i in range(2)]),
     [[None, 3], [None, 2]]),
    ("bucketize", lambda x, s: paddle.bucketize(x, s), [np.array([0.5, 3.0, 8.0]),
                                                        np.array([1.0, 3.0, 5.0])],
     lambda x, s: np.searchsorted(s, x), [[None], [3]]),
    ("bincount", lambda x: paddle.bincount(x, minlength=6), [np.array([1, 1, 4, 0])],
     lambda x: np.bincount(x, minlength=6), [[None]]),
    ("bincount_weights", lambda x, w: paddle.bincount(x, weights=w), [np.array([1, 1, 3]),
                                                                      np.array([0.5, 1.0, 2.0])],
     lambda x, w: np.bincount(x, weights=w), [[None], [None]]),
    ("histogram", lambda x: paddle.histogram(x, bins=4, min=0, max=4),
     [np.array([0.0, 1.5, 1.2, 4.0, 5.0, -1.0])],
     lambda x: np.histogram(x, 4, (0, 4))[0], [[None]]),
    ("histogram_data_range", lambda x: paddle.histogram(x, bins=3), [A34],
     lambda x: np.histogram(x, 3)[0], [[None, 4]]),
    ("index_sample", paddle.index_sample, [A34, np.array([[0, 3], [1, 1], [2, 0]])],
     lambda a, i: np.take_along_axis(a, i, 1), [[None, 4], [None, 2]]),
    ("index_add", lambda a, i, v: paddle.index_add(a, i, 1, v), [A34, I3, A34[:, :3]],
     lambda a, i, v: _np_index_add(a, i, 1, v), [[None, 4], [3], [None, 3]]),
    ("scatter_nd_add", paddle.scatter_nd_add,
     [A34, np.array([[1, 2], [1, 2], [0, 0]]), np.array([1.0, 2.0, 3.0])],
     lambda a, i, u: a + np.array([[3, 0, 0, 0], [0, 0, 3, 0], [0, 0, 0, 0]]), [[3, 4], [None, 2],
                                                                                 [None]]),
    ("scatter_nd", lambda i, u: paddle.scatter_nd(i, u, [3, 2]), [np.array([[1], [1]]),
                                                                  A34[:2, :2]],
     lambda i, u: np.array([[0, 0], u[0] + u[1], [0, 0]]), [[None, 1], [None, 2]]),
    ("index_put", lambda a, i, j: paddle.index_put(a, (i, j), paddle.to_tensor(9.0, "float64")),
     [A34, np.array([0, 2]), np.array([3, 1])],
     lambda a, i, j: np.where(np.isin(np.arange(12).reshape(3, 4), [3, 9]), 9.0, a),
     [[None, 4], [None], [None]]),
    ("index_put_accumulate", lambda a, i, v: paddle.index_put(a, (i,), v, accumulate=True),
     [A34, np.array([1, 1]), A34[:2]], lambda a, i, v: a + np.array([0 * v[0], v[0] + v[1],
                                                                     0 * v[0]]),
     [[None, 4], [None], [None, 4]]),
    ("masked_scatter", lambda a, v: paddle.masked_scatter(a, a > 0, v), [A34, A345.reshape(-1)],
     lambda a, v: _np_masked_scatter(a, a > 0, v), [[None, 4], [None]]),
    ("repeat_interleave", lambda a: paddle.repeat_interleave(a, 2, axis=0), [A34],
     lambda a: np.repeat(a, 2, axis=0), [[None, 4]]),
    ("repeat_interleave_tensor", lambda a, r: paddle.repeat_interleave(a, r, axis=1),
     [A34, np.array([2, 0, 1, 3])], lambda a, r: np.repeat(a, r, axis=1), [[None, 4], [4]]),
]


def _as_list(out):
    return [np.asarray(o) for o in out] if isinstance(out, (list, tuple)) else [np.asarray(out)]


@pytest.mark.parametrize("name,fn,inputs,ref,shapes", CASES, ids=[c[0] for c in CASES])
def test_eager_matches_numpy(name, fn, inputs, ref, shapes):
    got = _as_list([o.numpy() for o in fn(*map(paddle.to_tensor, inputs))]
                   if isinstance(fn(*map(paddle.to_tensor, inputs)), (list, tuple))
                   else fn(*map(paddle.to_tensor, inputs)).numpy())
    want = _as_list(ref(*inputs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape, (g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name,fn,inputs,ref,shapes", CASES, ids=[c[0] for c in CASES])
def test_static_with_unknown_dims_matches_numpy(name, fn, inputs, ref, shapes):
    got = _as_list(run_static(fn, *[np.asarray(a) for a in inputs], shapes=shapes))
    want = _as_list(ref(*inputs))
    for g, w in zip(got, want):
        assert g.shape == w.shape, (g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9)


GRAD_CASES = [
    ("lerp", lambda a, b: paddle.lerp(a, b, 0.3), [A34, A34 * 2]),
    ("hypot", paddle.hypot, [A34, A34 + 2]),
    ("atan2", paddle.atan2, [A34, A34[::-1] + 0.1]),
    ("cross", lambda a, b: paddle.cross(a, b), [A34[:, :3], A34[:, 1:]]),
    ("kron", paddle.kron, [A34[:2, :3], A34[1:, 2:]]),
    ("diagonal", lambda a: paddle.diagonal(a, -1, 2, 1), [A345]),
    ("diff", lambda a: paddle.diff(a, axis=0), [A34]),
    ("median", lambda a: paddle.median(a, axis=1), [A34]),
    ("quantile", lambda a: paddle.quantile(a, 0.3, axis=0), [A34]),
    ("logcumsumexp", lambda a: paddle.logcumsumexp(a, axis=0), [A34]),
    ("cummax", lambda a: paddle.cummax(a, axis=1)[0], [A34]),
    ("index_add", lambda a, v: paddle.index_add(a, paddle.to_tensor(I3), 0, v),
     [A34, A34[::-1]]),
    ("scatter_nd_add", lambda a, u: paddle.scatter_nd_add(
        a, paddle.to_tensor(np.array([[1], [1]])), u), [A34, A34[:2]]),
    ("masked_scatter", lambda a, v: paddle.masked_scatter(a, paddle.to_tensor(A34 > 0), v),
     [A34, A345.reshape(-1)]),
    ("repeat_interleave", lambda a: paddle.repeat_interleave(a, 3, axis=1), [A34]),
    ("nanmean", lambda a: paddle.nanmean(a, axis=1), [A34]),
]


@pytest.mark.parametrize("name,fn,inputs", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_finite_differences(name, fn, inputs):
    check_grad(fn, *inputs, rtol=1e-5, atol=1e-7)


def test_slice_takes_paddle_parameter_names():
    x = paddle.to_tensor(A34)
    out = paddle.slice(input=x, axes=[1], starts=[1], ends=[3])
    np.testing.assert_allclose(out.numpy(), A34[:, 1:3])


def test_methods_exist_on_tensors():
    x = paddle.to_tensor(A34)
    np.testing.assert_allclose(x.moveaxis(0, 1).numpy(), A34.T)
    np.testing.assert_allclose(x.clamp(max=0.0).numpy(), np.minimum(A34, 0))
    np.testing.assert_allclose(x.diagonal().numpy(), np.diagonal(A34))


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="size 3"):
        paddle.cross(paddle.ones([2, 4]), paddle.ones([2, 4]), axis=1)
    with pytest.raises(ValueError, match="1-D int"):
        paddle.bincount(paddle.ones([3]))
    with pytest.raises(ValueError, match="mode"):
        paddle.median(paddle.ones([3]), mode="max")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        paddle.quantile(paddle.ones([3]), 1.5)


def _model(x, i):
    values, where_ = paddle.cummax(x, axis=1)
    return (values, where_, paddle.median(x, axis=1), paddle.quantile(x, 0.25, axis=1),
            paddle.index_put(x, (i,), paddle.to_tensor(0.0)), paddle.searchsorted(
                paddle.to_tensor([-1.0, 0.0, 1.0]), x), paddle.masked_scatter(x, x > 0, x * 10),
            paddle.logcumsumexp(x, axis=1), paddle.kron(x, paddle.ones([1, 2])))


def test_to_static_and_save_load_match_numpy(tmp_path):
    from tests.support import three_modes
    x = A34.astype("float32")
    i = np.array([2, 0], dtype="int64")
    vals, idx = _np_cummax(x, 1)
    put = x.copy()
    put[[2, 0]] = 0
    want = [vals, idx, np.median(x, 1), np.quantile(x, 0.25, axis=1), put,
            np.searchsorted([-1.0, 0.0, 1.0], x), _np_masked_scatter(x, x > 0, x * 10),
            np.log(np.cumsum(np.exp(x), 1)), np.kron(x, np.ones((1, 2)))]
    for outs in three_modes(_model, [x, i], [[None, 4], [None]], tmp_path):
        assert len(outs) == len(want)
        for got, ref in zip(outs, want):
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
