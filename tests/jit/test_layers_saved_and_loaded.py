"""Layers: nested sublayers with LayerNorm / BatchNorm1D / Dropout in eval inside tensor
control flow, LayerList indexed by a Python loop variable (also negative), ParameterList,
Embedding with int64 ids and unknown dims, keyword defaults, hooks, Conv2D, dict outputs with
Python numbers, buffers, bound methods of a Layer as the converted function; saved and loaded in
a fresh interpreter. Also: a Layer left in training mode is saved in eval mode (the loaded model
no longer matches the eager train-mode results)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.roundtrip import RT, roundtrip_all
from tests.support import seeded

nn = paddle.nn
F, I = "float32", "int64"


def r(seed, *shape, shift=0.0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale + shift).astype(F)


def i64(v):
    return np.asarray(v, dtype=I)


class Inner(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.ln = nn.LayerNorm(4)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = self.ln(h)
        return h


class Outer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([Inner() for _ in range(3)])
        self.drop = nn.Dropout(0.5)
        self.bn = nn.BatchNorm1D(4)

    def forward(self, x, n):
        for i in range(len(self.blocks)):
            if i < n:
                x = self.blocks[i](x) + x
        x = self.drop(x)
        if x.sum() > 0:
            x = self.bn(x)
        return x


class ParamListLayer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.ws = nn.ParameterList([self.create_parameter([3, 3]) for _ in range(3)])

    def forward(self, x):
        i = 0
        for w in self.ws:
            if (x @ w).sum() > 0:
                x = x @ w
            else:
                x = x - 0.1 * i
            i += 1
        return x


class EmbedLoop(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.fc = nn.Linear(4, 2)

    def forward(self, ids):
        h = self.emb(ids)
        out = paddle.zeros([ids.shape[0], 4])
        for t in range(ids.shape[1]):
            if ids[0, t] > 4:
                out = out + h[:, t]
        return self.fc(out)


class KwDefaults(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x, scale=2.0, use_relu=True, bias=None):
        h = self.fc(x) * scale
        if use_relu:
            h = nn.functional.relu(h)
        if bias is not None:
            h = h + bias
        if h.sum() > 1.0:
            h = h / h.sum()
        return h


class SeqWhile(nn.Layer):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(3, 5), nn.GELU(), nn.Linear(5, 3), nn.Tanh())
        self.sm = nn.Softmax(axis=-1)

    def forward(self, x, n):
        i = paddle.zeros([], dtype="int64")
        while i < n:
            x = self.seq(x) + x
            i += 1
        return self.sm(x), i


class ConvIf(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(2, 3, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        if y.mean() > 0:
            y = nn.functional.relu(y)
        return y.flatten(1)


class DictOut(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 2)
        self.b = nn.Linear(3, 2)

    def forward(self, x):
        if x.mean() > 0:
            return {"logits": self.a(x), "n": x.shape[0]}
        return {"logits": self.b(x), "n": x.shape[0]}


class BufferRows(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", paddle.to_tensor(np.array([1.0, 2.0, 3.0], dtype=F)))
        self.w = self.create_parameter([3], default_initializer=nn.initializer.Constant(0.5))

    def forward(self, x):
        for i in range(x.shape[0]):
            if x[i].sum() > 0:
                x[i] = x[i] * self.scale + self.w
        return x


class NegIndexList(nn.Layer):
    def __init__(self):
        super().__init__()
        self.ls = nn.LayerList([nn.Linear(3, 3) for _ in range(3)])

    def forward(self, x):
        if x.mean() > 0:
            x = self.ls[-1](x)
        else:
            x = self.ls[len(self.ls) - 2](x)
        return x, len(self.ls)


class SubHook(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.fc.register_forward_post_hook(lambda layer, inp, out: out * 2.0)

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            h = h - 1.0
        return h


class MethodNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(x)

    def score(self, x, n):
        h = self.fc(x)
        i = paddle.zeros([], dtype="int64")
        while i < n:
            h = paddle.tanh(h) + self.fc(h)
            i += 1
        if h.sum() > 0:
            return h, i
        return -h, i


def _method():
    paddle.seed(7)
    return MethodNet().score


LAYERS = [
    RT("outer_nested_ln_bn_dropout", seeded(Outer), [([None, 4], F), ([], I)],
       [(r(1, 2, 4), i64(1)), (r(2, 3, 4), i64(3)), (r(3, 1, 4, shift=-3.0), i64(0))]),
    RT("parameter_list", seeded(ParamListLayer), [([None, 3], F)], [(r(4, 2, 3),), (r(5, 4, 3, shift=-1.0),)]),
    RT("embedding_int64_unknown_dims", seeded(EmbedLoop), [([None, None], I)],
       [(i64([[1, 5, 7], [2, 3, 9]]),), (i64([[6, 0, 1, 8]]),)]),
    RT("keyword_defaults", seeded(KwDefaults), [([None, 3], F)], [(r(6, 2, 3),), (r(7, 4, 3, shift=3.0),)]),
    RT("sequential_in_while", seeded(SeqWhile), [([None, 3], F), ([], I)], [(r(8, 2, 3), i64(2)), (r(9, 4, 3), i64(0))]),
    RT("conv2d_if", seeded(ConvIf), [([None, 2, 4, 4], F)], [(r(10, 1, 2, 4, 4),), (r(11, 3, 2, 4, 4, shift=-2.0),)]),
    RT("dict_out_with_dim", seeded(DictOut), [([None, 3], F)], [(r(12, 1, 3, shift=1.0),), (r(13, 3, 3, shift=-2.0),)]),
    RT("buffer_rows_setitem", seeded(BufferRows), [([None, 3], F)], [(r(14, 2, 3),), (r(15, 4, 3),)]),
    RT("layerlist_negative_index", seeded(NegIndexList), [([None, 3], F)], [(r(16, 3, 3, shift=1.0),), (r(17, 5, 3, shift=-2.0),)]),
    RT("sublayer_post_hook", seeded(SubHook), [([None, 3], F)], [(r(18, 3, 3),), (r(19, 5, 3, shift=-2.0),)]),
    RT("bound_method_of_layer", _method, [([None, 3], F), ([], I)], [(r(20, 2, 3), i64(2)), (r(21, 4, 3), i64(0))]),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return roundtrip_all(LAYERS, tmp_path_factory.mktemp("rt_scen3_layers"))


@pytest.mark.parametrize("name", [m.name for m in LAYERS])
def test_roundtrip(results, name):
    assert results[name] is None, results[name]


@pytest.mark.parametrize("spec", [None, [InputSpec([None, 3], F)]])
def test_same_layer_different_batch_sizes_in_one_run(spec):
    paddle.seed(3)
    m = KwDefaults()
    m.eval()
    sf = paddle.jit.to_static(m, input_spec=spec)
    for seed, b in [(30, 1), (31, 4), (32, 2), (33, 7)]:
        x = r(seed, b, 3, shift=1.0 if b % 2 else -1.0)
        paddle.jit.enable_to_static(False)
        eager = m(paddle.to_tensor(x)).numpy()
        paddle.jit.enable_to_static(True)
        np.testing.assert_allclose(sf(paddle.to_tensor(x)).numpy(), eager, rtol=1e-5, atol=1e-6)


class TrainDependent(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.bn = nn.BatchNorm1D(4)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = self.bn(h)
        else:
            h = self.bn(-h)
        return h


def test_saved_layer_is_in_eval_mode_unless_told_otherwise(tmp_path):
    # issue 4: jit.save exports the graph "in eval mode unless told otherwise"
    paddle.seed(5)
    m = TrainDependent()
    x = r(40, 3, 4)
    train_out = m(paddle.to_tensor(x)).numpy()
    m.eval()
    eval_out = m(paddle.to_tensor(x)).numpy()
    m.train()
    assert not np.allclose(train_out, eval_out)
    sf = paddle.jit.to_static(m, full_graph=True)
    np.testing.assert_allclose(sf(paddle.to_tensor(x)).numpy(), train_out, rtol=1e-5, atol=1e-6)
    # the static call in train mode updated the running statistics, as an eager call does
    paddle.jit.enable_to_static(False)
    m.eval()
    eval_out = m(paddle.to_tensor(x)).numpy()
    m.train()
    paddle.jit.enable_to_static(True)
    paddle.jit.save(sf, str(tmp_path / "m"), input_spec=[InputSpec([None, 4], F)])
    loaded = paddle.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), eval_out, rtol=1e-5, atol=1e-6)
    assert m.training                                  # the layer's own mode is put back
    paddle.jit.save(sf, str(tmp_path / "t"), input_spec=[InputSpec([None, 4], F)],
                    keep_training=True)
    kept = paddle.jit.load(str(tmp_path / "t"))
    np.testing.assert_allclose(kept(paddle.to_tensor(x)).numpy(), train_out, rtol=1e-5, atol=1e-6)


def test_train_then_eval_switch_between_calls():
    paddle.seed(6)
    m = TrainDependent()
    sf = paddle.jit.to_static(m)
    x = paddle.to_tensor(r(41, 5, 4))
    for mode in ("train", "eval", "train", "eval"):
        getattr(m, mode)()
        got = sf(x).numpy()
        paddle.jit.enable_to_static(False)
        want = m(x).numpy()
        paddle.jit.enable_to_static(True)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=mode)
