"""poisson, binomial, standard_gamma and the in-place fills bernoulli_, cauchy_, geometric_,
log_normal_ and random_: checked by moments and ranges with a fixed seed, eagerly and (for the
samplers) in a static Program that draws afresh on every run."""
import numpy as np
import pytest

import dy2st as paddle

N = 40000


def test_poisson_and_standard_gamma_moments():
    paddle.seed(3)
    lam = paddle.full([N], 3.5, "float64")
    draws = paddle.poisson(lam).numpy()
    assert draws.dtype == np.float64 and np.all(draws == np.floor(draws))
    assert abs(draws.mean() - 3.5) < 0.05 and abs(draws.var() - 3.5) < 0.1
    g = paddle.standard_gamma(paddle.full([N], 2.0)).numpy()
    assert g.dtype == np.float32 and g.min() > 0
    assert abs(g.mean() - 2.0) < 0.05 and abs(g.var() - 2.0) < 0.1


def test_binomial_broadcasts_and_is_int64():
    paddle.seed(4)
    out = paddle.binomial(paddle.to_tensor([[10], [40]]), paddle.full([2, N // 2], 0.25))
    assert out.dtype == paddle.int64 and out.shape == [2, N // 2]
    values = out.numpy()
    assert values.min() >= 0 and values[0].max() <= 10
    np.testing.assert_allclose(values.mean(1), [2.5, 10.0], atol=0.06)
    np.testing.assert_allclose(values.var(1), [10 * 0.25 * 0.75, 40 * 0.25 * 0.75], rtol=0.05)


def test_samplers_draw_on_every_static_run():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        lam = paddle.static.data("lam", [None], "float64")
        out = paddle.poisson(lam)
    exe = paddle.static.Executor()
    feed = {"lam": np.full(2000, 4.0)}
    first, = exe.run(main, feed=feed, fetch_list=[out])
    second, = exe.run(main, feed=feed, fetch_list=[out])
    assert first.shape == (2000,) and abs(first.mean() - 4.0) < 0.2
    assert not np.array_equal(first, second)


def test_in_place_fills():
    paddle.seed(5)
    x = paddle.zeros([N], "float64")
    assert x.bernoulli_(0.3) is x
    assert set(np.unique(x.numpy())) == {0.0, 1.0} and abs(x.numpy().mean() - 0.3) < 0.01
    x.cauchy_(loc=1.0, scale=2.0)
    q1, median, q3 = np.percentile(x.numpy(), [25, 50, 75])      # quartiles: loc -+ scale
    assert abs(median - 1.0) < 0.06 and abs(q1 + 1.0) < 0.1 and abs(q3 - 3.0) < 0.1
    x.log_normal_(mean=0.5, std=0.25)
    logs = np.log(x.numpy())
    assert abs(logs.mean() - 0.5) < 0.01 and abs(logs.std() - 0.25) < 0.01
    x.geometric_(0.4)        # Paddle's fill: log(u) / log(1 - p), mean -1 / log(1 - p)
    assert abs(x.numpy().mean() + 1 / np.log(0.6)) < 0.05 and x.numpy().min() >= 0
    ints = paddle.zeros([N], "int64")
    ints.random_(3, 7)
    assert set(np.unique(ints.numpy())) == {3, 4, 5, 6}
    bits = paddle.zeros([1000], "float32").random_()
    assert bits.numpy().max() > 2 ** 20 and np.all(bits.numpy() == np.floor(bits.numpy()))
    with pytest.raises(ValueError, match="random_"):
        paddle.zeros([2]).random_(5, 5)
    fn = paddle.bernoulli_           # also spelled as top-level functions
    y = paddle.ones([4])
    assert fn(y, 0.0) is y and y.numpy().sum() == 0


def test_fills_cut_the_old_gradient():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 2
    y.cauchy_()
    (y * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_samplers_refuse_int_rates():
    with pytest.raises(TypeError, match="poisson"):
        paddle.poisson(paddle.to_tensor([1, 2]))


def test_complex_fills_follow_paddle():
    # normal_: both parts N(mean, std / sqrt(2)); log_normal_: exp of that (Paddle 3.3.1)
    z = paddle.zeros([20000], "complex128")
    assert z.normal_(1.0, 2.0) is z and z.dtype == "complex128"
    v = z.numpy()
    for part in (v.real, v.imag):
        assert abs(part.mean() - 1.0) < 0.05 and abs(part.std() - 2 / np.sqrt(2)) < 0.05
    z.normal_(0.5 + 0.5j, 1.0)
    assert abs(z.numpy().imag.mean() - 0.5) < 0.05
    w = paddle.zeros([20000], "complex64")
    w.log_normal_(0.5, 0.4)
    logs = np.log(w.numpy().astype("complex128"))
    for part in (logs.real, logs.imag):
        assert abs(part.mean() - 0.5) < 0.02 and abs(part.std() - 0.4 / np.sqrt(2)) < 0.02
    with pytest.raises(ValueError, match="equal real and imaginary parts"):
        z.normal_(1 + 2j)
    with pytest.raises(TypeError, match="complex mean needs a complex tensor"):
        paddle.zeros([2]).normal_(1 + 1j)


@pytest.mark.parametrize("fill, args", [("uniform_", ()), ("exponential_", ()),
                                        ("bernoulli_", ()), ("cauchy_", ()),
                                        ("geometric_", (0.5,)), ("random_", (0, 5))])
def test_fills_without_a_complex_kernel_refuse_complex_tensors(fill, args):
    z = paddle.to_tensor(np.array([1 + 2j, 3j], "complex64"))
    with pytest.raises(TypeError, match=rf"{fill}: cannot fill a complex64 tensor"):
        getattr(z, fill)(*args)
    np.testing.assert_array_equal(z.numpy(), [1 + 2j, 3j])      # left as it was


def test_complex_random_creation_follows_paddle():
    # rand: both parts U[0, 1); randn: both parts N(0, 1/2), so E|z|^2 = 1 (Paddle 3.3.1)
    u = paddle.rand_like(paddle.zeros([20000], "complex64"))
    assert u.dtype == "complex64"
    for part in (u.numpy().real, u.numpy().imag):
        assert part.min() >= 0 and part.max() < 1 and abs(part.mean() - 0.5) < 0.02
    n = paddle.randn([20000], dtype="complex128")
    assert n.dtype == "complex128"
    for part in (n.numpy().real, n.numpy().imag):
        assert abs(part.std() - 0.5 ** 0.5) < 0.02
    assert paddle.randn_like(paddle.zeros([3], "complex64")).dtype == "complex64"
