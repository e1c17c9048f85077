"""Shared fixtures for nn tests: fresh layer names and seed per test, eager-vs-static checking."""
import numpy as np
import pytest

import dy2st as paddle


@pytest.fixture(autouse=True)
def fresh_names_and_seed():
    # Names like linear_0 and random init depend on global counters / RNG: start each test clean.
    paddle.nn.reset_name_counters()
    paddle.seed(2024)
    yield


def _run_static(fn, *arrays, shapes=None):
    """Build fn over static.data inputs (shapes may contain None) and run it with the Executor."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xs = [paddle.static.data(f"x{i}", shapes[i] if shapes else list(a.shape), str(a.dtype))
              for i, a in enumerate(arrays)]
        out = fn(*xs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    res = paddle.static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(arrays)},
                                       fetch_list=outs)
    return res if isinstance(out, (list, tuple)) else res[0]


def _batch_unknown(a):
    return [None] + list(a.shape[1:]) if a.ndim else []


def _check(fn, ref, *arrays, rtol=1e-6, atol=0.0):
    """eager == numpy reference (shape, dtype, values); static with known dims and with an unknown
    batch dim == eager. Returns the eager result."""
    eager = fn(*[paddle.to_tensor(a) for a in arrays]).numpy()
    expected = np.asarray(ref(*arrays))
    assert eager.shape == expected.shape, (eager.shape, expected.shape)
    assert eager.dtype == expected.dtype, (eager.dtype, expected.dtype)
    np.testing.assert_allclose(eager, expected, rtol=rtol, atol=atol)
    for shapes in (None, [_batch_unknown(a) for a in arrays]):
        static = _run_static(fn, *arrays, shapes=shapes)
        assert static.dtype == eager.dtype
        np.testing.assert_allclose(static, eager, rtol=1e-6, atol=1e-7)
    return eager


@pytest.fixture
def run_static():
    return _run_static


@pytest.fixture
def check():
    return _check
