"""A dict key that a tensor `if` sets on one path only, or that a tensor loop may have added
before an `if` that sets it on one path: `k in d`, `d.get(k, default)` and `d[k]` answer on
the path taken (KeyError at the reading line where eager raises it), in both full_graph
settings and through jit.save / jit.load, with eager's gradients."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import check_user_error

HERE = __file__


def key_on_one_path(x, n):
    d = {"a": x}
    if x.sum() > 0:
        d["b"] = x * 3.0
    return d["a"] + (d["b"] if "b" in d else x * 10.0)


def loop_key_then_if(x, n):
    d = {"a": x}
    for i in range(n):
        d["b"] = x * 2.0
    if x.sum() > 0:
        d["b"] = x * 3.0
    return d["a"] + (d["b"] if "b" in d else x * 10.0)


def key_in_loop_under_if(x, n):
    d = {"a": x}
    i = paddle.zeros([], "int64")
    while i < n:
        if x.sum() + i.astype("float32") > 2.0:
            d["b"] = x * i.astype("float32")
        i += 1
    return d.get("b", x * -1.0) + d["a"]


def nested_key_on_one_path(x, n):
    d = {"inner": {"a": x}}
    if x.mean() > 0:
        d["inner"]["c"] = x * x
    return d["inner"].get("c", x * 4.0) + d["inner"]["a"]


def loop_key_then_if_read(x, n):
    d = {"a": x}
    for i in range(n):
        d["b"] = x * 2.0
    if x.sum() > 0:
        d["b"] = x * 3.0
    return d["a"] + d["b"]


CASES = [key_on_one_path, loop_key_then_if, key_in_loop_under_if, nested_key_on_one_path]
INPUTS = [(1.0, 0), (1.0, 2), (-1.0, 0), (-1.0, 1), (2.0, 3)]


def _args(sign, n):
    x = paddle.to_tensor(np.array([0.5, 1.0, 2.0], "float32") * sign)
    x.stop_gradient = False
    return x, paddle.to_tensor(n)


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_values_and_gradients_agree_with_eager(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    for sign, n in INPUTS:
        results = []
        for run in (fn, sf):
            x, nt = _args(sign, n)
            out = run(x, nt)
            (out * out).sum().backward()
            results.append((out.numpy(), x.grad.numpy()))
        (want, want_grad), (got, got_grad) = results
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=f"sign={sign} n={n}")
        np.testing.assert_allclose(got_grad, want_grad, rtol=1e-5, err_msg=f"sign={sign} n={n}")


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_saved_model_agrees(fn, tmp_path):
    spec = [paddle.static.InputSpec([3], "float32"), paddle.static.InputSpec([], "int64")]
    sf = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for sign, n in INPUTS:
        args = _args(sign, n)
        np.testing.assert_allclose(loaded(*args).numpy(), fn(*args).numpy(), rtol=1e-6,
                                   err_msg=f"sign={sign} n={n}")


def test_reading_a_key_no_path_set_raises_key_error_at_the_line():
    """The loop ran no turn and the `if` took the other path: eager raises KeyError (the
    static program returned the placeholder's zeros)."""
    sf = paddle.jit.to_static(loop_key_then_if_read, full_graph=True)
    np.testing.assert_allclose(sf(*_args(1.0, 0)).numpy(), loop_key_then_if_read(*_args(1.0, 0)).numpy())
    np.testing.assert_allclose(sf(*_args(-1.0, 2)).numpy(),
                               loop_key_then_if_read(*_args(-1.0, 2)).numpy())
    with pytest.raises(KeyError) as info:
        sf(*_args(-1.0, 0))
    check_user_error(info.value, HERE, 'return d["a"] + d["b"]')
