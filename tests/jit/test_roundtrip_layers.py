"""Save/load round trips of Layers (LayerList / Sequential / LayerDict / sublayer calls in loops,
several outputs) in one fresh interpreter that cannot import this module (tests/roundtrip.py)."""
import numpy as np
import pytest

import dy2st as paddle
from tests.roundtrip import RT, roundtrip_all
from tests.support import randn as r, seeded as _seeded

nn = paddle.nn
F = "float32"
I = "int64"


def i64(v):
    return np.array(v, dtype="int64")


class StackInLoop(nn.Layer):
    """A LayerList applied in a tensor while, each layer behind a tensor if."""

    def __init__(self):
        super().__init__()
        self.layers = nn.LayerList([nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x, n):
        i = 0
        while i < n:
            for layer in self.layers:
                y = layer(x)
                if y.mean() > 0:
                    x = paddle.tanh(y)
                else:
                    x = x + 0.1
            i += 1
        return x


class SeqAndHeads(nn.Layer):
    """A Sequential body, a LayerDict of heads picked by a Python key, outputs in a dict."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 5))
        self.heads = nn.LayerDict({"a": nn.Linear(5, 2), "b": nn.Linear(5, 1)})

    def forward(self, x):
        h = self.body(x)
        outs = {}
        for k in ["a", "b"]:
            outs[k] = self.heads[k](h)
        if h.sum() > 0:
            outs["a"] = outs["a"] * 2.0
        return outs, h.shape[-1]


class IndexedByLoop(nn.Layer):
    """LayerList indexed by a Python loop index inside a range(tensor) loop."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([nn.Linear(2, 2), nn.Linear(2, 2)])
        self.scale = self.create_parameter([2], default_initializer=nn.initializer.Constant(0.5))

    def forward(self, x, n):
        for step in range(n):
            for j in range(len(self.blocks)):
                x = self.blocks[j](x) * self.scale
            if step > 1:
                x = x + step
        return x, self.scale.sum()


class MethodWithReturns(nn.Layer):
    """forward loops over a helper method that returns early from a tensor if."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def step(self, h):
        if h.abs().max() > 4.0:
            return h * 0.5
        h = self.fc(h)
        return h + 1.0

    def forward(self, x, n):
        outs = []
        for _ in range(n):
            x = self.step(x)
            outs.append(x.sum())
        return x, len(outs) if False else x.mean()


class BatchNormEval(nn.Layer):
    """BatchNorm and LayerNorm (eval) around a tensor while with a None batch dim."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1D(4)
        self.ln = nn.LayerNorm(4)
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = self.bn(x)
        while h.abs().sum() < 50.0:
            h = self.fc(h) * 2.0 + 1.0
        return self.ln(h)


class EmbedGather(nn.Layer):
    """Embedding of int ids, a loop over the sequence length (a None dim)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.cell = nn.Linear(8, 4)

    def forward(self, ids):
        e = self.emb(ids)
        h = paddle.zeros([e.shape[0], 4])
        for t in range(e.shape[1]):
            h = paddle.tanh(self.cell(paddle.concat([e[:, t], h], axis=-1)))
        return h


class TupleReturnsPerBranch(nn.Layer):
    """A nested tuple output, a Python constant, a None."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        h = self.fc(x)
        if h.max() > 0.5:
            a, b = h, h * 2.0
        else:
            a, b = -h, h
        return (a, (b, 7)), None, {"s": a.sum()}


MODELS = [
    RT("layerlist_in_tensor_while", _seeded(StackInLoop), [([None, 4], F), ([], I)],
       [(r(1, 2, 4), i64(0)), (r(2, 3, 4), i64(2)), (r(3, 1, 4, shift=-2.0), i64(1))]),
    RT("sequential_layerdict_dict_out", _seeded(SeqAndHeads), [([None, 3], F)],
       [(r(4, 2, 3, shift=2.0),), (r(5, 4, 3, shift=-2.0),)]),
    RT("layerlist_indexed_in_range_loop", _seeded(IndexedByLoop), [([None, 2], F), ([], I)],
       [(r(6, 2, 2), i64(0)), (r(7, 3, 2), i64(3))]),
    RT("method_with_returns_in_loop", _seeded(MethodWithReturns), [([None, 3], F), ([], I)],
       [(r(8, 2, 3), i64(0)), (r(9, 3, 3), i64(2)), (r(10, 1, 3, shift=6.0), i64(3))]),
    RT("batchnorm_layernorm_while", _seeded(BatchNormEval), [([None, 4], F)],
       [(r(11, 3, 4),), (r(12, 5, 4, scale=100.0),)]),
    RT("embedding_loop_over_seq_len", _seeded(EmbedGather), [([None, None], I)],
       [(np.array([[1, 2, 3], [4, 5, 6]], "int64"),), (np.array([[9]], "int64"),),
        (np.zeros([3, 0], "int64"),)]),
    RT("nested_tuple_const_none_outputs", _seeded(TupleReturnsPerBranch), [([None, 2], F)],
       [(r(13, 2, 2, shift=2.0),), (r(14, 3, 2, shift=-2.0),)]),
]

XFAIL = {}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return roundtrip_all(MODELS, tmp_path_factory.mktemp("rt_layers"))


@pytest.mark.parametrize("name", [
    pytest.param(m.name, marks=pytest.mark.xfail(strict=True, reason=XFAIL[m.name]))
    if m.name in XFAIL else m.name for m in MODELS])
def test_roundtrip(results, name):
    assert results[name] is None, results[name]
