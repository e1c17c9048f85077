"""jit.save of programs whose tensor if / while results are unused (dropped by dead-code
elimination while their blocks stay in the Program) writes a model that loads (issue 13)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


def unused_if(x):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    return x + 1.0


def unused_while(x):
    y = x
    while y.sum() < 10.0:
        y = y * 2.0 + 1.0
    return x * 3.0


def branch_that_only_prints(x):
    if x.mean() > 0:
        print("positive")
    return x + 2.0


def successive_ifs(x):
    a = 0.0
    b = 1.0
    if x.sum() > 0:
        a = x * 2.0
    else:
        a = x * 3.0
    if x.mean() > 0.5:
        b = a + 1.0
    else:
        b = a - 1.0
    return a + b


@pytest.mark.parametrize("fn", [unused_if, unused_while, branch_that_only_prints, successive_ifs])
def test_saved_model_loads_and_matches_eager(fn, tmp_path):
    sf = paddle.jit.to_static(fn, input_spec=[InputSpec([None, 3], "float32")], full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for data in (np.ones([2, 3], "float32"), -np.ones([4, 3], "float32"),
                 np.full([1, 3], 0.4, "float32")):
        expected = fn(paddle.to_tensor(data)).numpy()
        np.testing.assert_allclose(sf(paddle.to_tensor(data)).numpy(), expected, rtol=1e-6)
        np.testing.assert_allclose(loaded(paddle.to_tensor(data)).numpy(), expected, rtol=1e-6)
