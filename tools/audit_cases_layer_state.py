"""Audit round 6, Layers: LayerList / LayerDict / Sequential iterated and indexed under tensor
control flow, train()/eval() switched between calls around BatchNorm, dropout and branches on
self.training, buffers updated in forward, parameters and sublayers created on the first call
(tools/audit_cases.py)."""
import dy2st as paddle
from tools.audit_cases_layers import BUILT, XS, built
from tools.audit_cases_python import XS as ROWS_1_TO_4, C

nn = paddle.nn
F = nn.functional
NOSAVE = {"save": False}


# ====================================================== containers of Layers (group 48)
class LayerListSkipOnTensor(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([nn.Linear(3, 3) for _ in range(3)])

    def forward(self, x):
        for blk in self.blocks:
            y = blk(x)
            if y.mean() > 0:
                x = x + paddle.tanh(y)
        return x


class LayerDictByKey(nn.Layer):
    def __init__(self):
        super().__init__()
        self.heads = nn.LayerDict({"a": nn.Linear(3, 2), "b": nn.Linear(3, 2)})
        self.key = "a"

    def forward(self, x):
        return self.heads[self.key](x)


def _key_between(k):
    BUILT[-1].key = "ab"[k % 2]


class SequentialSlices(nn.Layer):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 3), nn.ReLU())

    def forward(self, x):
        y = self.seq[:2](x)
        if y.sum() > 0:
            y = self.seq[-2:](y)
        return y + self.seq[0](x)


class ZipBlocksNormsBreak(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([nn.Linear(3, 3) for _ in range(3)])
        self.norms = nn.LayerList([nn.LayerNorm(3) for _ in range(3)])

    def forward(self, x):
        for blk, norm in zip(self.blocks, self.norms):
            x = norm(blk(x))
            if x.abs().max() > 1.5:
                break
        return x


class EnumerateResidualEveryOther(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([nn.Linear(3, 3) for _ in range(4)])

    def forward(self, x):
        for i, blk in enumerate(self.blocks):
            y = blk(x)
            x = x + y if i % 2 else y
        return x


class LayerDictItemsTensorWhile(nn.Layer):
    def __init__(self):
        super().__init__()
        self.steps = nn.LayerDict({"s1": nn.Linear(3, 3), "s2": nn.Linear(3, 3)})

    def forward(self, x):
        for _name, layer in self.steps.items():
            while x.abs().max() > 1.0:
                x = layer(x) * 0.5
        return x


class LayerListIndexFromShape(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([nn.Linear(3, 3) for _ in range(5)])

    def forward(self, x):
        return self.blocks[x.shape[0]](x)


class LayerListAppendedBetweenCalls(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([nn.Linear(3, 3)])

    def forward(self, x):
        for blk in self.blocks:
            x = paddle.tanh(blk(x))
        return x


def _append_between(k):
    if k in (1, 3):
        paddle.seed(10 + k)
        BUILT[-1].blocks.append(nn.Linear(3, 3))


# ====================================================== train / eval (group 49)
class BNUnderTensorIf(nn.Layer):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1D(3, momentum=0.5)

    def forward(self, x):
        if x.mean() > 0:
            y = self.bn(x)
        else:
            y = x * 1.0
        return y, self.bn._mean * 1.0


class BNInTensorLoop(nn.Layer):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1D(3, momentum=0.5)

    def forward(self, x):
        k = (x[:, 0] > 0).astype("int64").sum()
        y = x
        for _ in range(k):
            y = self.bn(y)
        return y, self.bn._mean * 1.0


def _bn_flip(k):
    if k == 2:
        BUILT[-1].eval()
    elif k == 3:
        BUILT[-1].train()


class DropoutOneInTrain(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return F.dropout(self.lin(x), p=1.0, training=self.training) + 1.0


def _flip_all(k):
    if k % 2:
        BUILT[-1].eval()
    else:
        BUILT[-1].train()


class TrainingAndTensorCondition(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        y = self.lin(x)
        if self.training and y.sum() > 0:
            y = y * 2.0
        elif not self.training:
            y = y - 1.0
        return y


def _mode_of(layer):
    return 1.0 if layer.training else -1.0


class TrainingReadInHelper(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x) * _mode_of(self)


class SubEvalOnly(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.Sequential(nn.Linear(3, 3), nn.Dropout(1.0))
        self.b = nn.Linear(3, 3)

    def forward(self, x):
        return self.a(x) + self.b(x)


def _sub_eval(k):
    BUILT[-1].a.eval() if k % 2 else BUILT[-1].a.train()


# ====================================================== buffers and lazy parameters (group 50)
class BufferRebound(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", paddle.zeros([1]))

    def forward(self, x):
        self.steps = self.steps + 1.0
        return x * self.steps


class BufferEmaUnderTensorIf(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("ema", paddle.zeros([3]))

    def forward(self, x):
        m = x.mean(axis=0)
        if m.sum() > 0:
            paddle.assign(self.ema * 0.5 + m * 0.5, output=self.ema)
        return x - self.ema


class BufferCountsRows(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("seen", paddle.zeros([1]))

    def forward(self, x):
        for r in x:
            if r.sum() > 0:
                self.seen.add_(paddle.ones([1]))
        return x * self.seen


class BufferItemWrite(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("last", paddle.zeros([2]))

    def forward(self, x):
        y = x * self.last[0] + self.last[1]
        self.last[0] = x.sum()
        self.last[1] = x.max()
        return y


class NonPersistableBuffer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("acc", paddle.zeros([3]), persistable=False)

    def forward(self, x):
        self.acc.add_(x.sum(axis=0))
        return x + self.acc


class LazyParameter(nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = None

    def forward(self, x):
        if self.w is None:
            self.w = self.create_parameter(
                [x.shape[-1], 2], default_initializer=nn.initializer.Constant(0.5))
        return paddle.matmul(x, self.w)


class LazySublayer(nn.Layer):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if not hasattr(self, "lin"):
            paddle.seed(3)
            self.lin = nn.Linear(x.shape[-1], 2)
        return self.lin(x)


CASES = [
    C(48, built(LayerListSkipOnTensor), ROWS_1_TO_4, layer=True),
    C(48, built(LayerDictByKey), XS, layer=True, between=_key_between, **NOSAVE),
    C(48, built(SequentialSlices), XS, layer=True),
    C(48, built(ZipBlocksNormsBreak), ROWS_1_TO_4, layer=True),
    C(48, built(EnumerateResidualEveryOther), XS, layer=True),
    C(48, built(LayerDictItemsTensorWhile), XS, layer=True),
    C(48, built(LayerListIndexFromShape), ROWS_1_TO_4, layer=True, refusal_ok=("saved",)),
    C(48, built(LayerListAppendedBetweenCalls), XS, layer=True, between=_append_between,
      **NOSAVE),
    C(49, built(BNUnderTensorIf), XS, layer=True, between=_bn_flip, **NOSAVE),
    C(49, built(BNInTensorLoop), XS, layer=True, between=_bn_flip, refusal_ok=("full_graph",),
      **NOSAVE),
    C(49, built(DropoutOneInTrain), XS, layer=True, between=_flip_all, **NOSAVE),
    C(49, built(TrainingAndTensorCondition), XS, layer=True, between=_flip_all, **NOSAVE),
    C(49, built(TrainingReadInHelper), XS, layer=True, between=_flip_all, **NOSAVE),
    C(49, built(SubEvalOnly), XS, layer=True, between=_sub_eval, **NOSAVE),
    C(50, built(BufferRebound), ROWS_1_TO_4, layer=True, **NOSAVE),
    C(50, built(BufferEmaUnderTensorIf), XS, layer=True, **NOSAVE),
    C(50, built(BufferCountsRows), ROWS_1_TO_4, layer=True, refusal_ok=("full_graph",),
      **NOSAVE),
    C(50, built(BufferItemWrite), XS, layer=True, **NOSAVE),
    C(50, built(NonPersistableBuffer), XS, layer=True, **NOSAVE),
    C(50, built(LazyParameter), XS, layer=True, refusal_ok=("full_graph",), **NOSAVE),
    C(50, built(LazySublayer), XS, layer=True, refusal_ok=("full_graph",), **NOSAVE),
]
