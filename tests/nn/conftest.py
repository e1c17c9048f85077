"""Shared fixtures for nn tests: fresh layer names and seed per test, eager-vs-static checking."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import run_static as _run_static


@pytest.fixture(autouse=True)
def fresh_names_and_seed():
    # Names like linear_0 and random init depend on global counters / RNG: start each test clean.
    paddle.nn.reset_name_counters()
    paddle.seed(2024)
    yield




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
