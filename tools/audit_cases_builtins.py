"""Audit round 4, builtins and indexing: max/min/abs/pow/divmod of tensors, chained comparisons,
`and`/`or` returning operands, map/filter/reduce/itertools over rows, sorted with tensor keys,
advanced indexing, namedtuple and dataclass outputs, shapes of None dims in Python code, Layers
calling shared sublayers and functional dropout (tools/audit_cases.py)."""
import collections
import dataclasses
import functools
import itertools

import numpy as np

import dy2st as paddle
from tools.audit_cases_layers import BUILT, XS as XS4, built
from tools.audit_cases_python import FG_SAVE, SAVE, C, rows

nn = paddle.nn
F = paddle.nn.functional


# ====================================================== builtins on tensors
def builtin_max_min_abs(x):
    a = max(x.sum(), 0.5)
    b = min(x[0].sum(), x[-1].sum())
    return x * a + abs(b) + pow(x, 2) * 0.1


def builtin_max_of_row_sums(x):
    best = max([r.sum() for r in x])
    return x * best + min(x.sum(), 1.0)


def chained_comparison(x):
    s = x.sum()
    if -1.0 < s < 2.0:
        return x * 2.0
    return x - 1.0


def and_or_operands(x):
    s = x.mean()
    k = (s > 0) and 2.0 or -3.0
    return x * k


def floordiv_mod_floats(x):
    y = x * 3.0
    return y // 2.0 + (y % 2.0) * 0.5 + (-y) // 1.5


def map_over_rows(x):
    return paddle.stack(list(map(lambda r: r * 2.0 + 1.0, x))).sum(0)


def filter_rows_on_tensor(x):
    kept = list(filter(lambda r: r.sum() > 0, x))
    return paddle.to_tensor(float(len(kept))) + x.sum() * 0.0


def reduce_rows(x):
    return functools.reduce(lambda a, b: a * 0.5 + b, x)


def accumulate_rows(x):
    parts = list(itertools.accumulate(x, lambda a, b: a + b))
    return parts[-1] - parts[0]


def sorted_by_tensor_key(x):
    order = sorted(range(x.shape[0]), key=lambda k: float(x[k].sum()))
    return paddle.stack([x[k] for k in order])


def sum_with_start(x):
    return sum([x[0], x[-1]], x[0] * 10.0)


def any_all_of_list(x):
    if any([r.sum() > 1.0 for r in x]):
        y = x * 2.0
    else:
        y = x
    if all(v > -5.0 for v in x.sum(1)):
        y = y + 1.0
    return y


# ====================================================== indexing
def index_none_and_list(x):
    return x[None].sum(0) + x[:, None, 1].sum(1, keepdim=True) + x[[0, -1]].sum(0)


def index_tensor_list(x):
    idx = paddle.to_tensor([0, 0, 1][: x.shape[0]] if x.shape[0] < 3 else [2, 0, 1])
    return x[idx] * 2.0


def index_bool_mask_python_list(x):
    m = paddle.to_tensor([True, False, True])
    return x[:, m]


def matmul_transpose(x):
    return x @ x.T + (x.T @ x).sum() * 0.1


# ====================================================== structured outputs
Pair = collections.namedtuple("Pair", "a b")


def namedtuple_out(x):
    p = Pair(x * 2.0, x.sum())
    if p.b > 0:
        p = p._replace(a=p.a + 1.0)
    return p


@dataclasses.dataclass
class Box:
    lo: object
    hi: object


def dataclass_in_branch(x):
    b = Box(x.min(1), x.max(1))
    if x.mean() > 0:
        b.hi = b.hi * 2.0
    return b.hi - b.lo


def dict_string_keys_in_loop(x):
    d = {}
    for k in range(3):
        d[f"c{k}"] = x[:, k] * float(k + 1)
    return d


# ====================================================== shapes in Python code
def numel_and_ndim(x):
    return x * float(x.ndim) + x.numel().astype("float32") * 0.01


def full_with_shape(x):
    return paddle.full([x.shape[0], 2], 1.5) + x[:, :2]


def to_tensor_of_shape(x):
    return paddle.to_tensor(x.shape).astype("float32") * 1.0


def shape_equality(x):
    if x.shape[1] == 3 and len(x.shape) == 2:
        return x * 2.0
    return x


def int_of_half_dim(x):
    return x[: int(x.shape[0] / 2) + 1] * 1.0


# ====================================================== Layers
class SharedSub(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        h = self.lin(x)
        for _ in range(2):
            h = paddle.tanh(self.lin(h))
        return h


class FunctionalDropout(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return F.dropout(self.lin(x), 0.0, training=self.training) * (2.0 if self.training else 1.0)


def _flip(k):
    BUILT[-1].train() if k % 2 == 0 else BUILT[-1].eval()


class ParamRegulariser(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.b = nn.Linear(3, 1)

    def forward(self, x):
        reg = sum(p.abs().sum() for p in self.parameters())
        return self.b(paddle.tanh(self.a(x))) + reg * 0.01


class BufferUnderIf(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("ema", paddle.zeros([3]))

    def forward(self, x):
        if x.mean() > 0:
            self.ema.scale_(0.5)
            self.ema.add_(x.mean(0).detach() * 0.5)
        return x - self.ema


class TrainingInLoop(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        acc = x[0] * 0.0
        for r in x:
            acc = acc + (self.lin(r) if self.training else r)
        return acc


CASES = [
    C(15, builtin_max_min_abs), C(15, builtin_max_of_row_sums, refusal_ok=SAVE), C(15, chained_comparison),
    C(15, and_or_operands), C(15, floordiv_mod_floats), C(15, map_over_rows, refusal_ok=SAVE),
    C(15, filter_rows_on_tensor, refusal_ok=FG_SAVE), C(15, reduce_rows, refusal_ok=SAVE),
    C(15, accumulate_rows, refusal_ok=SAVE), C(15, sorted_by_tensor_key, refusal_ok=FG_SAVE),
    C(15, sum_with_start), C(15, any_all_of_list, refusal_ok=SAVE),
    C(16, index_none_and_list), C(16, index_tensor_list, refusal_ok=SAVE),
    C(16, index_bool_mask_python_list), C(16, matmul_transpose),
    C(17, namedtuple_out, refusal_ok=FG_SAVE), C(17, dataclass_in_branch), C(17, dict_string_keys_in_loop),
    C(18, numel_and_ndim), C(18, full_with_shape), C(18, to_tensor_of_shape),
    C(18, shape_equality), C(18, int_of_half_dim, refusal_ok=SAVE),
    C(19, built(SharedSub), XS4, layer=True),
    C(19, built(FunctionalDropout), XS4, layer=True, between=_flip, save=False),
    C(19, built(ParamRegulariser), XS4, layer=True),
    C(19, built(BufferUnderIf), XS4, layer=True, save=False),
    C(19, built(TrainingInLoop), XS4, layer=True, between=_flip, save=False),
]
_ = np, rows
