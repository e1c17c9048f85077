"""Linear algebra ops (matmul family, dot, outer, einsum, linalg.inv/norm): eager vs numpy,
static vs eager, and build-time shape errors."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import run_static


def build(fn, *shapes, dtype="float32"):
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        return fn(*[paddle.static.data(f"x{i}", s, dtype) for i, s in enumerate(shapes)])


def check(fn, ref, *arrays, rtol=1e-5):
    eager = fn(*[paddle.to_tensor(a) for a in arrays])
    expected = np.asarray(ref(*arrays))
    assert eager.shape == list(expected.shape) and eager.dtype == str(expected.dtype)
    np.testing.assert_allclose(eager.numpy(), expected, rtol=rtol, atol=1e-5)
    for shapes in (None, [[None] * a.ndim for a in arrays]):
        static = run_static(fn, *arrays, shapes=shapes)
        assert static.dtype == expected.dtype and static.shape == expected.shape
        np.testing.assert_allclose(static, eager.numpy(), rtol=rtol, atol=1e-6)


RNG = np.random.default_rng(2)


def r(*shape):
    return RNG.normal(size=shape).astype("float32")


CASES = [
    ("matmul", paddle.matmul, np.matmul, (r(3, 4), r(4, 5))),
    ("matmul_batch_bcast", paddle.matmul, np.matmul, (r(2, 3, 4), r(4, 5))),
    ("matmul_vec", paddle.matmul, np.matmul, (r(4), r(2, 4, 3))),
    ("matmul_mat_vec", paddle.matmul, np.matmul, (r(3, 4), r(4))),
    ("matmul_vec_vec", paddle.matmul, np.matmul, (r(4), r(4))),
    ("matmul_tx", lambda x, y: paddle.matmul(x, y, transpose_x=True), lambda a, b: a.T @ b,
     (r(4, 3), r(4, 2))),
    ("matmul_ty", lambda x, y: paddle.matmul(x, y, transpose_y=True),
     lambda a, b: a @ np.swapaxes(b, -1, -2), (r(2, 3, 4), r(2, 5, 4))),
    ("mm", paddle.mm, np.matmul, (r(2, 3), r(3, 2))),
    ("bmm", paddle.bmm, np.matmul, (r(2, 2, 3), r(2, 3, 4))),
    ("dot_1d", paddle.dot, lambda a, b: np.asarray(np.dot(a, b)), (r(5), r(5))),
    ("dot_2d", paddle.dot, lambda a, b: (a * b).sum(-1), (r(3, 5), r(3, 5))),
    ("outer", paddle.outer, np.outer, (r(3), r(4))),
    ("outer_flattens", paddle.outer, np.outer, (r(2, 2), r(3))),
    ("einsum_mm", lambda x, y: paddle.einsum("ij,jk->ik", x, y),
     lambda a, b: np.einsum("ij,jk->ik", a, b), (r(2, 3), r(3, 4))),
    ("einsum_implicit", lambda x, y: paddle.einsum("ij,jk", x, y),
     lambda a, b: np.einsum("ij,jk", a, b), (r(2, 3), r(3, 4))),
    ("einsum_batch_ellipsis", lambda x, y: paddle.einsum("...ij,...jk->...ik", x, y),
     lambda a, b: np.einsum("...ij,...jk->...ik", a, b), (r(2, 2, 3), r(2, 3, 4))),
    ("einsum_trace", lambda x: paddle.einsum("ii->", x), lambda a: np.asarray(np.einsum("ii->", a)),
     (r(3, 3),)),
    ("einsum_transpose", lambda x: paddle.einsum("ijk->kji", x),
     lambda a: np.einsum("ijk->kji", a), (r(2, 3, 4),)),
    ("einsum_outer_sum", lambda x, y: paddle.einsum("i,j->", x, y),
     lambda a, b: np.asarray(np.einsum("i,j->", a, b)), (r(3), r(4))),
]


@pytest.mark.parametrize("name,fn,ref,arrays", CASES, ids=[c[0] for c in CASES])
def test_linalg(name, fn, ref, arrays):
    check(fn, ref, *arrays, rtol=1e-4)


def test_matmul_shape_error_at_build_time():
    with pytest.raises(ValueError, match=r"matmul.*\[3, 4\].*\[5, 6\]"):
        build(paddle.matmul, [3, 4], [5, 6])
    with pytest.raises(ValueError, match=r"\[3, 4\].*\[5, 6\]"):
        paddle.matmul(paddle.to_tensor(r(3, 4)), paddle.to_tensor(r(5, 6)))
    # an unknown contracted dim is accepted and checked when run
    assert build(paddle.matmul, [3, -1], [5, 6])._shape == (3, 6)
    assert build(paddle.matmul, [-1, 3, 4], [4, -1])._shape == (-1, 3, -1)


def test_dot_and_einsum_errors():
    with pytest.raises(ValueError, match=r"dot.*\[3\].*\[4\]"):
        build(paddle.dot, [3], [4])
    with pytest.raises(ValueError, match=r"einsum.*'j'.*3.*5"):
        build(lambda x, y: paddle.einsum("ij,jk->ik", x, y), [2, 3], [5, 4])
    assert build(lambda x, y: paddle.einsum("ij,jk->ik", x, y), [-1, 3], [3, -1])._shape == (-1, -1)
    with pytest.raises(ValueError, match="operands"):
        build(lambda x: paddle.einsum("ij,jk->ik", x), [2, 3])


def test_int_matmul_and_promotion():
    a = np.arange(6).reshape(2, 3)
    out = paddle.matmul(paddle.to_tensor(a), paddle.to_tensor(a.T.copy()))
    assert out.dtype == "int64" and out.numpy().tolist() == (a @ a.T).tolist()
    mixed = paddle.matmul(paddle.to_tensor(a), paddle.to_tensor(a.T.astype("float32")))
    assert mixed.dtype == "float32"


def test_inv():
    a = r(3, 3) + 3 * np.eye(3, dtype="float32")
    check(paddle.linalg.inv, np.linalg.inv, a, rtol=1e-4)
    batch = np.stack([a, a.T])
    check(paddle.linalg.inv, np.linalg.inv, batch, rtol=1e-4)
    with pytest.raises(ValueError, match=r"inv.*\[3, 4\]"):
        build(paddle.linalg.inv, [3, 4])
    with pytest.raises(TypeError, match="float"):
        build(paddle.linalg.inv, [2, 2], dtype="int64")


def test_linalg_namespace():
    import dy2st.linalg as la
    assert la.norm is paddle.linalg.norm and la.inv is paddle.linalg.inv
    x = paddle.to_tensor(np.array([[3.0, 4.0]], "float32"))
    assert float(paddle.linalg.norm(x)) == pytest.approx(5.0)
    assert paddle.linalg.norm(x, p=1, axis=1).numpy().tolist() == [7.0]
    np.testing.assert_allclose(x.matmul(x.T).numpy(), [[25.0]])
