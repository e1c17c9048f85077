"""Default arguments of the functions a trace ran are guarded: `helper.__defaults__` replaced,
or a default dict or array changed in place between calls, traces again instead of reusing a
program that computed with the old defaults (audit round 5; before, both full_graph settings
and a saved model silently kept the first call's defaults)."""
import numpy as np
import pytest

import dy2st as paddle

X = np.arange(6, dtype="float32").reshape(2, 3) - 2.0


def _scaled(t, scale=1.0):
    return t * scale


def replaced_defaults(x):
    return _scaled(x) + 1.0


def _configured(t, cfg={"s": 1.0, "on": True}):  # noqa: B006 - changed between calls on purpose
    if cfg["on"]:
        return t * cfg["s"]
    return t


def default_dict(x):
    return _configured(x) - 0.5


def _weighted(t, *, w=np.ones(3, "float32")):  # noqa: B008 - a keyword-only numpy default
    return t * paddle.to_tensor(w)


def default_array(x):
    return _weighted(x)


def _change(k):
    _scaled.__defaults__ = ([1.0, 2.0, -1.0, 0.5][k],)
    cfg = _configured.__defaults__[0]
    cfg["s"], cfg["on"] = [(1.0, True), (2.0, True), (3.0, False), (-1.0, True)][k]
    _weighted.__kwdefaults__["w"][:] = [1.0, 2.0, -1.0, 0.5][k]


@pytest.fixture(autouse=True)
def first_defaults():
    _change(0)
    yield
    _change(0)


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [replaced_defaults, default_dict, default_array],
                         ids=lambda f: f.__name__)
def test_a_change_of_defaults_between_calls_is_seen(fn, full_graph):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for k in range(4):
        _change(k)
        np.testing.assert_allclose(static(paddle.to_tensor(X)).numpy(),
                                   fn(paddle.to_tensor(X)).numpy(), err_msg=f"call {k}")


def test_unchanged_defaults_keep_one_program():
    static = paddle.jit.to_static(default_dict)
    for _ in range(3):
        static(paddle.to_tensor(X))
    assert static.num_programs == 1
