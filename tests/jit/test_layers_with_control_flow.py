"""Scenarios: Layers calling sublayers in loops, LayerList / Sequential iteration, methods with early
returns, Python attributes selecting branches, save/load of converted layers."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.support import randn as _rand

nn = paddle.nn


def _i(v):
    return np.array(v, dtype="int64")


def _check_layer(make, arg_sets, input_spec=None, tmp_path=None):
    """Eager results first (to_static replaces forward), then the converted layer, then save/load."""
    paddle.seed(7)
    net = make()
    net.eval()
    eagers = [net(*[paddle.to_tensor(a.copy()) for a in args]) for args in arg_sets]
    st = paddle.jit.to_static(net, input_spec=input_spec)
    for args, eager in zip(arg_sets, eagers):
        _cmp(eager, st(*[paddle.to_tensor(a.copy()) for a in args]))
    if tmp_path is not None:
        path = str(tmp_path / "m" / "net")
        paddle.jit.save(st, path, input_spec=input_spec)
        loaded = paddle.jit.load(path)
        for args, eager in zip(arg_sets, eagers):
            _cmp(eager, loaded(*[paddle.to_tensor(a.copy()) for a in args]), loose=True)


def _cmp(a, b, loose=False):
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _cmp(x, y, loose)
        return
    av = a.numpy() if isinstance(a, paddle.Tensor) else np.asarray(a)
    bv = b.numpy() if isinstance(b, paddle.Tensor) else np.asarray(b)
    if not loose:
        assert av.shape == bv.shape
    np.testing.assert_allclose(bv.reshape(av.shape), av, rtol=1e-5, atol=1e-6)


class LoopOverSublayers(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([nn.Linear(4, 4) for _ in range(3)])
        self.skip = [True, False, True]

    def forward(self, x):
        for i, blk in enumerate(self.blocks):
            h = blk(x)
            if self.skip[i]:
                x = x + h
            elif h.mean() > 0:
                x = h
            else:
                x = paddle.tanh(h)
        return x


def test_layerlist_enumerate_with_python_and_tensor_ifs(tmp_path):
    spec = [InputSpec([None, 4], "float32")]
    _check_layer(LoopOverSublayers, [(_rand(1, 2, 4),), (_rand(2, 3, 4, shift=3.0),), (_rand(3, 1, 4, shift=-3.0),)],
                 input_spec=spec, tmp_path=tmp_path)


class SublayerInTensorLoop(nn.Layer):
    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(3, 3)
        self.out = nn.Linear(3, 1)

    def forward(self, x, steps):
        h = x
        for _ in range(steps):
            h = paddle.tanh(self.cell(h))
        return self.out(h)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_sublayer_called_in_range_tensor_loop(tmp_path, n):
    spec = [InputSpec([None, 3], "float32"), InputSpec([], "int64")]
    _check_layer(SublayerInTensorLoop, [(_rand(4, 2, 3), _i(n)), (_rand(5, 1, 3), _i(n + 1))], input_spec=spec,
                 tmp_path=tmp_path)


class EarlyReturnMethod(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def normalize(self, h):
        if h.abs().max() < 1e-3:
            return h
        n = h.abs().max()
        if n > 10.0:
            return h / n
        return h * 2.0

    def forward(self, x):
        return self.normalize(self.fc(x)) + self.normalize(x)


def test_layer_method_with_early_returns(tmp_path):
    spec = [InputSpec([None, 2], "float32")]
    _check_layer(EarlyReturnMethod, [(_rand(6, 2, 2),), (_rand(7, 2, 2, shift=50.0),), (np.zeros((1, 2), "float32"),)],
                 input_spec=spec, tmp_path=tmp_path)


class SequentialWithIf(nn.Layer):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 3))
        self.norm = nn.LayerNorm(3)

    def forward(self, x):
        y = self.body(x)
        if y.sum() > 0:
            y = self.norm(y)
        for layer in self.body:
            if isinstance(layer, nn.Linear) and layer.weight.shape[0] == 3:
                y = y + layer(x).mean()
        return y


def test_sequential_iteration_and_isinstance(tmp_path):
    spec = [InputSpec([None, 3], "float32")]
    _check_layer(SequentialWithIf, [(_rand(8, 2, 3),), (_rand(9, 4, 3, shift=-4.0),)], input_spec=spec,
                 tmp_path=tmp_path)


class KwargForward(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x, mask=None, scale=1.0):
        h = self.fc(x) * scale
        if mask is not None:
            h = h * mask
        if h.mean() > 0:
            h = h - h.mean()
        return h


def test_forward_with_optional_and_default_args():
    paddle.seed(3)
    net = KwargForward()
    x = paddle.to_tensor(_rand(10, 2, 3))
    m = paddle.to_tensor(np.array([[1, 0, 1], [0, 1, 1]], "float32"))
    want = [net(x), net(x, m), net(x, mask=m, scale=-2.0)]
    st = paddle.jit.to_static(net)
    _cmp(want[0], st(x))
    _cmp(want[1], st(x, m))
    _cmp(want[2], st(x, mask=m, scale=-2.0))


class BufferCounter(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.register_buffer("offset", paddle.to_tensor(np.array([0.5, -0.5], "float32")))

    def forward(self, x, n):
        i = paddle.zeros([], dtype="int64")
        while i < n:
            x = self.fc(x) + self.offset
            i += 1
        return x


def test_buffer_and_param_used_in_while(tmp_path):
    spec = [InputSpec([None, 2], "float32"), InputSpec([], "int64")]
    _check_layer(BufferCounter, [(_rand(11, 3, 2), _i(0)), (_rand(12, 3, 2), _i(3))], input_spec=spec,
                 tmp_path=tmp_path)


class TrainingFlag(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        h = self.fc(x)
        if self.training:
            h = self.drop(h)
        else:
            h = h * 0.5
        return h


def test_training_attribute_selects_python_branch():
    _check_layer(TrainingFlag, [(_rand(13, 2, 2),), (_rand(14, 3, 2),)])


class NestedLayers(nn.Layer):
    class Inner(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x):
            if x.mean() > 0:
                return self.fc(x)
            return x

    def __init__(self):
        super().__init__()
        self.inners = nn.LayerList([NestedLayers.Inner(), NestedLayers.Inner()])

    def forward(self, x, n):
        for _ in range(n):
            for inner in self.inners:
                x = inner(x)
        return x


@pytest.mark.parametrize("n", [0, 2])
def test_layerlist_python_loop_inside_tensor_loop(n):
    spec = [InputSpec([None, 3], "float32"), InputSpec([], "int64")]
    _check_layer(NestedLayers, [(_rand(15, 2, 3, shift=1.0), _i(n)), (_rand(16, 2, 3, shift=-1.0), _i(n))],
                 input_spec=spec)


class StateDictHead(nn.Layer):
    def __init__(self):
        super().__init__()
        self.heads = nn.LayerList([nn.Linear(2, 1) for _ in range(3)])

    def forward(self, x, k):
        outs = []
        for i in range(len(self.heads)):
            outs.append(self.heads[i](x))
        stacked = paddle.concat(outs, axis=-1)
        return stacked[:, k]


def test_index_layerlist_with_python_int_and_gather_by_tensor():
    _check_layer(StateDictHead, [(_rand(17, 2, 2), _i(0)), (_rand(18, 4, 2), _i(2))])


class ParamListLoop(nn.Layer):
    def __init__(self):
        super().__init__()
        self.ws = nn.ParameterList([self.create_parameter([2, 2]) for _ in range(2)])

    def forward(self, x):
        for w in self.ws:
            x = paddle.matmul(x, w)
            if x.sum() > 0:
                x = x * 0.5
        return x


def test_parameterlist_loop_with_tensor_if():
    _check_layer(ParamListLoop, [(_rand(19, 2, 2),), (_rand(20, 3, 2, shift=-2.0),)])


class HookedLayer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.fc.register_forward_post_hook(lambda layer, inp, out: out * 2.0)

    def forward(self, x):
        y = self.fc(x)
        if y.mean() > 0:
            y = y + 1.0
        return y


def test_forward_post_hook_on_sublayer():
    _check_layer(HookedLayer, [(_rand(21, 2, 2, shift=2.0),), (_rand(22, 2, 2, shift=-2.0),)])


class OptionalMask(nn.Layer):
    def forward(self, x, mask=None):
        if mask is not None:
            x = x * mask
        return x + 1.0


def test_layer_called_again_with_optional_arg():
    net = paddle.jit.to_static(OptionalMask())
    x = paddle.to_tensor(np.ones(2, "float32"))
    net(x)
    np.testing.assert_allclose(net(x, x * 3.0).numpy(), [4.0, 4.0])
