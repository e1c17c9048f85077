"""Shared fixtures for the transpiler / jit tests: eager-vs-static comparison helpers."""
import logging

# before numpy and dy2st: they and the test modules compile into bytecode caches
import tests.bytecode_cache  # noqa: F401

# isort: split

import numpy as np
import pytest

import dy2st as paddle


def _as_value(x):
    if isinstance(x, paddle.Tensor):
        return x.numpy()
    return x


def _assert_same(eager, static, path="out"):
    """Same structure; tensors: same shape, dtype and values; Python values: equal."""
    if isinstance(eager, (list, tuple)):
        assert isinstance(static, (list, tuple)), f"{path}: {type(eager)} vs {type(static)}"
        assert len(eager) == len(static), f"{path}: length {len(eager)} vs {len(static)}"
        for i, (a, b) in enumerate(zip(eager, static)):
            _assert_same(a, b, f"{path}[{i}]")
        return
    if isinstance(eager, dict):
        assert isinstance(static, dict) and set(eager) == set(static), f"{path}: keys differ"
        for k in eager:
            _assert_same(eager[k], static[k], f"{path}[{k!r}]")
        return
    if isinstance(eager, paddle.Tensor):
        assert isinstance(static, paddle.Tensor), f"{path}: static gave {type(static).__name__}"
        a, b = eager.numpy(), static.numpy()
        assert a.shape == b.shape, f"{path}: shape {a.shape} vs {b.shape}"
        assert a.dtype == b.dtype, f"{path}: dtype {a.dtype} vs {b.dtype}"
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6, err_msg=path)
        return
    b = _as_value(static)
    if isinstance(b, np.ndarray) and b.ndim == 0 and not isinstance(eager, np.ndarray):
        b = b.item()
    assert eager == b, f"{path}: {eager!r} vs {static!r}"


@pytest.fixture
def assert_same():
    return _assert_same


def _fresh(args):
    """numpy arrays become new Tensors each call (eager code may write into its inputs)."""
    return tuple(paddle.to_tensor(a.copy()) if isinstance(a, np.ndarray) else a for a in args)


def _check(fn, *arg_sets, input_spec=None, **kwargs):
    """Run fn eagerly and to_static(fn) on each argument tuple (numpy arrays are passed as fresh
    Tensors); compare values, shapes and dtypes. Returns the StaticFunction."""
    sf = paddle.jit.to_static(fn, input_spec=input_spec, **kwargs)
    assert arg_sets, "give at least one input"
    for args in arg_sets:
        if not isinstance(args, tuple):
            args = (args,)
        eager = fn(*_fresh(args))
        static = sf(*_fresh(args))
        _assert_same(eager, static)
    return sf


@pytest.fixture
def check():
    return _check


@pytest.fixture
def arr():
    """arr([..]) -> float32 numpy array (another dtype when given)."""
    def make(value, dtype="float32"):
        return np.asarray(value, dtype=dtype)
    return make


@pytest.fixture(autouse=True)
def _reset_jit_switches():
    yield
    paddle.jit.enable_to_static(True)
    logging.getLogger("dy2st.jit").setLevel(logging.NOTSET)
