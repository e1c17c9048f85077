"""A Layer built inside a converted function: one without parameters (a list it grows in a tensor
loop) converts with the function; one that makes parameters gets new ones on every eager call,
so one program would keep stale ones: a graph break with full_graph=False, an error naming the
line with full_graph=True and jit.save. Built once and kept (lazy init on self) still works."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.nn.layer.layers import ParameterInTraceError
from dy2st.static import InputSpec


class Collects(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.acc = []

    def forward(self, x):
        for r in x:
            self.acc.append(r * 2.0)
        return paddle.stack(self.acc).sum()


def builds_a_collector(x):
    layer = Collects()
    return layer(x), len(layer.acc)


def _x(rows):
    return paddle.to_tensor(np.arange(rows * 2, dtype="float32").reshape(rows, 2))


@pytest.mark.parametrize("full_graph", [False, True])
def test_a_layer_without_parameters_built_per_call(full_graph):
    static = paddle.jit.to_static(builds_a_collector, full_graph=full_graph)
    for rows in (3, 2, 4):
        want_sum, want_len = builds_a_collector(_x(rows))
        got_sum, got_len = static(_x(rows))
        np.testing.assert_allclose(got_sum.numpy(), want_sum.numpy(), err_msg=f"rows={rows}")
        # the length of a list a tensor loop grew is a Python int, as in eager code
        # (docs/conversion_limits.md)
        assert type(got_len) is int and got_len == want_len == rows


def test_a_layer_without_parameters_built_per_call_is_saved(tmp_path):
    spec = [InputSpec([None, 2], "float32")]
    paddle.jit.save(builds_a_collector, str(tmp_path / "m"), input_spec=spec)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for rows in (1, 3):
        got_sum, got_len = loaded(_x(rows))
        want_sum, want_len = builds_a_collector(_x(rows))
        np.testing.assert_allclose(got_sum.numpy(), want_sum.numpy(), err_msg=f"rows={rows}")
        assert type(got_len) is int and got_len == want_len


def builds_a_linear(x):
    fc = paddle.nn.Linear(2, 3)
    return fc(x).sum()


def makes_a_parameter(x):
    w = paddle.create_parameter([2, 2], "float32")
    return (x @ w).sum()


@pytest.mark.parametrize("fn", [builds_a_linear, makes_a_parameter], ids=lambda f: f.__name__)
def test_new_parameters_per_call_follow_eager_with_graph_breaks(fn):
    static = paddle.jit.to_static(fn)
    for rows in (3, 3, 2):      # the same shape twice: a kept program would reuse stale values
        paddle.seed(7)
        want = fn(_x(rows))
        paddle.seed(7)
        got = static(_x(rows))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, err_msg=f"rows={rows}")


@pytest.mark.parametrize("fn, what", [(builds_a_linear, "building the Layer `Linear`"),
                                      (makes_a_parameter, "paddle.create_parameter")],
                         ids=["layer", "create_parameter"])
def test_new_parameters_per_call_are_refused_in_one_graph(fn, what):
    static = paddle.jit.to_static(fn, full_graph=True)
    with pytest.raises(ParameterInTraceError) as info:
        static(_x(3))
    text = str(info.value)
    assert what in text and "new parameters" in text and "test_layers_built_in_converted_code.py" \
        in text


def test_new_parameters_per_call_are_refused_by_save(tmp_path):
    with pytest.raises(Exception, match="makes a parameter inside a function") as info:
        paddle.jit.save(builds_a_linear, str(tmp_path / "m"),
                        input_spec=[InputSpec([None, 2], "float32")])
    assert not list(tmp_path.iterdir()), info.value


class LazyInit(paddle.nn.Layer):
    """Builds its sublayer on the first call and keeps it: eager makes its parameters once."""

    def __init__(self):
        super().__init__()
        self.fc = None

    def forward(self, x):
        if self.fc is None:
            self.fc = paddle.nn.Linear(2, 2)
        return self.fc(x).sum()


@pytest.mark.parametrize("full_graph", [False, True])
def test_a_sublayer_built_once_on_the_first_call_is_kept(full_graph):
    paddle.seed(3)
    layer = LazyInit()
    static = paddle.jit.to_static(layer, full_graph=full_graph)
    first = static(_x(3))
    fc = layer.fc
    assert isinstance(fc, paddle.nn.Linear)
    np.testing.assert_allclose(first.numpy(), fc(_x(3)).sum().numpy(), rtol=1e-6)
    for rows in (3, 2):
        np.testing.assert_allclose(static(_x(rows)).numpy(), fc(_x(rows)).sum().numpy(),
                                   rtol=1e-6)
    assert layer.fc is fc
