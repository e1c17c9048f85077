"""A tensor loop whose body makes a loop variable another object (`if c: g = h`, `g = h` with h
also a loop variable, an inner loop doing it) keeps the aliasing after the loop: an in-place
change then reaches every name holding the object, as in eager mode (fuzzer seed 255's family)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec

SPEC = [InputSpec([None, 3], "float32")]
# every row positive, every row negative, mixed rows, one row
INPUTS = [np.ones((2, 3), "float32"), -np.ones((2, 3), "float32"),
          np.array([[1, 1, 1], [-1, -1, -1]], "float32"),
          np.array([[-1, -1, -1], [1, 2, 1], [1, 1, 1]], "float32"),
          np.full((1, 3), 0.2, "float32")]


def alias_under_a_tensor_if_in_the_body(x):
    h = x.mean(axis=0)
    g = x.max(axis=0) * 0.5
    s = x.sum() * 0.1
    for row in x:
        if row.sum() > 0:
            g = h
    g.subtract_(s)
    return h + g


def list_entry_aliased_under_a_tensor_if_in_the_body(x):
    h = x.mean(axis=0)
    s = x.sum() * 0.1
    acc = [h * 0.0]
    for row in x:
        if row.sum() > 0:
            acc[0] = h
    acc[0][1] = s
    return h + acc[0]


def two_loop_variables_made_one_object(x):
    h = x.mean(axis=0)
    g = x.max(axis=0) * 0.5
    s = x.sum() * 0.1
    for row in x:
        h = h * 1.5
        g = h
    g.subtract_(s)
    return h + g


def alias_made_in_an_inner_loop(x):
    h = x.mean(axis=0)
    g = x.max(axis=0) * 0.5
    s = x.sum() * 0.1
    for row in x:
        for r2 in x:
            g = h
    g.subtract_(s)
    return h + g


def alias_changed_in_place_on_later_turns(x):
    h = x.mean(axis=0)
    g = x.max(axis=0) * 0.5
    s = x.sum() * 0.1
    for row in x:
        if row.sum() > 0:
            g = h
        g.subtract_(s)       # reaches h on the turns after g became h
    return h + g


CASES = [alias_under_a_tensor_if_in_the_body, list_entry_aliased_under_a_tensor_if_in_the_body,
         two_loop_variables_made_one_object, alias_made_in_an_inner_loop,
         alias_changed_in_place_on_later_turns]


@pytest.mark.parametrize("fn", CASES)
def test_in_place_change_after_a_loop_reaches_the_aliased_object(fn, tmp_path):
    sf = paddle.jit.to_static(fn, input_spec=SPEC, full_graph=True)
    sf(paddle.to_tensor(INPUTS[0]))
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for x in INPUTS:
        want = fn(paddle.to_tensor(x)).numpy()
        np.testing.assert_allclose(sf(paddle.to_tensor(x)).numpy(), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), want, rtol=1e-5,
                                   atol=1e-6)
