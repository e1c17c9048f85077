"""Audit round 5, sequence-model code: Viterbi decoding with back-pointers, a decoder loop
stopping on a per-row finished mask, padding masks from token ids, positional ids from shapes,
and per-step caches in dicts keyed by step (tools/audit_cases.py)."""
import numpy as np

import dy2st as paddle
from tools.audit_cases_python import FG_SAVE, SAVE, C, rows

F = paddle.nn.functional
nn = paddle.nn


def _ids(*r):
    return np.array(r, "int64")


# token ids with padding (0) at the end of some rows
IDS = [(_ids([3, 1, 0], [2, 0, 0]),), (_ids([1, 1, 1], [4, 2, 0], [0, 0, 0]),), (_ids([5, 0, 0],),),
       (_ids([1, 2, 3], [3, 0, 0], [2, 2, 0], [1, 0, 0]),), (_ids([4, 4, 4], [1, 2, 3]),)]
TRANS = np.array([[0.5, -0.2, 0.1], [0.0, 0.3, -0.4], [-0.1, 0.2, 0.6]], "float32")


def viterbi(x):
    trans = paddle.to_tensor(TRANS)
    score = x[0]
    back = []
    for t in range(1, x.shape[0]):
        cand = score.unsqueeze(1) + trans
        back.append(paddle.argmax(cand, axis=0))
        score = paddle.max(cand, axis=0) + x[t]
    best = paddle.argmax(score)
    path = [best]
    for ptr in reversed(back):
        best = ptr[best]
        path.append(best)
    return paddle.stack(path[::-1]), score.max()


def decoder_finished_mask(x):
    h = x * 0.5
    finished = paddle.zeros([x.shape[0]], "bool")
    steps = paddle.zeros([x.shape[0]], "int64")
    t = 0
    while t < 4 and not finished.all():
        h = paddle.tanh(h + x)
        done_now = h.sum(1) > 1.0
        steps = steps + (~finished).astype("int64")
        finished = finished | done_now
        t += 1
    return h, steps, t


def decoder_tensor_while(x):
    h = x[0] * 1.0
    i = paddle.zeros([], "int64")
    outs = paddle.zeros([0, 3])
    while i < 3 and h.abs().sum() < 10.0:
        h = h * 1.5 + 0.2
        outs = paddle.concat([outs, h.unsqueeze(0)])
        i += 1
    return outs.sum(0), i


def padding_mask_from_ids(ids):
    mask = (ids != 0).astype("float32")
    emb = paddle.nn.functional.one_hot(ids, 6) * 2.0 - 1.0
    pooled = (emb * mask.unsqueeze(-1)).sum(1) / paddle.clip(mask.sum(1, keepdim=True), min=1.0)
    return pooled, mask.sum(1).astype("int64")


def attention_bias_from_ids(ids):
    keep = (ids != 0).astype("float32")
    bias = (1.0 - keep.unsqueeze(1)) * -1e4
    scores = paddle.ones([ids.shape[0], 3, 3]) + bias
    return F.softmax(scores, axis=-1)


def lengths_python_loop(ids):
    lens = (ids != 0).sum(1)
    out = []
    for k in range(ids.shape[0]):
        out.append(int(lens[k]) * 10 + k)
    return paddle.to_tensor(out)


def position_ids_from_shape(x):
    pos = paddle.arange(x.shape[0], dtype="float32").unsqueeze(1)
    return x + paddle.sin(pos / 10000 ** (paddle.arange(3, dtype="float32") / 3.0))


def step_cache_keyed_by_int(x):
    cache = {}
    h = x[0] * 1.0
    for step in range(3):
        cache[step] = h
        h = h + x[-1] * float(step)
    return h + cache[0] - cache[2], len(cache)


def cache_dict_grown_tensor_loop(x):
    cache = {"h": x[0] * 0.0, "n": 0}
    for r in x:
        cache["h"] = cache["h"] * 0.5 + r
        cache["n"] = cache["n"] + 1
    return cache["h"], cache["n"]


class Encoder(nn.Layer):
    def __init__(self):
        super().__init__()
        self.cell = nn.SimpleRNNCell(3, 3)
        self.proj = nn.Linear(3, 2)

    def forward(self, x):
        h = paddle.zeros([1, 3])
        states = []
        for r in x:
            _, h = self.cell(r.unsqueeze(0), h)
            states.append(h)
        mem = paddle.concat(states)
        att = F.softmax(paddle.matmul(h, mem, transpose_y=True), -1)
        return self.proj(paddle.matmul(att, mem))


def seeded_encoder():
    paddle.seed(7)
    return Encoder()


class LstmTagger(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 4)
        self.out = nn.Linear(4, 3)

    def forward(self, x):
        y, (h, c) = self.lstm(x.unsqueeze(0))
        return self.out(y[0]), h.sum()


def seeded_tagger():
    paddle.seed(8)
    return LstmTagger()


CASES = [
    C(37, viterbi, refusal_ok=SAVE), C(37, decoder_finished_mask, refusal_ok=FG_SAVE),
    C(37, decoder_tensor_while, refusal_ok=FG_SAVE), C(37, padding_mask_from_ids, IDS),
    C(37, attention_bias_from_ids, IDS), C(37, lengths_python_loop, IDS, refusal_ok=FG_SAVE),
    C(37, position_ids_from_shape), C(37, step_cache_keyed_by_int),
    C(37, cache_dict_grown_tensor_loop), C(37, seeded_encoder, layer=True, refusal_ok=SAVE),
    C(37, seeded_tagger, layer=True),
]
_ = rows
