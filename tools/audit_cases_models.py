"""Audit round 5, model-shaped code: masking with -inf then softmax, top-k and beam-search loops,
greedy decoding, padding / unpadding with lists of tensors, attention caches kept in dicts grown
per step, recurrent cells stepped in loops and running statistics kept by Layers."""
import numpy as np

import dy2st as paddle
from tools.audit_cases_python import FG_SAVE, SAVE, XS, C, rows

F = paddle.nn.functional
nn = paddle.nn
NEG_INF = float("-inf")


def _ints(*vals):
    return np.array(vals, "int64")


# rows and a length per row (0 to 3 valid columns)
LENS = [(rows(2, 1.0), _ints(3, 1)), (rows(3, -1.0), _ints(0, 2, 3)), (rows(1), _ints(2,)),
        (rows(4, 0.5), _ints(1, 3, 0, 2)), (rows(2, -2.0), _ints(3, 3))]
# rows and a class label per row
LABELS = [(rows(2, 1.0), _ints(0, 2)), (rows(3, -1.0), _ints(1, 1, 0)), (rows(1), _ints(2,)),
          (rows(4, 0.5), _ints(2, 0, 1, 1)), (rows(2, -2.0), _ints(1, 0))]


# ====================================================== masking with -inf, softmax
def causal_mask_softmax(x):
    scores = paddle.matmul(x, x, transpose_y=True)
    n = x.shape[0]
    mask = paddle.triu(paddle.ones([n, n]), diagonal=1) > 0
    scores = paddle.where(mask, paddle.full_like(scores, NEG_INF), scores)
    return paddle.matmul(F.softmax(scores, axis=-1), x)


def length_mask_softmax(x, lens):
    pos = paddle.arange(3).unsqueeze(0)
    mask = pos >= lens.unsqueeze(1)
    logits = paddle.where(mask, paddle.full_like(x, -1e9), x)
    return F.softmax(logits, axis=-1) * x


def fully_masked_row_nan_to_num(x, lens):
    mask = paddle.arange(3).unsqueeze(0) >= lens.unsqueeze(1)
    logits = paddle.where(mask, paddle.full_like(x, NEG_INF), x)
    p = F.softmax(logits, axis=-1)
    return paddle.nan_to_num(p, nan=0.0) + x * 0.5


def masked_fill_python_inf(x):
    y = x.masked_fill(x < 0, NEG_INF)
    if paddle.isinf(y).all():
        return x * 0.0
    return F.softmax(y, axis=1)


def additive_mask_tril(x):
    n = x.shape[0]
    bias = (1.0 - paddle.tril(paddle.ones([n, n]))) * -10000.0
    att = F.softmax(paddle.matmul(x, x.t()) / 3 ** 0.5 + bias, axis=-1)
    return paddle.matmul(att, x)


def log_softmax_nll(x, labels):
    logp = F.log_softmax(x, axis=-1)
    picked = paddle.take_along_axis(logp, labels.unsqueeze(1), axis=1)
    return -picked.mean()


def cross_entropy_label_smoothing(x, labels):
    onehot = F.one_hot(labels, 3)
    smooth = onehot * 0.9 + 0.1 / 3
    return -(smooth * F.log_softmax(x, -1)).sum(-1).mean()


def logsumexp_masked(x, lens):
    mask = paddle.arange(3).unsqueeze(0) < lens.unsqueeze(1)
    y = paddle.where(mask, x, paddle.full_like(x, -1e30))
    return paddle.logsumexp(y, axis=1)


# ====================================================== top-k and decoding loops
def topk_by_repeated_argmax(x):
    flat = x.flatten() * 1.0
    picked = []
    for _ in range(2):
        i = paddle.argmax(flat)
        picked.append(flat[i])
        flat[i] = NEG_INF
    return paddle.stack(picked), flat.clip(min=-100.0)


def topk_gather(x):
    v, i = paddle.topk(x, k=2, axis=1)
    back = paddle.take_along_axis(x, i, axis=1)
    return v + back, i


def top_p_filter(x):
    probs = F.softmax(x, axis=-1)
    sp, si = paddle.sort(probs, axis=-1, descending=True), paddle.argsort(probs, -1, True)
    cum = paddle.cumsum(sp, axis=-1)
    drop = (cum - sp) > 0.6
    keep = paddle.where(drop, paddle.zeros_like(sp), sp)
    return keep / keep.sum(-1, keepdim=True), si


def greedy_decode(x):
    state = x.mean(0)
    tokens = []
    step = 0
    while step < 4:
        logits = paddle.tanh(state * float(step + 1) + x[0])
        tok = paddle.argmax(logits)
        tokens.append(tok)
        if tok == 0:
            break
        state = state + logits
        step += 1
    return paddle.stack(tokens), state


def greedy_decode_tensor_stop(x):
    state = x[0] * 1.0
    n = paddle.zeros([], "int64")
    while n < 5 and state.sum() < 3.0:
        state = state + paddle.abs(x.mean(0)) + 0.1
        n += 1
    return state, n


def beam_search(x):
    beam, vocab = 2, 3
    scores = paddle.to_tensor([0.0, NEG_INF])
    seqs = [paddle.zeros([beam], "int64")]
    for t in range(3):
        logp = F.log_softmax(paddle.tanh(x.mean(0) * float(t + 1) + scores.unsqueeze(1)), -1)
        total = (scores.unsqueeze(1) + logp).flatten()
        top, idx = paddle.topk(total, k=beam)
        parent = idx // vocab
        token = idx % vocab
        seqs = [paddle.gather(s, parent) for s in seqs] + [token]
        scores = top
    return paddle.stack(seqs, 1), scores


def beam_search_finished_mask(x):
    scores = x[0, :2] * 1.0
    finished = paddle.zeros([2], "bool")
    lengths = paddle.zeros([2], "int64")
    for t in range(3):
        step = paddle.tanh(x.sum(0)[:2] * float(t + 1))
        scores = paddle.where(finished, scores, scores + step)
        lengths = lengths + (~finished).astype("int64")
        finished = finished | (step < 0)
    return scores / lengths.astype("float32").clip(min=1.0), lengths, finished


def length_penalty_python_pow(x):
    out = []
    for length in range(1, 4):
        penalty = ((5.0 + length) / 6.0) ** 0.6
        out.append(x.sum(1) / penalty)
    return paddle.stack(out)


# ====================================================== padding / unpadding with lists
def pad_prefixes(x):
    seqs = [x[: k + 1] for k in range(x.shape[0])]
    n = x.shape[0]
    padded = [F.pad(s, [0, n - s.shape[0], 0, 0]) for s in seqs]
    return paddle.stack(padded)


def pad_by_concat(x):
    out = []
    for k in range(x.shape[0]):
        part = x[k:]
        fill = paddle.zeros([k, 3])
        out.append(paddle.concat([part, fill], axis=0))
    return paddle.stack(out).sum(1)


def unpad_by_lengths(x, lens):
    parts = []
    for i in range(x.shape[0]):
        parts.append(x[i, : int(lens[i])])
    return paddle.concat(parts)


def sequence_mask_mean(x, lens):
    mask = F.sequence_mask(lens, maxlen=3, dtype="float32")
    return (x * mask).sum(1) / mask.sum(1).clip(min=1.0)


def split_process_concat(x):
    parts = paddle.split(x, 3, axis=1)
    parts = [p * float(i + 1) for i, p in enumerate(parts)]
    parts[1] = parts[1] + parts[0]
    return paddle.concat(parts[::-1], axis=1)


def unbind_rows_reverse(x):
    rows_ = paddle.unbind(x, axis=0)
    acc = []
    for r in reversed(rows_):
        acc.append(r * float(len(acc) + 1))
    return paddle.stack(acc)


# ====================================================== attention caches in dicts
def kv_cache_dict_grown(x):
    cache = {"k": x[:1], "v": x[:1] * 2.0}
    outs = []
    for t in range(1, x.shape[0]):
        q = x[t : t + 1]
        cache["k"] = paddle.concat([cache["k"], q])
        cache["v"] = paddle.concat([cache["v"], q * 2.0])
        att = F.softmax(paddle.matmul(q, cache["k"], transpose_y=True), -1)
        outs.append(paddle.matmul(att, cache["v"]))
    return paddle.concat(outs + [cache["k"].sum(0, keepdim=True)])


def kv_cache_per_layer(x):
    caches = {}
    h = x
    for layer in range(2):
        key = f"layer{layer}"
        caches[key] = {"k": h * 1.0, "v": h + float(layer)}
        att = F.softmax(paddle.matmul(h, caches[key]["k"], transpose_y=True), -1)
        h = paddle.matmul(att, caches[key]["v"])
    return h, {k: v["v"].sum() for k, v in caches.items()}


def cache_tuple_list(x):
    past = []
    h = x
    for _ in range(2):
        k, v = h * 0.5, h + 1.0
        past.append((k, v))
        h = h + paddle.tanh(sum(kk.sum() for kk, _ in past)) * v
    return h, len(past)


class Cell(nn.Layer):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(3, 3)

    def forward(self, x):
        h = paddle.zeros([1, 3])
        outs = []
        for t in range(x.shape[0]):
            y, h = self.cell(x[t : t + 1], h)
            outs.append(y)
        return paddle.concat(outs), h


def seeded_cell():
    paddle.seed(3)
    return Cell()


# ====================================================== running statistics in Layers
class RunningNorm(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", paddle.zeros([3]))
        self.register_buffer("count", paddle.zeros([1]))
        self.momentum = 0.5

    def forward(self, x):
        if self.training:
            m = x.mean(0)
            self.mean.set_value(self.mean * self.momentum + m * (1 - self.momentum))
            self.count.add_(paddle.ones([1]))
        return x - self.mean, self.count * 1.0


class WarmupScale(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.step = 0

    def forward(self, x):
        self.step += 1
        scale = min(1.0, self.step / 3.0)
        return self.lin(x) * scale


class EmaHidden(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("ema", paddle.zeros([3]))

    def forward(self, x):
        for r in x:
            paddle.assign(self.ema * 0.9 + r * 0.1, output=self.ema)
        return x + self.ema


class MaskedAttention(nn.Layer):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(3, 3)
        self.k = nn.Linear(3, 3)

    def forward(self, x):
        s = paddle.matmul(self.q(x), self.k(x), transpose_y=True)
        n = x.shape[0]
        s = s + paddle.triu(paddle.full([n, n], NEG_INF), diagonal=1)
        return paddle.matmul(F.softmax(s, -1), x)


def seeded(cls):
    def make():
        paddle.seed(5)
        return cls()
    make.__name__ = cls.__name__
    return make


NOSAVE = {"save": False}
CASES = [
    C(20, causal_mask_softmax), C(20, length_mask_softmax, LENS),
    C(20, fully_masked_row_nan_to_num, LENS), C(20, masked_fill_python_inf),
    C(20, additive_mask_tril), C(20, log_softmax_nll, LABELS),
    C(20, cross_entropy_label_smoothing, LABELS), C(20, logsumexp_masked, LENS),
    C(21, topk_by_repeated_argmax), C(21, topk_gather), C(21, top_p_filter),
    C(21, greedy_decode, refusal_ok=FG_SAVE), C(21, greedy_decode_tensor_stop),
    C(21, beam_search), C(21, beam_search_finished_mask), C(21, length_penalty_python_pow),
    C(22, pad_prefixes, refusal_ok=SAVE), C(22, pad_by_concat, refusal_ok=SAVE),
    C(22, unpad_by_lengths, LENS, refusal_ok=FG_SAVE), C(22, sequence_mask_mean, LENS),
    C(22, split_process_concat), C(22, unbind_rows_reverse, refusal_ok=SAVE),
    C(23, kv_cache_dict_grown, refusal_ok=SAVE), C(23, kv_cache_per_layer),
    C(23, cache_tuple_list), C(23, seeded_cell, layer=True, refusal_ok=SAVE),
    C(23, seeded(RunningNorm), layer=True, **NOSAVE), C(23, seeded(WarmupScale), layer=True, **NOSAVE),
    C(23, seeded(EmaHidden), layer=True, refusal_ok=("full_graph",), **NOSAVE), C(23, seeded(MaskedAttention), layer=True),
]
_ = XS
