"""The functions added to close the gaps in paddle's top-level names (compat spellings,
products and distances, scatter and window ops, NaN-skipping order statistics, bit arithmetic)
against numpy written by hand, eagerly and in a static Program with an unknown batch dim."""
import itertools

import numpy as np
import pytest

import dy2st as paddle
from tests.support import check_grad, run_static

R = np.random.default_rng(13)
A = R.standard_normal((3, 4))
B = R.standard_normal((4, 5))
T = R.standard_normal((2, 3, 4))
V = R.standard_normal(5)
NANS = np.array([[1.0, np.nan, 3.0, 0.5], [np.nan, np.nan, np.nan, np.nan], [4.0, 2.0, np.nan, 8.0]])
INTS = np.array([[12, -18, 7], [0, 45, 100]], dtype=np.int64)


def _np_cdist(x, y, p):
    d = np.abs(x[..., :, None, :] - y[..., None, :, :])
    return np.max(d, -1) if p == np.inf else (d ** p).sum(-1) ** (1 / p)


def _np_diag_scatter(x, y, offset, a1, a2):
    out = x.copy()
    planes = np.moveaxis(out, (a1, a2), (-2, -1))      # a view: writes go into out
    n, m = planes.shape[-2:]
    rows = range(max(0, -offset), min(n, m - offset))
    for k, r in enumerate(rows):
        planes[..., r, r + offset] = y[..., k]
    return out


def _np_unfold(x, axis, size, step):
    count = (x.shape[axis] - size) // step + 1
    wins = [np.take(x, range(w * step, w * step + size), axis=axis) for w in range(count)]
    return np.moveaxis(np.stack(wins, axis=axis), axis + 1, -1)


def _np_renorm(x, p, axis, max_norm):
    moved = np.moveaxis(x, axis, 0)
    norms = (np.abs(moved.reshape(len(moved), -1)) ** p).sum(1) ** (1 / p)
    factor = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    return np.moveaxis(moved * factor.reshape((-1,) + (1,) * (x.ndim - 1)), 0, axis)


def _np_nanquantile_rows(x, q):
    out = []
    for row in x:
        vals = np.sort(row[~np.isnan(row)])
        if not len(vals):
            out.append(np.nan)
            continue
        pos = q * (len(vals) - 1)
        lo, hi = int(np.floor(pos)), int(np.ceil(pos))
        out.append(vals[lo] + (vals[hi] - vals[lo]) * (pos - lo))
    return np.array(out)


def _np_scatter_add(x, dim, index, src):
    out = x.copy()
    for pos in itertools.product(*map(range, index.shape)):
        target = list(pos)
        target[dim] = index[pos]
        out[tuple(target)] += src[pos]
    return out


# name, function, inputs, numpy reference, whether dim 0 may be unknown in the static run
CASES = [
    ("cat", lambda a, b: paddle.cat([a, b], axis=1), [A, A * 2],
     lambda a, b: np.concatenate([a, b], 1), True),
    ("concatenate", lambda a: paddle.concatenate([a, a]), [A], lambda a: np.concatenate([a, a]),
     False),
    ("gt", lambda a, b: paddle.gt(a, b), [A, A.T[:3, :1]], lambda a, b: a > b, True),
    ("le", lambda a, b: paddle.le(a, b), [A, A[:1]], lambda a, b: a <= b, True),
    ("swapaxes", lambda t: paddle.swapaxes(t, 0, 2), [T], lambda t: np.swapaxes(t, 0, 2), True),
    ("swapdims", lambda t: paddle.swapdims(t, -1, 1), [T], lambda t: np.swapaxes(t, -1, 1), True),
    ("matrix_transpose", paddle.matrix_transpose, [T], lambda t: np.swapaxes(t, -1, -2), True),
    ("msort", paddle.msort, [A], lambda a: np.sort(a, 0), False),
    ("ger", paddle.ger, [V, V[:3]], np.outer, False),
    ("argwhere", paddle.argwhere, [np.array([[0.0, 1.0], [2.0, 0.0]])], np.argwhere, False),
    ("take_along_dim_flat", lambda a, i: paddle.take_along_dim(a, i),
     [A, np.array([11, 0, 5])], lambda a, i: a.reshape(-1)[i], False),
    ("softmax", lambda a: paddle.softmax(a, axis=0), [A],
     lambda a: np.exp(a) / np.exp(a).sum(0), False),
    ("addmm", lambda i, x, y: paddle.addmm(i, x, y, beta=0.5, alpha=2.0),
     [A[:, :1], A, B], lambda i, x, y: 0.5 * i + 2.0 * x @ y, True),
    ("baddbmm", lambda i, x, y: paddle.baddbmm(i, x, y, 2.0, -1.0),
     [T[:, :, :3], T, np.swapaxes(T, 1, 2)[:, :, :3]],
     lambda i, x, y: 2 * i - x @ y, True),
    ("vecdot", lambda x, y: paddle.vecdot(x, y, axis=0), [A, A[::-1]],
     lambda x, y: (x * y).sum(0), False),
    ("dist", lambda x, y: paddle.dist(x, y, 3), [A, A[:1] * 0.5],
     lambda x, y: (np.abs(x - y) ** 3).sum() ** (1 / 3), True),
    ("cdist", lambda x, y: paddle.cdist(x, y), [T, T[:, :2] + 1],
     lambda x, y: _np_cdist(x, y, 2), True),
    ("cdist_inf", lambda x, y: paddle.cdist(x, y, float("inf")), [A, A + 1],
     lambda x, y: _np_cdist(x, y, np.inf), True),
    ("pdist", paddle.pdist, [A], lambda a: np.array(
        [np.linalg.norm(a[i] - a[j]) for i, j in itertools.combinations(range(3), 2)]), False),
    ("renorm", lambda a: paddle.renorm(a, 2.0, 1, 1.0), [A], lambda a: _np_renorm(a, 2, 1, 1.0),
     True),
    ("block_diag", lambda a, b: paddle.block_diag([a, b]), [A[:2, :3], V[:2]],
     lambda a, b: np.block([[a, np.zeros((2, 2))], [np.zeros((1, 3)), b[None]]]), False),
    ("cartesian_prod", lambda a, b: paddle.cartesian_prod([a, b]), [V[:2], V[2:5]],
     lambda a, b: np.array(list(itertools.product(a, b))), False),
    ("combinations", lambda a: paddle.combinations(a, 2), [V[:4]],
     lambda a: np.array(list(itertools.combinations(a, 2))), False),
    ("combinations_repl", lambda a: paddle.combinations(a, 2, with_replacement=True), [V[:3]],
     lambda a: np.array(list(itertools.combinations_with_replacement(a, 2))), False),
    ("diagonal_scatter", lambda x, y: paddle.diagonal_scatter(x, y, 1), [A, V[:3]],
     lambda x, y: _np_diag_scatter(x, y, 1, 0, 1), False),
    ("diagonal_scatter_batch", lambda x, y: paddle.diagonal_scatter(x, y, -1, 1, 2),
     [T, T[:, :2, 0]], lambda x, y: _np_diag_scatter(x, y, -1, 1, 2), True),
    ("select_scatter", lambda x, v: paddle.select_scatter(x, v, 1, 2), [T, T[:, 0]],
     lambda x, v: np.concatenate([x[:, :2], v[:, None], x[:, 3:]], 1), True),
    ("slice_scatter", lambda x, v: paddle.slice_scatter(x, v, [1], [0], [4], [2]),
     [A, A[:, :2] * 10], lambda x, v: np.stack([v[:, 0], x[:, 1], v[:, 1], x[:, 3]], 1), True),
    ("scatter_add", lambda x, s: paddle.scatter_add(x, 0, paddle.to_tensor([[2, 0, 2, 1]]), s),
     [A, B[:2, :4]], lambda x, s: _np_scatter_add(x, 0, np.array([[2, 0, 2, 1]]), s), False),
    ("scatter_reduce_amax", lambda x, s: paddle.scatter_reduce(
        x, 1, paddle.to_tensor([[0, 0], [3, 3], [1, 0]]), s, "amax", include_self=False),
     [A, B[:3, :2]], lambda x, s: np.array([
         [max(s[0]), x[0, 1], x[0, 2], x[0, 3]], [x[1, 0], x[1, 1], x[1, 2], max(s[1])],
         [s[2, 1], s[2, 0], x[2, 2], x[2, 3]]]), False),
    ("index_fill", lambda x: paddle.index_fill(x, paddle.to_tensor([0, 2]), 1, -1.0), [T],
     lambda x: np.where(np.isin(np.arange(3), [0, 2])[None, :, None], -1.0, x), True),
    ("crop", lambda x: paddle.crop(x, [-1, 2, 2], [0, 1, 1]), [T], lambda x: x[:, 1:3, 1:3],
     True),
    ("unfold", lambda x: paddle.unfold(x, 2, 2, 1), [T], lambda x: _np_unfold(x, 2, 2, 1), True),
    ("unfold_step", lambda x: x.unfold(1, 2, 2), [A], lambda x: _np_unfold(x, 1, 2, 2), True),
    ("nanquantile", lambda x: paddle.nanquantile(x, 0.3, axis=1), [NANS],
     lambda x: _np_nanquantile_rows(x, 0.3), True),
    ("nanmedian", lambda x: paddle.nanmedian(x, axis=1, keepdim=True), [NANS],
     lambda x: _np_nanquantile_rows(x, 0.5)[:, None], True),
    ("nanmedian_all", paddle.nanmedian, [NANS], np.nanmedian, False),
    ("histogram_bin_edges", lambda x: paddle.histogram_bin_edges(x, 4), [A],
     lambda x: np.linspace(x.min(), x.max(), 5), True),
    ("gcd", paddle.gcd, [INTS, INTS[::-1]], np.gcd, True),
    ("lcm", paddle.lcm, [INTS, np.array([8, 6, 5])], lambda a, b: np.abs(np.lcm(a, b)), True),
    ("left_shift", paddle.bitwise_left_shift, [INTS, np.array([1, 2, 0])], np.left_shift, True),
    ("right_shift", paddle.bitwise_right_shift, [INTS, np.array([1, 2, 3])], np.right_shift, True),
    ("right_shift_logical", lambda a, b: paddle.bitwise_right_shift(a, b, is_arithmetic=False),
     [INTS, np.array([1, 2, 3])],
     lambda a, b: (a.view(np.uint64) >> b.astype(np.uint64)).view(np.int64), True),
    ("bitwise_invert", paddle.bitwise_invert, [INTS], np.invert, True),
    ("frexp", paddle.frexp, [np.array([0.0, 1.0, -3.5, 1024.0, 1e-5, 0.75])],
     lambda x: [np.frexp(x)[0], np.frexp(x)[1].astype(x.dtype)], True),
    ("nextafter", paddle.nextafter, [A, A.T[:3, :1]], np.nextafter, True),
]


def _list(out):
    return [np.asarray(o) for o in out] if isinstance(out, (list, tuple)) else [np.asarray(out)]


@pytest.mark.parametrize("name,fn,inputs,ref,batch", CASES, ids=[c[0] for c in CASES])
def test_eager_and_static_match_numpy(name, fn, inputs, ref, batch):
    want = _list(ref(*inputs))
    eager = fn(*map(paddle.to_tensor, inputs))
    eager = _list([t.numpy() for t in eager] if isinstance(eager, (list, tuple)) else eager.numpy())
    arrays = [np.asarray(a) for a in inputs]
    shapes = [[None] + list(a.shape[1:]) if batch and k == 0 else list(a.shape)
              for k, a in enumerate(arrays)]
    static = _list(run_static(fn, *arrays, shapes=shapes))
    for got in (eager, static):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape, name
            np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-10, equal_nan=True)


@pytest.mark.parametrize("fn,inputs", [
    (lambda x, y: paddle.cdist(x, y), [A, A[:2] + 3]),
    (lambda x: paddle.pdist(x, 3.0), [A]),
    (lambda x: paddle.renorm(x, 2.0, 0, 1.5), [A]),
    (lambda i, x, y: paddle.addmm(i, x, y, 0.3, 1.7), [B[:1], A, B]),
    (lambda x, y: paddle.diagonal_scatter(x, y, 1), [A, V[:3]]),
    (lambda x, v: paddle.slice_scatter(x, v, [1], [1], [4], [2]), [A, A[:, :2]]),
    (lambda x: paddle.unfold(x, 1, 3, 1), [A]),
    (lambda x: paddle.nanquantile(x, 0.7, axis=1), [np.where(np.isnan(NANS), A * 3, NANS)]),
    (lambda x: paddle.frexp(x)[0], [np.array([0.3, -5.0, 70.0])]),
    (lambda x, s: paddle.scatter_reduce(x, 0, paddle.to_tensor([[1, 0, 1, 2]]), s, "mean"),
     [A, B[:1, :4]]),
], ids=["cdist", "pdist", "renorm", "addmm", "diagonal_scatter", "slice_scatter", "unfold",
        "nanquantile", "frexp", "scatter_reduce_mean"])
def test_gradients(fn, inputs):
    check_grad(fn, *inputs)


def test_range_includes_its_end_and_logspace():
    np.testing.assert_array_equal(paddle.range(5).numpy(), np.arange(6))
    np.testing.assert_allclose(paddle.range(3, 9, 2.0).numpy(), [3.0, 5.0, 7.0, 9.0])
    np.testing.assert_allclose(paddle.logspace(0, 3, 4, base=2).numpy(), [1, 2, 4, 8])
    assert paddle.logspace(0, 1, 3).dtype == paddle.float32


def test_unique_consecutive_and_mode():
    x = paddle.to_tensor([1, 1, 2, 2, 3, 1, 1, 2])
    out, inverse, counts = paddle.unique_consecutive(x, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(out.numpy(), [1, 2, 3, 1, 2])
    np.testing.assert_array_equal(inverse.numpy(), [0, 0, 1, 1, 2, 3, 3, 4])
    np.testing.assert_array_equal(counts.numpy(), [2, 2, 1, 2, 1])
    rows = paddle.to_tensor([[2, 1, 3], [3, 0, 1], [3, 0, 1], [2, 1, 3]])
    np.testing.assert_array_equal(paddle.unique_consecutive(rows, axis=0).numpy(),
                                  [[2, 1, 3], [3, 0, 1], [2, 1, 3]])
    static = run_static(lambda a: paddle.unique_consecutive(a, return_counts=True),
                        np.array([5, 5, 6, 5], np.int64), shapes=[[None]])
    np.testing.assert_array_equal(static[0], [5, 6, 5])
    np.testing.assert_array_equal(static[1], [2, 1, 1])
    values, index = paddle.mode(paddle.to_tensor([[1.0, 2.0, 2.0, 1.0, 5.0], [4.0, 4.0, 0.0, 0.0, 0.0]]))
    np.testing.assert_array_equal(values.numpy(), [1.0, 0.0])      # the smaller on a tie
    np.testing.assert_array_equal(index.numpy(), [3, 4])
    x = paddle.to_tensor([[1.0, 2.0, 2.0, 1.0, 5.0]], stop_gradient=False)
    (paddle.mode(x)[0] * 3.0).sum().backward()       # the gradient reaches the entry picked
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0, 0, 3.0, 0]])


def test_broadcast_shapes_and_bad_input():
    assert paddle.broadcast_shapes([2, 1, 3], [4, 1], [1]) == [2, 4, 3]
    with pytest.raises(ValueError):
        paddle.broadcast_shapes([2, 3], [4, 3])
    with pytest.raises(ValueError, match="diagonal"):
        paddle.diagonal_scatter(paddle.ones([3, 3]), paddle.ones([2]))
    with pytest.raises(ValueError, match="scatter_reduce: unknown reduce"):
        paddle.scatter_reduce(paddle.ones([3]), 0, paddle.to_tensor([0]), paddle.ones([1]), "max")
    with pytest.raises(TypeError, match="integer"):
        paddle.gcd(paddle.ones([2]), paddle.ones([2]))
    with pytest.raises(ValueError, match="unfold"):
        paddle.unfold(paddle.ones([2, 3]), 1, 4, 1)


def test_in_place_forms():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.index_fill_(paddle.to_tensor([1]), 0, 0.0) is x
    np.testing.assert_array_equal(x.numpy(), [[1, 2], [0, 0]])
    y = paddle.to_tensor([4, 9])
    paddle.gcd_(y, paddle.to_tensor([6, 6]))
    np.testing.assert_array_equal(y.numpy(), [2, 3])
    z = paddle.zeros([2, 3])
    z.scatter_add_(1, paddle.to_tensor([[0, 0], [2, 1]]), paddle.ones([2, 2]))
    np.testing.assert_array_equal(z.numpy(), [[2, 0, 0], [0, 1, 1]])
    w = paddle.to_tensor([1.0, 5.0])
    w.less_(paddle.to_tensor([2.0, 2.0]))
    np.testing.assert_array_equal(w.numpy(), [1.0, 0.0])
