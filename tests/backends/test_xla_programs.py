"""Programs run on XLA agree with eager execution: control flow on every path, None dims (one
compile per size, bounded, logged), dtypes, seeded random draws, run-time checks, and the
numpy fallback for data-dependent shapes (one INFO line naming the op and the user's line)."""
import logging

import numpy as np
import pytest

pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")

import dy2st as paddle  # noqa: E402
from dy2st.backends.xla import FALLBACKS  # noqa: E402
from dy2st.backends.xla.compile import CACHE_SIZE  # noqa: E402
from dy2st.static import InputSpec  # noqa: E402


def xla(fn, **kw):
    return paddle.jit.to_static(fn, backend="xla", **kw)


def t(a):
    return paddle.to_tensor(np.asarray(a))


def branchy(x):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    n = paddle.to_tensor(0)
    while y.abs().max() < 100.0:        # trip count depends on the data
        y = y * 3.0
        n += 1
    return y, n


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("scale", [0.001, 1.0, 500.0])
def test_cond_and_data_dependent_while_take_every_path(sign, scale):
    x = t(np.array([0.5, -0.25, 1.0], "float32") * sign * scale)
    eager = branchy(x)
    static = xla(branchy)
    out = static(x)
    np.testing.assert_allclose(out[0].numpy(), eager[0].numpy(), rtol=1e-6)
    assert int(out[1]) == int(eager[1])
    assert out[1].numpy().dtype == eager[1].numpy().dtype
    assert type(static._last.compiled).__name__ == "XlaProgram"
    assert static._last.compiled.fallback is None


def test_int64_and_float64_keep_their_dtypes():
    def f(a, b):
        return a * 3 + 1, b / 3.0, (a + 2**40).sum()
    a = t(np.arange(6, dtype="int64"))
    b = t(np.linspace(0, 1, 6).astype("float64"))
    eager, out = f(a, b), xla(f)(a, b)
    for e, s in zip(eager, out):
        assert s.numpy().dtype == e.numpy().dtype
        # XLA divides by a constant as a product with its reciprocal: 1 ulp of float64 apart
        np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-15)


def test_a_none_dim_compiles_once_per_size_and_logs_the_retrace(caplog):
    def f(x):
        return paddle.reshape(x, [-1, 2]).sum(axis=1) * x.shape[0]
    static = xla(f, input_spec=[InputSpec([None, 4], "float32")])
    caplog.set_level(logging.INFO, logger="dy2st.jit")
    for n in (1, 3, 1, 3, 5):
        x = t(np.ones((n, 4), "float32"))
        np.testing.assert_allclose(static(x).numpy(), f(x).numpy())
    assert static.num_programs == 1            # one Program ...
    compiled = static._last.compiled
    assert compiled.compiles == 3              # ... compiled once per size
    assert len(compiled.cache) == 3
    retraces = [r for r in caplog.records if "compiling" in r.getMessage()]
    assert len(retraces) == 2 and "[5, 4]" in retraces[-1].getMessage()
    for n in range(6, 6 + CACHE_SIZE):
        static(t(np.ones((n, 4), "float32")))
    assert len(compiled.cache) == CACHE_SIZE   # bounded


def test_random_ops_repeat_after_seed_and_differ_between_runs():
    def f(x):
        return x + paddle.rand([3]), paddle.nn.functional.dropout(paddle.ones([4, 4]), 0.5)
    static = xla(f)
    x = paddle.zeros([3])
    paddle.seed(7)
    a = [o.numpy() for o in static(x)]
    b = [o.numpy() for o in static(x)]
    paddle.seed(7)
    c = [o.numpy() for o in static(x)]
    assert not np.array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[0], c[0])
    np.testing.assert_array_equal(a[1], c[1])
    assert ((a[0] >= 0) & (a[0] < 1)).all()
    assert set(np.unique(a[1])) <= {0.0, 2.0}


def test_data_dependent_shape_runs_on_numpy_with_one_info_line(caplog):
    def f(x):
        y = paddle.masked_select(x, x > 0)
        return y.sum()
    caplog.set_level(logging.INFO, logger="dy2st.jit")
    static = xla(f)
    for v in ([1.0, -2.0, 3.0], [-1.0, 5.0, 6.0]):
        x = t(np.array(v, "float32"))
        np.testing.assert_allclose(static(x).numpy(), f(x).numpy())
    lines = [r.getMessage() for r in caplog.records if "numpy backend" in r.getMessage()]
    assert len(lines) == 1
    assert "masked_select" in lines[0] and "test_xla_programs.py" in lines[0]
    assert "y = paddle.masked_select(x, x > 0)" in lines[0]
    assert FALLBACKS[-1].op_type == "masked_select"


def checked(x):
    if x.sum() > 0:
        assert x.max() < 10, "too big"
    return x + 1


def test_a_failing_run_time_check_raises_at_the_user_line():
    static = xla(checked)
    np.testing.assert_allclose(static(t(np.array([1.0, 2.0], "float32"))).numpy(), [2.0, 3.0])
    with pytest.raises(AssertionError) as info:
        static(t(np.array([1.0, 20.0], "float32")))
    text = str(info.value)
    assert "too big" in text


def test_print_runs_when_the_program_runs(capsys):
    def f(x):
        y = x * 2
        print(y)
        return y
    static = xla(f)
    static(t(np.array([1.0, 2.0], "float32")))
    static(t(np.array([3.0, 4.0], "float32")))
    out = capsys.readouterr().out
    assert "2." in out and "8." in out


def test_tensor_array_in_a_counted_loop():
    def f(x):
        items = []
        for i in range(4):
            items.append(x[i] * float(i))
        return paddle.stack(items).sum(axis=0)
    x = t(np.arange(12, dtype="float32").reshape(4, 3))
    static = xla(f)
    np.testing.assert_allclose(static(x).numpy(), f(x).numpy())
    assert static._last.compiled.fallback is None


def test_parameters_written_back_are_read_by_the_next_run():
    class Counter(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.bn = paddle.nn.BatchNorm1D(3)

        def forward(self, x):
            return self.bn(x)
    layer = Counter()
    layer.train()
    twin = Counter()
    twin.train()
    twin.set_state_dict(layer.state_dict())
    static = paddle.jit.to_static(layer, backend="xla")
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = t(rng.standard_normal((8, 3)).astype("float32"))
        with paddle.no_grad():
            np.testing.assert_allclose(static(x).numpy(), twin(x).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer.bn._mean.numpy(), twin.bn._mean.numpy(), rtol=1e-5)
    np.testing.assert_allclose(layer.bn._variance.numpy(), twin.bn._variance.numpy(), rtol=1e-5)


def test_cpu_device_is_where_xla_runs():
    from dy2st.backends.xla.device import current_device
    paddle.device.set_device("cpu")
    assert paddle.device.get_device() == "cpu"
    assert current_device().platform == "cpu"


def test_gpu_device_runs_programs_on_the_gpu():
    from dy2st.backends.xla.device import current_device, gpu_count
    if gpu_count() == 0:
        pytest.skip("no GPU visible to jax here (needs jax[cuda] and a GPU)")
    paddle.device.set_device("gpu:0")
    try:
        assert paddle.device.get_device() == "gpu:0"
        assert current_device().platform == "gpu"
        x = t(np.arange(6, dtype="float32"))
        np.testing.assert_allclose(xla(lambda v: v * 2)(x).numpy(), x.numpy() * 2)
    finally:
        paddle.device.set_device("cpu")
