"""paddle.linalg: the decomposition ops and the functions composed from them, against numpy
(eager, static with an unknown batch dim, and jit.save / jit.load)."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import run_static, three_modes

L = paddle.linalg
R = np.random.default_rng(3)
SQ = R.standard_normal((2, 3, 3)) + 3 * np.eye(3)
SPD = SQ @ SQ.transpose(0, 2, 1) + np.eye(3)
TALL = R.standard_normal((2, 4, 3))
B = R.standard_normal((2, 3, 2))


def _abs_vectors(pair):
    # eigen / singular vectors are unique up to sign
    return [np.abs(v) for v in pair]


CASES = [
    ("det", L.det, [SQ], lambda a: np.linalg.det(a)),
    ("slogdet", L.slogdet, [SQ], lambda a: np.stack(np.linalg.slogdet(a))),
    ("cholesky", L.cholesky, [SPD], np.linalg.cholesky),
    ("cholesky_upper", lambda a: L.cholesky(a, upper=True), [SPD],
     lambda a: np.linalg.cholesky(a).transpose(0, 2, 1)),
    ("eigh", lambda a: [L.eigh(a)[0], paddle.abs(L.eigh(a)[1])], [SPD],
     lambda a: [np.linalg.eigh(a)[0], np.abs(np.linalg.eigh(a)[1])]),
    ("eigvalsh", L.eigvalsh, [SPD], np.linalg.eigvalsh),
    ("svd", lambda a: [paddle.abs(L.svd(a)[0]), L.svd(a)[1], paddle.abs(L.svd(a)[2])], [TALL],
     lambda a: [np.abs(np.linalg.svd(a, full_matrices=False)[0]),
                np.linalg.svd(a, full_matrices=False)[1],
                np.abs(np.linalg.svd(a, full_matrices=False)[2])]),
    ("qr", lambda a: [paddle.abs(t) for t in L.qr(a)], [TALL],
     lambda a: [np.abs(t) for t in np.linalg.qr(a)]),
    ("inv", L.inv, [SQ], np.linalg.inv),
    ("solve", L.solve, [SQ, B], np.linalg.solve),
    ("pinv", L.pinv, [TALL], np.linalg.pinv),
    ("matrix_power", lambda a: L.matrix_power(a, 3), [SQ],
     lambda a: np.linalg.matrix_power(a, 3)),
    ("matrix_power_neg", lambda a: L.matrix_power(a, -2), [SQ],
     lambda a: np.linalg.matrix_power(a, -2)),
    ("multi_dot", lambda a, b: L.multi_dot([a, a, b]), [SQ[0], B[0]],
     lambda a, b: a @ a @ b),
    ("cond", L.cond, [SQ], np.linalg.cond),
    ("cond_fro", lambda a: L.cond(a, "fro"), [SQ], lambda a: np.linalg.cond(a, "fro")),
    ("cond_inf", lambda a: L.cond(a, float("inf")), [SQ], lambda a: np.linalg.cond(a, np.inf)),
    ("matrix_rank", L.matrix_rank, [TALL], np.linalg.matrix_rank),
    ("norm_fro", lambda a: L.norm(a, p="fro", axis=[-2, -1]), [SQ],
     lambda a: np.linalg.norm(a, "fro", axis=(-2, -1))),
    ("lstsq", lambda a, b: list(L.lstsq(a, b)[:2]), [TALL[0], R.standard_normal((4, 2))],
     lambda a, b: list(np.linalg.lstsq(a, b, rcond=None)[:2])),
    ("cov", L.cov, [TALL[0]], np.cov),
    ("matrix_transpose", L.matrix_transpose, [TALL], lambda a: a.transpose(0, 2, 1)),
    ("vecdot", L.vecdot, [TALL, TALL[::-1]], lambda a, b: (a * b).sum(-1)),
    ("cholesky_inverse", L.cholesky_inverse, [np.linalg.cholesky(SPD)], lambda c: np.linalg.inv(SPD)),
]


def _list(out):
    return [np.asarray(o.numpy()) for o in out] if isinstance(out, (list, tuple)) \
        else [np.asarray(out.numpy())]


@pytest.mark.parametrize("name,fn,inputs,ref", CASES, ids=[c[0] for c in CASES])
def test_eager_matches_numpy(name, fn, inputs, ref):
    got = _list(fn(*map(paddle.to_tensor, inputs)))
    want = ref(*inputs)
    want = want if isinstance(want, list) else [want]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name,fn,inputs,ref", [c for c in CASES if c[2][0].ndim == 3],
                         ids=[c[0] for c in CASES if c[2][0].ndim == 3])
def test_static_with_unknown_batch_matches_numpy(name, fn, inputs, ref):
    shapes = [[None] + list(a.shape[1:]) for a in inputs]
    got = run_static(fn, *inputs, shapes=shapes)
    got = got if isinstance(got, list) else [got]
    want = ref(*inputs)
    want = want if isinstance(want, list) else [want]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9)


def _solve_and_det(a, b):
    return L.solve(a, b) * L.det(a).unsqueeze(-1).unsqueeze(-1)


def test_save_load_round_trip(tmp_path):
    a, b = SQ.astype("float32"), B.astype("float32")
    want = np.linalg.solve(a, b) * np.linalg.det(a)[:, None, None]
    for (out,) in three_modes(_solve_and_det, [a, b], [[None, 3, 3], [None, 3, 2]], tmp_path):
        np.testing.assert_allclose(out, want, rtol=1e-4)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="square"):
        L.det(paddle.ones([2, 3]))
    with pytest.raises(ValueError, match="positive definite"):
        L.cholesky(paddle.to_tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="UPLO"):
        L.eigh(paddle.eye(2), UPLO="X")
    with pytest.raises(TypeError, match="float"):
        L.det(paddle.ones([2, 2], "int64"))


def _decompositions(spd, tall):
    w, v = L.eigh(spd)
    u, s, vh = L.svd(tall)
    q, r = L.qr(tall)
    return (L.slogdet(spd), L.cholesky(spd), w, paddle.abs(v), s,
            paddle.matmul(u, vh), paddle.matmul(q, r))


def test_decomposition_ops_save_and_load(tmp_path):
    spd, tall = SPD.astype("float32"), TALL.astype("float32")
    u, s, vh = np.linalg.svd(tall, full_matrices=False)
    want = [np.stack(np.linalg.slogdet(spd)), np.linalg.cholesky(spd), np.linalg.eigh(spd)[0],
            np.abs(np.linalg.eigh(spd)[1]), s, u @ vh, tall]
    for outs in three_modes(_decompositions, [spd, tall], [[None, 3, 3], [None, 4, 3]], tmp_path):
        for got, ref in zip(outs, want):
            np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)
