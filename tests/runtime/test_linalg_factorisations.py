"""paddle.linalg.lu / lu_unpack / matrix_exp / householder_product / ormqr / svd_lowrank /
pca_lowrank against numpy written by hand: eager, static with an unknown batch dim, and
to_static + jit.save / jit.load."""
import math

import numpy as np
import pytest

import dy2st as paddle
from tests.support import run_static, three_modes

L = paddle.linalg
R = np.random.default_rng(11)
SQ = R.standard_normal((3, 4, 4))
TALL = R.standard_normal((2, 5, 3))
WIDE = R.standard_normal((2, 3, 5))


# ----------------------------------------------------------------------------- references
def lu_reference(a):
    """Row-by-row Gaussian elimination with partial pivoting on one matrix (LAPACK getrf's
    result: packed L\\U and 1-based pivots)."""
    a = np.array(a, dtype=np.float64)
    m, n = a.shape
    piv = []
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        piv.append(p + 1)
        a[[j, p]] = a[[p, j]]
        for i in range(j + 1, m):
            a[i, j] /= a[j, j]
            a[i, j + 1:] -= a[i, j] * a[j, j + 1:]
    return a, np.array(piv)


def permutation_reference(piv, m):
    """P with A = P L U: apply the swaps to the rows of the identity, then transpose."""
    p = np.eye(m)
    for i, s in enumerate(piv):
        p[[i, s - 1]] = p[[s - 1, i]]
    return p.T


def expm_reference(a, terms=40):
    """exp(a) by its Taylor series after halving a until its norm is below 1/2, then squaring."""
    s = max(0, int(math.ceil(math.log2(max(np.abs(a).sum(0).max(), 1e-12) / 0.5))))
    b = a / 2 ** s
    out, term = np.eye(len(a)), np.eye(len(a))
    for k in range(1, terms):
        term = term @ b / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


def reflectors_reference(x, tau):
    """H_1 ... H_k as a full m x m matrix, each H_i = I - tau_i v_i v_i^T built explicitly."""
    m = x.shape[0]
    q = np.eye(m)
    for i in range(len(tau)):
        v = np.zeros(m)
        v[i] = 1.0
        v[i + 1:] = x[i + 1:, i]
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
    return q


def householder_of(a):
    """numpy's raw QR: the reflectors (below the diagonal) and their scalars."""
    h, tau = np.linalg.qr(a, mode="raw")
    return h.T.copy(), tau


# ----------------------------------------------------------------------------- lu
def test_lu_matches_paddle_doc_example():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype="float64")
    lu, piv, info = L.lu(x, get_infos=True)
    np.testing.assert_allclose(lu.numpy(), [[5.0, 6.0], [0.2, 0.8], [0.6, 0.5]], atol=1e-12)
    assert piv.numpy().tolist() == [3, 3] and str(piv.dtype) == "paddle.int32"
    assert int(info.numpy()) == 0 and info.shape == []
    p, low, up = L.lu_unpack(lu, piv)
    np.testing.assert_allclose(p.numpy(), [[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    np.testing.assert_allclose((p @ low @ up).numpy(), x.numpy(), atol=1e-12)


@pytest.mark.parametrize("a", [SQ, TALL, WIDE], ids=["square", "tall", "wide"])
def test_lu_eager_matches_elimination_by_hand(a):
    lu, piv = L.lu(paddle.to_tensor(a))
    for b in range(len(a)):
        want_lu, want_piv = lu_reference(a[b])
        np.testing.assert_allclose(lu.numpy()[b], want_lu, rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(piv.numpy()[b], want_piv)
    m, n = a.shape[-2:]
    k = min(m, n)
    p, low, up = L.lu_unpack(lu, piv)
    assert p.shape == [len(a), m, m] and low.shape == [len(a), m, k] and up.shape == [len(a), k, n]
    for b in range(len(a)):
        np.testing.assert_allclose(p.numpy()[b], permutation_reference(piv.numpy()[b], m))
    np.testing.assert_allclose(np.tril(low.numpy(), -1) + np.eye(m, k), low.numpy())
    np.testing.assert_allclose(np.triu(up.numpy()), up.numpy())
    np.testing.assert_allclose((p @ low @ up).numpy(), a, atol=1e-12)


def test_lu_infos_flag_exactly_singular_matrices():
    singular = np.array([[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
                         [[2.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 4.0]]])
    lu, piv, info = L.lu(paddle.to_tensor(singular), get_infos=True)
    assert info.numpy().tolist() == [3, 0]
    p, low, up = L.lu_unpack(lu, piv)
    np.testing.assert_allclose((p @ low @ up).numpy(), singular, atol=1e-12)


def test_lu_without_pivoting_is_plain_elimination():
    a = SQ[0] + 8 * np.eye(4)          # diagonally dominant: no pivot needed
    lu, piv = L.lu(paddle.to_tensor(a), pivot=False)
    assert piv.numpy().tolist() == [1, 2, 3, 4]
    _, low, up = L.lu_unpack(lu, piv)
    np.testing.assert_allclose(low.numpy() @ up.numpy(), a, atol=1e-12)


def test_lu_unpack_flags_return_empty_tensors():
    lu, piv = L.lu(paddle.to_tensor(SQ))
    p, low, up = L.lu_unpack(lu, piv, unpack_ludata=False)
    assert p.shape == [3, 4, 4] and low.shape == [0] and up.shape == [0]
    p, low, up = L.lu_unpack(lu, piv, unpack_pivots=False)
    assert p.shape == [0] and low.shape == [3, 4, 4]


def test_lu_methods_and_static_with_unknown_batch():
    def fn(a):
        lu, piv, info = a.lu(get_infos=True)
        p, low, up = lu.lu_unpack(piv)
        return lu, piv, info, p @ low @ up

    got = run_static(fn, TALL, shapes=[[None, 5, 3]])
    want = [lu_reference(t) for t in TALL]
    np.testing.assert_allclose(got[0], np.stack([w[0] for w in want]), atol=1e-12)
    np.testing.assert_array_equal(got[1], np.stack([w[1] for w in want]))
    assert got[2].tolist() == [0, 0]
    np.testing.assert_allclose(got[3], TALL, atol=1e-12)


def test_lu_bad_inputs_are_named():
    with pytest.raises(ValueError, match="lu: the input must be a"):
        L.lu(paddle.ones([3]))
    with pytest.raises(TypeError, match="float"):
        L.lu(paddle.ones([2, 2], "int64"))
    lu, piv = L.lu(paddle.to_tensor(SQ[0]))
    with pytest.raises(ValueError, match="pivots must lie in"):
        L.lu_unpack(lu, piv + 10)


# ----------------------------------------------------------------------------- matrix_exp
@pytest.mark.parametrize("scale", [0.1, 1.0, 6.0], ids=["small", "unit", "squared"])
def test_matrix_exp_matches_taylor_series(scale):
    a = scale * SQ
    got = L.matrix_exp(paddle.to_tensor(a)).numpy()
    for b in range(len(a)):
        np.testing.assert_allclose(got[b], expm_reference(a[b]), rtol=1e-9, atol=1e-12)


def test_matrix_exp_known_closed_forms():
    sym = SQ[0] + SQ[0].T
    w, v = np.linalg.eigh(sym)
    np.testing.assert_allclose(L.matrix_exp(paddle.to_tensor(sym)).numpy(),
                               (v * np.exp(w)) @ v.T, rtol=1e-10)
    rot = np.array([[0.0, -1.3], [1.3, 0.0]])         # exp of a rotation generator
    want = [[np.cos(1.3), -np.sin(1.3)], [np.sin(1.3), np.cos(1.3)]]
    np.testing.assert_allclose(L.matrix_exp(paddle.to_tensor(rot)).numpy(), want, atol=1e-14)
    nil = np.triu(SQ[1], 1)                           # nilpotent: the series stops
    want = np.eye(4) + nil + nil @ nil / 2 + nil @ nil @ nil / 6
    np.testing.assert_allclose(L.matrix_exp(paddle.to_tensor(nil)).numpy(), want, atol=1e-12)
    got32 = L.matrix_exp(paddle.to_tensor(sym.astype("float32")))
    assert str(got32.dtype) == "paddle.float32"


def test_matrix_exp_refuses_non_square_and_nan():
    with pytest.raises(ValueError, match="square"):
        L.matrix_exp(paddle.ones([2, 3]))
    with pytest.raises(ValueError, match="inf or nan"):
        L.matrix_exp(paddle.to_tensor([[float("nan"), 0.0], [0.0, 1.0]]))


# ----------------------------------------------------------------------------- householder
def test_householder_product_rebuilds_numpy_qr():
    a = TALL[0]
    h, tau = householder_of(a)
    got = L.householder_product(paddle.to_tensor(h), paddle.to_tensor(tau)).numpy()
    np.testing.assert_allclose(got, np.linalg.qr(a)[0], atol=1e-12)
    np.testing.assert_allclose(got, reflectors_reference(h, tau)[:, :3], atol=1e-12)


def test_householder_product_batched_and_fewer_reflectors():
    x = R.standard_normal((2, 5, 3))
    tau = R.uniform(0.5, 1.5, (2, 2))
    got = paddle.to_tensor(x).householder_product(paddle.to_tensor(tau)).numpy()
    for b in range(2):
        np.testing.assert_allclose(got[b], reflectors_reference(x[b], tau[b])[:, :3], atol=1e-12)


@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, False),
                                            (False, True)])
def test_ormqr_multiplies_by_q(left, transpose):
    x = R.standard_normal((2, 4, 3))
    tau = R.uniform(0.5, 1.5, (2, 3))
    y = R.standard_normal((2, 4, 2) if left else (2, 2, 4))
    got = L.ormqr(paddle.to_tensor(x), paddle.to_tensor(tau), paddle.to_tensor(y), left=left,
                  transpose=transpose).numpy()
    for b in range(2):
        q = reflectors_reference(x[b], tau[b])
        q = q.T if transpose else q
        np.testing.assert_allclose(got[b], q @ y[b] if left else y[b] @ q, atol=1e-12)


def test_householder_bad_inputs_are_named():
    with pytest.raises(ValueError, match="at most min"):
        L.householder_product(paddle.ones([4, 2]), paddle.ones([3]))
    with pytest.raises(ValueError, match="one dim less"):
        L.householder_product(paddle.ones([4, 2]), paddle.ones([1, 1, 2]))
    with pytest.raises(ValueError, match="ormqr: y must have 4 rows"):
        L.ormqr(paddle.ones([4, 2]), paddle.ones([2]), paddle.ones([3, 3]))


# ----------------------------------------------------------------------------- low rank
def _low_rank(batch, m, n, r):
    return R.standard_normal((batch, m, r)) @ R.standard_normal((batch, r, n))


def test_svd_lowrank_is_exact_for_low_rank_input():
    paddle.seed(5)
    a = _low_rank(2, 8, 6, 3)
    u, s, v = L.svd_lowrank(paddle.to_tensor(a), q=4)
    assert u.shape == [2, 8, 4] and s.shape == [2, 4] and v.shape == [2, 6, 4]
    want_s = np.linalg.svd(a, compute_uv=False)[:, :4]
    np.testing.assert_allclose(s.numpy(), want_s, atol=1e-9)
    recon = (u.numpy() * s.numpy()[:, None, :]) @ v.numpy().transpose(0, 2, 1)
    np.testing.assert_allclose(recon, a, atol=1e-9)
    np.testing.assert_allclose(u.numpy().transpose(0, 2, 1) @ u.numpy(),
                               np.broadcast_to(np.eye(4), (2, 4, 4)), atol=1e-9)


def test_svd_lowrank_subtracts_m():
    paddle.seed(6)
    base = _low_rank(1, 7, 5, 2)[0]
    shift = R.standard_normal((7, 5))
    u, s, v = L.svd_lowrank(paddle.to_tensor(base + shift), q=2, M=paddle.to_tensor(shift))
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, base, atol=1e-9)


def test_pca_lowrank_centres_columns():
    paddle.seed(7)
    a = _low_rank(1, 9, 5, 2)[0] + 3.0
    u, s, v = L.pca_lowrank(paddle.to_tensor(a), q=3)
    centred = a - a.mean(axis=0)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(centred, compute_uv=False)[:3],
                               atol=1e-9)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, centred, atol=1e-9)
    assert L.pca_lowrank(paddle.to_tensor(a))[1].shape == [5]      # q = min(6, m, n)


def test_lowrank_bad_q_is_named():
    with pytest.raises(ValueError, match="q must be in"):
        L.svd_lowrank(paddle.ones([4, 3]), q=5)


# ----------------------------------------------------------------------------- static / saved
def _all_ops(a, h, tau, y):
    lu, piv = L.lu(a)
    p, low, up = L.lu_unpack(lu, piv)
    return (lu, piv, p @ low @ up, L.matrix_exp(a), L.householder_product(h, tau),
            L.ormqr(h, tau, y, transpose=True))


def test_static_and_save_load_with_unknown_batch(tmp_path):
    a = SQ[:2].astype("float32")
    h = np.stack([householder_of(t)[0] for t in TALL]).astype("float32")
    tau = np.stack([householder_of(t)[1] for t in TALL]).astype("float32")
    y = R.standard_normal((2, 5, 2)).astype("float32")
    lu_want = [lu_reference(t) for t in a]
    q_full = [reflectors_reference(hb, tb) for hb, tb in zip(h, tau)]
    want = [np.stack([w[0] for w in lu_want]), np.stack([w[1] for w in lu_want]), a,
            np.stack([expm_reference(t) for t in a.astype("float64")]),
            np.stack([np.linalg.qr(t)[0] for t in TALL]),
            np.stack([q.T @ yb for q, yb in zip(q_full, y)])]
    specs = [[None, 4, 4], [None, 5, 3], [None, 3], [None, 5, 2]]
    for mode in three_modes(_all_ops, [a, h, tau, y], specs, tmp_path):
        for got, w in zip(mode, want):
            np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-4)
    static = run_static(_all_ops, a, h, tau, y, shapes=specs)
    np.testing.assert_array_equal(static[1], want[1])
    np.testing.assert_allclose(static[3], want[3], rtol=1e-4)


def test_svd_lowrank_static_with_unknown_batch():
    paddle.seed(8)
    a = _low_rank(3, 6, 5, 2)
    u, s, v = run_static(lambda t: L.svd_lowrank(t, q=3, niter=1), a, shapes=[[None, 6, 5]])
    np.testing.assert_allclose((u * s[:, None, :]) @ v.transpose(0, 2, 1), a, atol=1e-9)
