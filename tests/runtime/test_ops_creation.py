"""Creation ops, eager against numpy and static against eager (incl. random ops and tensor shapes)."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import run_static


def build_only(fn):
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        return fn()


CASES = [
    ("linspace", lambda: paddle.linspace(0, 1, 5), np.linspace(0, 1, 5).astype("float32")),
    ("linspace64", lambda: paddle.linspace(-2, 3, 4, dtype="float64"), np.linspace(-2, 3, 4)),
    ("linspace_int", lambda: paddle.linspace(0, 10, 6, dtype="int64"),
     np.linspace(0, 10, 6).astype("int64")),
    ("arange", lambda: paddle.arange(1, 10, 3), np.arange(1, 10, 3)),
    ("arange_float", lambda: paddle.arange(0, 1, 0.25), np.arange(0, 1, 0.25).astype("float32")),
    ("eye", lambda: paddle.eye(2, 3), np.eye(2, 3, dtype="float32")),
    ("full", lambda: paddle.full([2, 2], 7, "int32"), np.full([2, 2], 7, "int32")),
    ("zeros", lambda: paddle.zeros([3]), np.zeros(3, "float32")),
    ("ones_bool", lambda: paddle.ones([2], "bool"), np.ones(2, bool)),
]


@pytest.mark.parametrize("name,fn,ref", CASES, ids=[c[0] for c in CASES])
def test_creation_eager_and_static(name, fn, ref):
    eager = fn().numpy()
    assert eager.dtype == ref.dtype
    np.testing.assert_allclose(eager, ref, rtol=1e-6)
    static = run_static(lambda: fn())
    assert static.dtype == ref.dtype
    np.testing.assert_allclose(static, eager, rtol=1e-6)


def test_linspace_tensor_num_static():
    out = run_static(lambda n: paddle.linspace(0.0, 2.0, n), np.array(5, "int64"), shapes=[[]])
    np.testing.assert_allclose(out, np.linspace(0, 2, 5).astype("float32"))
    assert build_only(lambda: paddle.linspace(0, 1, 7))._shape == (7,)


TRI = [
    ("tril", lambda x: paddle.tril(x), lambda a: np.tril(a)),
    ("tril_k", lambda x: paddle.tril(x, 1), lambda a: np.tril(a, 1)),
    ("triu", lambda x: paddle.triu(x), lambda a: np.triu(a)),
    ("triu_neg", lambda x: paddle.triu(x, -1), lambda a: np.triu(a, -1)),
    ("diag_2d", lambda x: paddle.diag(x), lambda a: np.diag(a)),
    ("diag_2d_off", lambda x: paddle.diag(x, 1), lambda a: np.diag(a, 1)),
    ("diag_2d_neg", lambda x: paddle.diag(x, -2), lambda a: np.diag(a, -2)),
]


@pytest.mark.parametrize("name,fn,ref", TRI, ids=[c[0] for c in TRI])
def test_matrix_creation(name, fn, ref):
    a = np.arange(12, dtype="float32").reshape(3, 4) + 1
    eager = fn(paddle.to_tensor(a)).numpy()
    np.testing.assert_array_equal(eager, ref(a))
    np.testing.assert_array_equal(run_static(fn, a), eager)
    np.testing.assert_array_equal(run_static(fn, a, shapes=[[None, 4]]), eager)


def test_tril_batched_and_static_unknown():
    a = np.random.default_rng(0).random((2, 3, 3)).astype("float32")
    np.testing.assert_array_equal(paddle.tril(paddle.to_tensor(a)).numpy(), np.tril(a))
    np.testing.assert_array_equal(run_static(paddle.triu, a, shapes=[[None, 3, 3]]), np.triu(a))


@pytest.mark.parametrize("offset", [0, 1, -2])
def test_diag_from_vector(offset):
    v = np.array([1, 2, 3], "int64")
    eager = paddle.diag(paddle.to_tensor(v), offset, padding_value=9).numpy()
    ref = np.diag(v, offset)
    ref[ref == 0] = 9
    np.testing.assert_array_equal(eager, ref)
    np.testing.assert_array_equal(
        run_static(lambda x: paddle.diag(x, offset, padding_value=9), v, shapes=[[None]]), eager)


def test_diag_static_shapes():
    def build():
        x = paddle.static.data("x", [3, 5], "float32")
        return paddle.diag(x, 1)._shape, paddle.diag(x, -1)._shape, paddle.diag(x, 9)._shape
    assert build_only(build) == ((3,), (2,), (0,))


def test_tril_rank_error():
    with pytest.raises(ValueError, match="tril"):
        build_only(lambda: paddle.tril(paddle.static.data("x", [3], "float32")))


def test_meshgrid():
    a, b = np.arange(3, dtype="float32"), np.arange(4, dtype="float32") * 10
    ga, gb = paddle.meshgrid(paddle.to_tensor(a), paddle.to_tensor(b))
    ra, rb = np.meshgrid(a, b, indexing="ij")
    np.testing.assert_array_equal(ga.numpy(), ra)
    np.testing.assert_array_equal(gb.numpy(), rb)
    sa, sb = run_static(lambda x, y: paddle.meshgrid([x, y]), a, b, shapes=[[None], [None]])
    np.testing.assert_array_equal(sa, ra)
    np.testing.assert_array_equal(sb, rb)


# ----------------------------------------------------------------------------- random
RANDOM = [
    ("rand", lambda: paddle.rand([3, 4]), "float32", (3, 4)),
    ("rand64", lambda: paddle.rand([5], dtype="float64"), "float64", (5,)),
    ("randn", lambda: paddle.randn([2, 3]), "float32", (2, 3)),
    ("randint", lambda: paddle.randint(2, 9, [4, 4]), "int64", (4, 4)),
    ("randint_high_none", lambda: paddle.randint(5, shape=[6], dtype="int32"), "int32", (6,)),
    ("uniform", lambda: paddle.uniform([7], min=2.0, max=3.0), "float32", (7,)),
    ("normal", lambda: paddle.normal(1.0, 2.0, [3]), "float32", (3,)),
]


@pytest.mark.parametrize("name,fn,dtype,shape", RANDOM, ids=[c[0] for c in RANDOM])
def test_random_seeded_eager_matches_static(name, fn, dtype, shape):
    paddle.seed(123)
    first = fn().numpy()
    paddle.seed(123)
    again = fn().numpy()
    assert first.dtype == dtype and first.shape == shape
    np.testing.assert_array_equal(first, again)
    # The static op must draw when run, with the same generator: same seed, same numbers.
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        out = fn()
    exe = paddle.static.Executor()
    paddle.seed(123)
    s1 = exe.run(main, feed={}, fetch_list=[out])[0]
    s2 = exe.run(main, feed={}, fetch_list=[out])[0]
    np.testing.assert_array_equal(s1, first)
    assert not np.array_equal(s1, s2), "a random op must not be baked into the program"


def test_random_ranges():
    paddle.seed(0)
    u = paddle.uniform([1000], min=2.0, max=3.0).numpy()
    assert u.min() >= 2.0 and u.max() < 3.0
    r = paddle.rand([1000]).numpy()
    assert r.min() >= 0.0 and r.max() < 1.0
    i = paddle.randint(-3, 4, [1000]).numpy()
    assert i.min() == -3 and i.max() == 3
    n = paddle.randn([20000]).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05


def test_random_with_tensor_shape_static():
    out = run_static(lambda x: paddle.rand([x.shape[0], 2]), np.zeros((5, 1), "float32"),
                     shapes=[[None, 1]])
    assert out.shape == (5, 2)
    out = run_static(lambda x: paddle.randn(paddle.shape(x)), np.zeros((2, 3), "float32"),
                     shapes=[[None, None]])
    assert out.shape == (2, 3) and out.dtype == np.float32


def test_normal_with_tensor_mean():
    paddle.seed(1)
    mean = paddle.to_tensor(np.array([0.0, 100.0, -100.0], "float32"))
    out = paddle.normal(mean, 0.5).numpy()
    assert out.shape == (3,) and np.all(np.abs(out - mean.numpy()) < 5)


def test_randint_errors():
    with pytest.raises(ValueError, match="high"):
        paddle.randint(5, 5, [2])


def test_full_with_tensor_dims_static():
    out = run_static(lambda x: paddle.full([x.shape[0], 3], 2.5), np.zeros((4,), "float32"),
                     shapes=[[None]])
    np.testing.assert_array_equal(out, np.full((4, 3), 2.5, "float32"))


def test_is_tensor():
    assert paddle.is_tensor(paddle.to_tensor([1]))
    assert not paddle.is_tensor(np.array([1]))
    assert build_only(lambda: paddle.is_tensor(paddle.static.data("x", [1], "float32")))


def test_to_tensor_with_a_float64_dtype_keeps_python_floats_exact():
    import dy2st as _paddle
    assert _paddle.to_tensor([0.3], "float64").numpy()[0] == 0.3
    assert _paddle.to_tensor(0.1, dtype="float64").numpy() == 0.1
    assert _paddle.to_tensor([0.3]).dtype == _paddle.float32


def stacked_items(x):
    t = paddle.to_tensor([x.sum(), x.mean(), x.max()])
    return t * 2.0 + x.sum()


@pytest.mark.parametrize("full_graph", [True, False])
def test_to_tensor_of_a_list_of_traced_tensors_stops_the_gradient(full_graph):
    # eagerly (and in Paddle 3.3.1, both modes) the stacked copy is a new leaf: only the
    # `+ x.sum()` reaches x; a traced stack let the items' gradients through too
    data = np.arange(6, dtype="float32").reshape(2, 3)
    grads = []
    for call in (stacked_items, paddle.jit.to_static(stacked_items, full_graph=full_graph)):
        x = paddle.to_tensor(data, stop_gradient=False)
        out = call(x)
        assert out.stop_gradient is False
        out.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0])
    np.testing.assert_allclose(grads[0], np.full((2, 3), 3.0))
