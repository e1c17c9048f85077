"""Program cache: keys from shapes/dtypes, Python values and the training flag; InputSpec with None
traces once; identities never by recycled id(); re-traces are logged with their reason."""
import gc
import logging

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit import auto_numbers
from dy2st.static import InputSpec


def add_one(x):
    return x + 1


def scaled(x, k):
    if k > 1:
        return x * k
    return x


class Net(paddle.nn.Layer):
    def __init__(self, w):
        super().__init__()
        self.w = self.create_parameter([3])
        self.w.set_value(np.full([3], w, np.float32))

    def forward(self, x):
        if self.training:
            return x * self.w
        return x + self.w


def make_adder(k):
    def adder(x):
        return x + k
    return adder


def T(shape, fill=1.0, dtype="float32"):
    return paddle.to_tensor(np.full(shape, fill, dtype))


def test_same_shape_reuses_program():
    sf = paddle.jit.to_static(add_one)
    for fill in (1.0, 2.0, -3.0):
        np.testing.assert_allclose(sf(T([4, 4], fill)).numpy(), np.full([4, 4], fill + 1))
    assert sf.num_programs == 1
    program = sf.program
    sf(T([4, 4]))
    assert sf.program is program


def test_new_shape_traces_again_and_logs_why(caplog):
    sf = paddle.jit.to_static(add_one)
    caplog.set_level(logging.INFO, logger="dy2st.jit")
    sf(T([16, 3]))
    assert not [r for r in caplog.records if "tracing" in r.getMessage()]
    sf(T([17, 3]))
    assert sf.num_programs == 2
    msgs = [r.getMessage() for r in caplog.records if r.name == "dy2st.jit" and r.levelno == logging.INFO]
    assert any("`x`" in m and "dim 0" in m and "16" in m and "17" in m for m in msgs), msgs
    assert any("InputSpec" in m for m in msgs)
    caplog.clear()
    sf(T([17, 3], dtype="float64"))
    msgs = [r.getMessage() for r in caplog.records if r.name == "dy2st.jit"]
    assert any("dtype" in m and "float64" in m for m in msgs), msgs
    assert sf.num_programs == 3
    assert len(sf.signatures()) == 3
    shapes = sorted(tuple(s[0].shape) for s in sf.signatures())
    assert shapes == [(16, 3), (17, 3), (17, 3)]


def test_input_spec_with_none_traces_once():
    sf = paddle.jit.to_static(add_one, input_spec=[InputSpec([None, 3], "float32")])
    for n in (1, 5, 0, 64):
        out = sf(T([n, 3], 2.0))
        assert out.shape == [n, 3]
        np.testing.assert_allclose(out.numpy(), np.full([n, 3], 3.0))
    assert sf.num_programs == 1
    assert list(sf.signatures()[0][0].shape) in ([None, 3], [-1, 3])


def test_python_argument_values_are_part_of_the_key(caplog, monkeypatch):
    # (a number that keeps changing becomes an input instead: tests/jit/test_auto_numbers.py)
    monkeypatch.setattr(auto_numbers, "ENABLED", False)
    caplog.set_level(logging.INFO, logger="dy2st.jit")
    sf = paddle.jit.to_static(scaled)
    x = T([3], 2.0)
    np.testing.assert_allclose(sf(x, 3).numpy(), [6.0] * 3)
    np.testing.assert_allclose(sf(x, 1).numpy(), [2.0] * 3)
    np.testing.assert_allclose(sf(x, 3).numpy(), [6.0] * 3)
    np.testing.assert_allclose(sf(x, 5).numpy(), [10.0] * 3)
    assert sf.num_programs == 3
    msgs = [r.getMessage() for r in caplog.records if r.name == "dy2st.jit"]
    assert any("`k`" in m and "3" in m and "1" in m for m in msgs), msgs


def test_training_flag_is_part_of_the_key():
    net = paddle.jit.to_static(Net(2.0))
    x = T([3], 3.0)
    net.train()
    np.testing.assert_allclose(net(x).numpy(), [6.0] * 3)
    net.eval()
    np.testing.assert_allclose(net(x).numpy(), [5.0] * 3)
    net.train()
    np.testing.assert_allclose(net(x).numpy(), [6.0] * 3)
    assert net.forward.num_programs == 2


def test_updated_parameter_is_seen_without_retrace():
    net = paddle.jit.to_static(Net(2.0))
    net.eval()
    x = T([3], 1.0)
    np.testing.assert_allclose(net(x).numpy(), [3.0] * 3)
    net.w.set_value(np.full([3], 10.0, np.float32))
    np.testing.assert_allclose(net(x).numpy(), [11.0] * 3)
    assert net.forward.num_programs == 1


@pytest.fixture
def quick_full_gc():
    """Make gc.collect() in the loops below cheap: objects that exist before the test are
    frozen, so a full collection only walks what the test itself made (in a whole-suite run
    the heap is large and each full collection took about a second)."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


def test_new_layers_at_recycled_addresses_get_their_own_program(quick_full_gc):
    x = T([3], 1.0)
    for w in range(20):
        net = paddle.jit.to_static(Net(float(w)))
        net.eval()
        np.testing.assert_allclose(net(x).numpy(), [1.0 + w] * 3, err_msg=f"layer {w}")
        del net
        gc.collect()


def calls_obj(x, obj):
    return obj(x)


def test_new_functions_at_recycled_addresses_as_arguments(quick_full_gc):
    sf = paddle.jit.to_static(calls_obj)
    x = T([2], 1.0)
    for k in range(20):
        fn = make_adder(float(k))      # a new closure each time, often at a reused address
        np.testing.assert_allclose(sf(x, fn).numpy(), [1.0 + k] * 2, err_msg=f"closure {k}")
        del fn
        gc.collect()


def test_new_static_functions_of_new_closures(quick_full_gc):
    x = T([2], 1.0)
    for k in range(20):
        sf = paddle.jit.to_static(make_adder(float(k)))
        np.testing.assert_allclose(sf(x).numpy(), [1.0 + k] * 2, err_msg=f"closure {k}")
        del sf
        gc.collect()


def calls_layer(x, layer):
    return layer(x)


def test_layers_passed_as_arguments_at_recycled_addresses(quick_full_gc):
    sf = paddle.jit.to_static(calls_layer)
    x = T([3], 1.0)
    for w in range(15):
        net = Net(float(w))
        net.eval()
        np.testing.assert_allclose(sf(x, net).numpy(), [1.0 + w] * 3, err_msg=f"layer {w}")
        del net
        gc.collect()


def test_enable_to_static_false_runs_eagerly():
    sf = paddle.jit.to_static(add_one)
    try:
        paddle.jit.enable_to_static(False)
        out = sf(T([2], 1.0))
        np.testing.assert_allclose(out.numpy(), [2.0, 2.0])
        assert sf.num_programs == 0
    finally:
        paddle.jit.enable_to_static(True)
    sf(T([2], 1.0))
    assert sf.num_programs == 1
    with pytest.raises(TypeError):
        paddle.jit.enable_to_static(0)


def test_get_concrete_program_with_specs():
    sf = paddle.jit.to_static(add_one)
    cp = sf.get_concrete_program(InputSpec([None, 4], "float32"))
    assert "add" in str(cp.program)
    assert sf.num_programs == 1
    assert sf.get_concrete_program(InputSpec([None, 4], "float32")) is cp


class DecoratedNet(paddle.nn.Layer):
    def __init__(self, w):
        super().__init__()
        self.w = self.create_parameter([3])
        self.w.set_value(np.full([3], w, np.float32))
        self.offset = w * 100

    @paddle.jit.to_static
    def forward(self, x):
        return x + self.w + self.offset


def test_decorated_forward_new_instances_at_recycled_addresses(quick_full_gc):
    x = T([3], 1.0)
    for w in range(15):
        net = DecoratedNet(float(w))
        np.testing.assert_allclose(net(x).numpy(), [1.0 + w + w * 100] * 3, err_msg=f"layer {w}")
        del net
        gc.collect()


def test_replaced_parameter_is_seen_by_the_next_call():
    # DESIGN: an updated weight must be seen, also when the Parameter object is replaced
    layer = paddle.nn.Linear(3, 2)
    sf = paddle.jit.to_static(layer)
    x = paddle.to_tensor(np.ones((1, 3), "float32"))
    first = sf(x).numpy()
    layer.weight = layer.create_parameter([3, 2], default_initializer=paddle.nn.initializer.Constant(2.0))
    second = sf(x).numpy()
    np.testing.assert_allclose(second, layer.bias.numpy()[None, :] + 6.0)
    assert not np.allclose(first, second)
