"""nn.Layer bookkeeping: names, parameters, sublayers, buffers, state_dict, hooks, modes, static use."""
import copy

import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn.initializer import Constant


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class WithBuffers(nn.Layer):
    def __init__(self):
        super().__init__()
        self.body = MLP()
        self.register_buffer("steps", paddle.zeros([1]))
        self.register_buffer("scratch", paddle.zeros([3]), persistable=False)

    def forward(self, x):
        return self.body(x)


X = np.random.default_rng(1).standard_normal((3, 4)).astype("float32")


# ----------------------------------------------------------------------------- names and parameters
def test_named_parameters_order_and_paddle_style_names():
    net = MLP()
    named = list(net.named_parameters())
    assert [n for n, _ in named] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [p.name for _, p in named] == ["linear_0.w_0", "linear_0.b_0", "linear_1.w_0", "linear_1.b_0"]
    assert [p.shape for _, p in named] == [[4, 8], [8], [8, 2], [2]]
    assert net.full_name() == "mlp_0" and net.fc2.full_name() == "linear_1"
    assert all(isinstance(p, paddle.Parameter) and p.trainable for _, p in named)


def test_reset_name_counters_makes_names_repeatable():
    first = [p.name for p in MLP().parameters()]
    second = [p.name for p in MLP().parameters()]
    assert first != second                      # unique within a run
    nn.reset_name_counters()
    assert [p.name for p in MLP().parameters()] == first


def test_named_parameters_prefix_and_no_sublayers():
    net = MLP()
    assert [n for n, _ in net.named_parameters(prefix="m")][:1] == ["m.fc1.weight"]
    assert net.parameters(include_sublayers=False) == []
    assert len(net.parameters()) == 4


def test_shared_layer_parameters_are_listed_once():
    net = MLP()
    net.again = net.fc1
    assert len(net.parameters()) == 4
    assert [n for n, _ in net.named_sublayers()] == ["fc1", "act", "fc2"]


def test_sublayers_children_and_named_sublayers_nesting():
    net = WithBuffers()
    assert [n for n, _ in net.named_sublayers()] == ["body", "body.fc1", "body.act", "body.fc2"]
    assert net.sublayers()[0] is net.body
    assert net.sublayers(include_self=True)[0] is net
    assert list(net.children()) == [net.body]
    assert [n for n, _ in net.body.named_children()] == ["fc1", "act", "fc2"]


# ----------------------------------------------------------------------------- attributes
def test_setattr_registers_and_getattr_delattr_work():
    layer = nn.Layer()
    p = layer.create_parameter([2, 2])
    layer.w = p
    assert layer.w is p and "w" in layer._parameters and "w" not in layer.__dict__
    layer.sub = nn.Linear(2, 2)
    assert "sub" in layer._sub_layers and "sub" in dir(layer)
    assert [n for n, _ in layer.named_parameters()] == ["w", "sub.weight", "sub.bias"]
    del layer.w
    assert [n for n, _ in layer.named_parameters()] == ["sub.weight", "sub.bias"]
    with pytest.raises(AttributeError, match="has no attribute 'w'"):
        layer.w


def test_assigning_a_plain_tensor_to_a_parameter_name_is_an_error():
    lin = nn.Linear(2, 3)
    with pytest.raises(TypeError, match="weight is a parameter"):
        lin.weight = paddle.zeros([2, 3])
    lin.bias = None
    assert [n for n, _ in lin.named_parameters()] == ["weight"]


def test_plain_attributes_stay_plain():
    layer = nn.Layer()
    layer.t = paddle.zeros([2])
    layer.k = 3
    assert layer.parameters() == [] and list(layer.state_dict()) == []
    assert layer.k == 3


def test_missing_super_init_gives_a_clear_error():
    class Bad(nn.Layer):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(RuntimeError, match=r"super\(\).__init__\(\)"):
        Bad()


def test_add_sublayer_add_parameter_type_checks():
    layer = nn.Layer()
    assert layer.add_sublayer("fc", nn.Linear(1, 1)) is layer.fc
    with pytest.raises(TypeError, match="expected a Layer"):
        layer.add_sublayer("x", 3)
    with pytest.raises(TypeError, match="expected a Parameter"):
        layer.add_parameter("p", paddle.zeros([1]))
    with pytest.raises(KeyError, match="already exists"):
        layer.add_parameter("fc", layer.create_parameter([1]))
    p = layer.add_parameter("p", layer.create_parameter([1]))
    assert layer.p is p


def test_create_parameter_attrs():
    layer = nn.Layer()
    assert layer.create_parameter([3], attr=False) is None
    b = layer.create_parameter([3], is_bias=True)
    assert np.array_equal(b.numpy(), np.zeros(3, "float32")) and b.name == "layer_0.b_0"
    w = layer.create_parameter([2, 2], attr=nn.ParamAttr(name="my_w", initializer=Constant(0.5),
                                                          trainable=False))
    assert w.name == "my_w" and not w.trainable and w.stop_gradient
    np.testing.assert_array_equal(w.numpy(), np.full((2, 2), 0.5, "float32"))
    d = layer.create_parameter([2], dtype="float64", default_initializer=Constant(2.0))
    assert d.dtype == paddle.float64 and d.numpy().tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="known"):
        layer.create_parameter([-1, 2])


# ----------------------------------------------------------------------------- buffers and state
def test_register_buffer_and_state_dict_keys():
    net = WithBuffers()
    keys = list(net.state_dict())
    assert keys == ["steps", "body.fc1.weight", "body.fc1.bias", "body.fc2.weight", "body.fc2.bias"]
    assert [n for n, _ in net.named_buffers()] == ["steps", "scratch"]
    assert net.state_dict()["body.fc1.weight"] is net.body.fc1.weight
    net.steps = paddle.ones([1])                  # reassigning a buffer keeps it a buffer
    assert net.state_dict()["steps"].numpy().tolist() == [1.0]
    with pytest.raises(KeyError, match="already exists"):
        net.register_buffer("body", paddle.zeros([1]))
    with pytest.raises(TypeError, match="expected a Tensor"):
        net.register_buffer("b2", np.zeros(2))


def test_state_dict_round_trip_reproduces_outputs():
    src, dst = MLP(), MLP()
    x = paddle.to_tensor(X)
    assert not np.allclose(src(x).numpy(), dst(x).numpy())
    missing, unexpected = dst.set_state_dict(src.state_dict())
    assert missing == [] and unexpected == []
    np.testing.assert_array_equal(src(x).numpy(), dst(x).numpy())
    # values were copied, not aliased
    src.fc1.weight.set_value(np.zeros((4, 8), "float32"))
    assert dst.fc1.weight.numpy().any()


def test_set_state_dict_accepts_numpy_and_reports_missing_and_unexpected():
    net = MLP()
    state = {k: v.numpy() * 0 + 1 for k, v in net.state_dict().items() if k != "fc2.bias"}
    state["extra"] = np.zeros(1)
    with pytest.warns(UserWarning, match="fc2.bias"):
        missing, unexpected = net.set_state_dict(state)
    assert missing == ["fc2.bias"] and unexpected == ["extra"]
    assert net.fc1.weight.numpy().tolist() == np.ones((4, 8)).tolist()
    assert net.fc1.weight.dtype == paddle.float32


def test_set_state_dict_shape_error_names_the_key_and_changes_nothing():
    net = MLP()
    before = net.fc1.bias.numpy().copy()
    state = dict(net.state_dict())
    state["fc1.bias"] = np.ones(8, "float32")
    state["fc2.weight"] = np.zeros((2, 8), "float32")
    with pytest.raises(ValueError, match=r"fc2.weight: the given value has shape \[2, 8\], "
                                         r"but the layer expects shape \[8, 2\]"):
        net.set_state_dict(state)
    np.testing.assert_array_equal(net.fc1.bias.numpy(), before)


def test_deepcopy_keeps_parameters_and_sharing():
    net = MLP()
    net.tied = net.fc1
    clone = copy.deepcopy(net)
    assert isinstance(clone.fc1.weight, paddle.Parameter)
    assert clone.fc1.weight is not net.fc1.weight and clone.tied is clone.fc1
    np.testing.assert_array_equal(clone(paddle.to_tensor(X)).numpy(), net(paddle.to_tensor(X)).numpy())


def test_to_dtype_and_float():
    net = MLP().to(dtype="float64")
    assert all(p.dtype == paddle.float64 for p in net.parameters())
    assert net.float() is net and net.fc1.weight.dtype == paddle.float32
    assert net.to("cpu") is net


# ----------------------------------------------------------------------------- hooks, modes, calls
def test_forward_hooks_modify_inputs_and_outputs_and_can_be_removed():
    lin = nn.Linear(4, 2)
    calls = []
    pre = lin.register_forward_pre_hook(lambda layer, inputs: (inputs[0] * 0,))
    post = lin.register_forward_post_hook(lambda layer, inputs, out: calls.append(layer) or out + 1)
    out = lin(paddle.to_tensor(X)).numpy()
    np.testing.assert_allclose(out, np.broadcast_to(lin.bias.numpy() + 1, (3, 2)), rtol=1e-6)
    assert calls == [lin]
    pre.remove()
    post.remove()
    pre.remove()                                  # idempotent
    np.testing.assert_allclose(lin(paddle.to_tensor(X)).numpy(),
                               X @ lin.weight.numpy() + lin.bias.numpy(), rtol=1e-5)
    assert calls == [lin]


def test_call_looks_up_forward_dynamically():
    lin = nn.Linear(4, 2)
    seen = []
    lin.register_forward_post_hook(lambda layer, inputs, out: seen.append(out))
    original = lin.forward
    lin.forward = lambda x: original(x) * 2       # what jit.to_static does to a layer
    out = lin(paddle.to_tensor(X)).numpy()
    np.testing.assert_allclose(out, 2 * (X @ lin.weight.numpy() + lin.bias.numpy()), rtol=1e-5)
    assert len(seen) == 1 and "forward" not in lin._sub_layers


def test_train_eval_propagate_and_dropout_is_identity_in_eval():
    net = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.9), nn.Sequential(nn.Dropout(0.5)))
    assert all(layer.training for layer in net.sublayers(include_self=True))
    assert net.eval() is net
    assert not any(layer.training for layer in net.sublayers(include_self=True))
    x = paddle.to_tensor(X)
    np.testing.assert_array_equal(net(x).numpy(), net[0](x).numpy())
    net.train()
    assert net[2][0].training
    assert (net(x).numpy() == 0).mean() > 0.5


def test_layer_apply_visits_every_layer():
    net = MLP()
    seen = []
    net.apply(lambda layer: seen.append(type(layer).__name__))
    assert seen == ["Linear", "ReLU", "Linear", "MLP"]


def test_repr_is_readable():
    text = repr(MLP())
    assert text.splitlines() == [
        "MLP(",
        "  (fc1): Linear(in_features=4, out_features=8, dtype=float32)",
        "  (act): ReLU()",
        "  (fc2): Linear(in_features=8, out_features=2, dtype=float32)",
        ")"]


def test_base_forward_is_not_implemented():
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Layer()(1)


# ----------------------------------------------------------------------------- static programs
def test_layer_in_static_program_matches_eager_and_sees_updated_weights():
    net = MLP()
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [None, 4])
        out = net(x)
    assert out._shape == (-1, 2)
    exe = paddle.static.Executor()
    got, = exe.run(main, feed={"x": X}, fetch_list=[out])
    np.testing.assert_allclose(got, net(paddle.to_tensor(X)).numpy(), rtol=1e-6)
    # parameters are read when the program runs, so loading new weights changes the result
    other = MLP()
    net.set_state_dict(other.state_dict())
    got2, = exe.run(main, feed={"x": X[:1]}, fetch_list=[out])
    np.testing.assert_allclose(got2, other(paddle.to_tensor(X[:1])).numpy(), rtol=1e-6)
    assert "linear_0.w_0" in str(main)
