"""`:=` inside a list, set or dict comprehension binds the enclosing function's name (Python's
rule): after a comprehension over a tensor it holds the last value, and after one that ran no
turn it is unassigned (a read raises eager's UnboundLocalError at its line), with both
full_graph settings, through jit.save / jit.load, and with eager's gradients."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import numeric_gradient, value_and_grad

SPEC = [paddle.static.InputSpec([None, 3], "float32")]
INPUTS = [np.array([[0.5, -1.0, 2.0]], "float32"),
          np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]], "float32"),
          np.array([[-0.3, 0.2, 0.9], [0.4, -0.8, 0.1], [1.5, 1.0, -2.0]], "float32")]
NO_ROWS = np.zeros((0, 3), "float32")


def element_over_rows(x):
    vals = [(y := r * 0.5) for r in x]      # the example: y is the last row's
    return y * 2.0 + vals[0]


def filter_with_a_tensor_test(x):
    h = x.mean(axis=0)
    ks = [k for k in range(3) if (t := h[k]) > 0.0]     # Python ints, a tensor test
    return h + t * len(ks)


def dict_and_set_comprehensions(x):
    h = x.max(axis=0)
    m = {k: (u := h[k] * 2.0) for k in range(3)}
    # (a Python test: a set changed under a tensor `if` is another matter, docs/fuzzing.md)
    s = {k % 2 for k in range(3) if (v := h[k] - u) is not None}
    return h * u + m[1] + v * len(s)


def two_generators(x):
    out = [(w := r * c) for r in x for c in (1.0, 2.0)]
    return w + out[0]


def read_after_no_turn(x):
    vals = [(y := r * 0.5) for r in x]
    return y * 2.0 + len(vals)


CASES = [element_over_rows, filter_with_a_tensor_test, dict_and_set_comprehensions,
         two_generators]


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_walrus_in_a_comprehension_binds_the_functions_name(fn, full_graph, tmp_path):
    sf = paddle.jit.to_static(fn, full_graph=full_graph, input_spec=SPEC)
    for x in INPUTS:
        want_value, want_grad = value_and_grad(fn, x)
        value, grad = value_and_grad(sf, x)
        np.testing.assert_allclose(value, want_value, rtol=1e-5, atol=1e-6, err_msg=str(x))
        np.testing.assert_allclose(grad, want_grad, rtol=1e-4, atol=1e-5, err_msg=str(x))
    a = INPUTS[2].astype("float64")
    numeric = numeric_gradient(lambda v: float((fn(paddle.to_tensor(v)).numpy() ** 2).sum()), a)
    np.testing.assert_allclose(value_and_grad(sf, a)[1], numeric, rtol=1e-4, atol=1e-5)
    if full_graph:
        paddle.jit.save(sf, str(tmp_path / "m"))
        loaded = paddle.jit.load(str(tmp_path / "m"))
        for x in INPUTS:
            np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(),
                                       fn(paddle.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_name_the_comprehension_never_assigned_fails_as_eager(full_graph):
    sf = paddle.jit.to_static(read_after_no_turn, full_graph=full_graph, input_spec=SPEC)
    np.testing.assert_allclose(sf(paddle.to_tensor(INPUTS[1])).numpy(),
                               read_after_no_turn(paddle.to_tensor(INPUTS[1])).numpy())
    with pytest.raises(UnboundLocalError):
        read_after_no_turn(paddle.to_tensor(NO_ROWS))
    with pytest.raises(UnboundLocalError) as info:
        sf(paddle.to_tensor(NO_ROWS))
    assert "return y * 2.0 + len(vals)" in str(info.value)


def test_a_comprehension_inside_an_expression_stays_python():
    # not moved (it would run before `h * 1.0`): a Python comprehension, which binds y in f
    def f(x):
        h = x.mean(axis=0)
        out = h * 1.0 + [(y := r * 0.5) for r in x][0]
        return out + y

    sf = paddle.jit.to_static(f, full_graph=True)
    for x in INPUTS:
        np.testing.assert_allclose(sf(paddle.to_tensor(x)).numpy(),
                                   f(paddle.to_tensor(x)).numpy(), rtol=1e-6)
