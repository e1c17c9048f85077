"""A list kept as a dict entry (of a nested dict too) and grown in a tensor loop (`d["acc"].append(t)`) becomes a
tensor array as a plain list does: to_static (both full_graph settings) and jit.save / jit.load
give eager's result for zero, one and many turns."""
import numpy as np
import pytest

import dy2st as paddle


def _for_append(x, n):
    d = {"acc": [], "scale": 2.0}
    for i in range(n):
        d["acc"].append(x * paddle.cast(i, "float32") * d["scale"])
    if len(d["acc"]) == 0:
        return x * 0
    return paddle.stack(d["acc"]).sum(axis=0)


def _while_append(x, n):
    state = {"rows": [x * 1], "i": paddle.to_tensor(0)}
    while state["i"] < n:
        state["rows"].append(state["rows"][-1] + 1)
        state["i"] = state["i"] + 1
    return paddle.concat(state["rows"])


def _int_key(x, n):
    d = {0: [], 1: [x]}
    for i in range(n):
        d[0].append(x + paddle.cast(i, "float32"))
        d[1].append(x - 1)
    return paddle.stack(d[1]).sum(axis=0) + (paddle.stack(d[0]).sum(axis=0) if n > 0 else 0)


def _nested_dict_entry(x, n):
    d = {"inner": {"acc": [x * 0.5], "k": 3.0}}
    for i in range(n):
        d["inner"]["acc"].append(d["inner"]["acc"][-1] * d["inner"]["k"] + 1.0)
    return paddle.stack(d["inner"]["acc"]).sum(axis=0)


CASES = [_for_append, _while_append, _nested_dict_entry]


def _inputs(n):
    return paddle.to_tensor(np.array([1.0, -2.0], "float32")), paddle.to_tensor(n)


@pytest.mark.parametrize("full_graph", [False, True])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_dict_entry_grows_in_tensor_loop(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    for n in (0, 1, 3):
        args = _inputs(n)
        np.testing.assert_allclose(sf(*args).numpy(), fn(*args).numpy(), err_msg=f"n={n}")


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_saved_model_agrees(fn, tmp_path):
    spec = [paddle.static.InputSpec([2], "float32"), paddle.static.InputSpec([], "int64")]
    sf = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for n in (0, 2, 4):
        args = _inputs(n)
        np.testing.assert_allclose(loaded(*args).numpy(), fn(*args).numpy(), err_msg=f"n={n}")


def test_int_keys():
    sf = paddle.jit.to_static(_int_key, full_graph=True)
    args = _inputs(3)
    np.testing.assert_allclose(sf(*args).numpy(), _int_key(*args).numpy())
