"""Audit round 4, Layer state read between calls: self.training and eval()/train() switching,
dropout, BatchNorm running statistics, parameters and plain attributes changed between calls,
an optimizer step between calls (tools/audit_cases.py)."""
import dy2st as paddle
from tools.audit_cases_python import C, rows

nn = paddle.nn
BUILT = []          # the Layer of the mode being run, for the `between` hooks


def built(cls):
    def make():
        paddle.seed(5)
        layer = cls()
        BUILT.append(layer)
        return layer
    make.__name__ = cls.__name__
    return make


XS = [(rows(4, 0.5),), (rows(4, -0.5),), (rows(4, 1.0),), (rows(4, -1.0),), (rows(4, 0.2),)]


class TrainingBranch(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        y = self.lin(x)
        if self.training:
            y = y * 2.0
        return y


def _flip_mode(k):
    if k in (1, 3):
        BUILT[-1].eval()
    else:
        BUILT[-1].train()


class DropoutEvalTrain(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.drop = nn.Dropout(0.0)         # p=0: deterministic in both modes, scaling aside

    def forward(self, x):
        return self.drop(self.lin(x)) + float(self.training)


class DropoutRealEval(nn.Layer):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.5)
        self.eval()

    def forward(self, x):
        return self.drop(x) * 3.0


def _eval_only(k):
    BUILT[-1].eval()


class BNStats(nn.Layer):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1D(3, momentum=0.5)

    def forward(self, x):
        y = self.bn(x)
        return y, self.bn._mean * 1.0, self.bn._variance * 1.0


def _bn_between(k):
    if k == 3:
        BUILT[-1].eval()


class SubTrainingFlag(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = TrainingBranch()
        self.b = nn.Linear(3, 3)

    def forward(self, x):
        y = self.a(x)
        if not self.a.training:
            y = y + self.b(x)
        return y


def _flip_sub(k):
    if k % 2:
        BUILT[-1].a.eval()
    else:
        BUILT[-1].a.train()


class ParamSetValue(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x)


def _set_param(k):
    w = BUILT[-1].lin.weight
    w.set_value(w.numpy() * 0.0 + 0.1 * (k + 1))


class FloatAttr(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.temperature = 1.0

    def forward(self, x):
        y = self.lin(x) / self.temperature
        if self.temperature > 1.5:
            y = paddle.tanh(y)
        return y


def _temperature(k):
    BUILT[-1].temperature = [1.0, 2.0, 0.5, 3.0, 1.0][k]


class OptStep(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.opt = paddle.optimizer.SGD(0.1, parameters=self.lin.parameters())

    def forward(self, x):
        return self.lin(x)


def _sgd_step(k):
    layer = BUILT[-1]
    if k:
        loss = (layer.lin(paddle.ones([2, 3])) ** 2).sum()
        loss.backward()
        layer.opt.step()
        layer.opt.clear_grad()


class BufferCounter(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", paddle.zeros([1]))

    def forward(self, x):
        self.calls.add_(paddle.ones([1]))
        return x * self.calls


class ListOfSublayersIndexed(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([nn.Linear(3, 3) for _ in range(3)])
        self.depth = 3

    def forward(self, x):
        for blk in self.blocks[: self.depth]:
            x = paddle.tanh(blk(x))
        return x


def _depth(k):
    BUILT[-1].depth = [3, 1, 2, 0, 3][k]


NOSAVE = {"save": False}
CASES = [
    C(14, built(TrainingBranch), XS, layer=True, between=_flip_mode, **NOSAVE),
    C(14, built(DropoutEvalTrain), XS, layer=True, between=_flip_mode, **NOSAVE),
    C(14, built(DropoutRealEval), XS, layer=True, between=_eval_only),
    C(14, built(BNStats), XS, layer=True, between=_bn_between, **NOSAVE),
    C(14, built(SubTrainingFlag), XS, layer=True, between=_flip_sub, **NOSAVE),
    C(14, built(ParamSetValue), XS, layer=True, between=_set_param, **NOSAVE),
    C(14, built(FloatAttr), XS, layer=True, between=_temperature, **NOSAVE),
    C(14, built(OptStep), XS, layer=True, between=_sgd_step, **NOSAVE),
    C(14, built(BufferCounter), XS, layer=True, **NOSAVE),
    C(14, built(ListOfSublayersIndexed), XS, layer=True, between=_depth, **NOSAVE),
]
