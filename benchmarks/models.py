"""The benchmark functions (dy2st code and the hand-written numpy doing the same work).

They live in a module because to_static reads their source. Each `make_*` builds fresh
functions, so a first call always transforms, traces and compiles."""
from __future__ import annotations

from typing import Callable, Dict, Tuple

import numpy as np

import dy2st as paddle
import dy2st.nn.functional as F

RNN_STEPS = 20


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# ----------------------------------------------------------------------------- add1
def add1(x):
    return x + 1


def add1_np(x):
    return x + np.float32(1)


def add1_data():
    return {}, (_rng(0).standard_normal((4, 4)).astype("float32"),)


# ----------------------------------------------------------------------------- ctrl
def ctrl(x):
    i = paddle.zeros([], "int64")
    while i < 10:
        if x.mean() > 0.0:
            x = x * 0.5 - 0.25
        else:
            x = x + 0.5
        i = i + 1
    return x


def ctrl_np(x):
    i = 0
    while i < 10:
        if x.mean() > np.float32(0.0):
            x = x * np.float32(0.5) - np.float32(0.25)
        else:
            x = x + np.float32(0.5)
        i = i + 1
    return x


def ctrl_data():
    return {}, (_rng(1).standard_normal((8, 64)).astype("float32"),)


# ----------------------------------------------------------------------------- mlp
def mlp(x, w1, b1, w2, b2):
    h = F.relu(paddle.matmul(x, w1) + b1)
    return F.softmax(paddle.matmul(h, w2) + b2, axis=-1)


def mlp_np(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, np.float32(0))
    z = h @ w2 + b2
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mlp_data():
    r = _rng(2)
    f = lambda *s: (r.standard_normal(s) * 0.1).astype("float32")  # noqa: E731
    return {}, (f(8, 64), f(64, 64), f(64), f(64, 64), f(64))


# ----------------------------------------------------------------------------- attention
HEADS = 16


def attention(q, k, v, mask):
    b, s, d = q.shape[0], q.shape[1], q.shape[2]
    hd = d // HEADS
    q = paddle.transpose(paddle.reshape(q, [b, s, HEADS, hd]), [0, 2, 1, 3])
    k = paddle.transpose(paddle.reshape(k, [b, s, HEADS, hd]), [0, 2, 1, 3])
    v = paddle.transpose(paddle.reshape(v, [b, s, HEADS, hd]), [0, 2, 1, 3])
    q = q * (hd ** -0.5)
    scores = paddle.matmul(q, k, transpose_y=True) + mask
    weights = F.softmax(scores, axis=-1)
    out = paddle.matmul(weights, v)
    out = paddle.transpose(out, [0, 2, 1, 3])
    return paddle.reshape(out, [b, s, d])


def attention_np(q, k, v, mask):
    b, s, d = q.shape
    hd = d // HEADS
    q = q.reshape(b, s, HEADS, hd).transpose(0, 2, 1, 3)
    k = k.reshape(b, s, HEADS, hd).transpose(0, 2, 1, 3)
    v = v.reshape(b, s, HEADS, hd).transpose(0, 2, 1, 3)
    q = q * np.float32(hd ** -0.5)
    scores = q @ k.swapaxes(-1, -2) + mask
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    out = (weights @ v).transpose(0, 2, 1, 3)
    return out.reshape(b, s, d)


def attention_data():
    """[B, H, S, D] = [2, 16, 4, 32]: model width 16 * 32 = 512 over 4 tokens."""
    r = _rng(3)
    q, k, v = (r.standard_normal((2, 4, 512)).astype("float32") for _ in range(3))
    mask = np.triu(np.full((4, 4), -1e9, "float32"), 1)
    return {}, (q, k, v, mask)


# ----------------------------------------------------------------------------- rnn
def rnn(x, h, w, u):
    for t in range(20):
        h = paddle.tanh(paddle.matmul(x[:, t], w) + paddle.matmul(h, u))
    return h


def rnn_tensor(x, h, w, u, steps):
    t = paddle.zeros([], "int64")
    while t < steps:
        h = paddle.tanh(paddle.matmul(x[:, t], w) + paddle.matmul(h, u))
        t = t + 1
    return h


def rnn_np(x, h, w, u):
    for t in range(RNN_STEPS):
        h = np.tanh(x[:, t] @ w + h @ u)
    return h


def rnn_tensor_np(x, h, w, u, steps):
    for t in range(int(steps)):
        h = np.tanh(x[:, t] @ w + h @ u)
    return h


def rnn_data():
    r = _rng(4)
    x = r.standard_normal((16, RNN_STEPS, 64)).astype("float32")
    h = np.zeros((16, 64), "float32")
    w = (r.standard_normal((64, 64)) * 0.1).astype("float32")
    u = (r.standard_normal((64, 64)) * 0.1).astype("float32")
    return {}, (x, h, w, u)


def rnn_tensor_data():
    kw, args = rnn_data()
    return kw, args + (np.array(RNN_STEPS, "int64"),)


# --------------------------------------------------------- loops counted the Paddle way (issue 14)
def loop_paddle(h, w, b, n):
    i = paddle.zeros([1], dtype="int64")
    while i < n:
        h = paddle.tanh(paddle.matmul(h, w) + b)
        i = i + 1
    return h


def loop_range(h, w, b, n):
    for _ in range(n):
        h = paddle.tanh(paddle.matmul(h, w) + b)
    return h


def loop_increment(h, w, b, n):
    i = paddle.zeros([1], dtype="int64")
    while i < n:
        h = paddle.tanh(paddle.matmul(h, w) + b)
        paddle.increment(i)
    return h


def loop_small_if(h, w, b, n):
    # issue 27 item 6: 4x4 tensors, 10 turns, a tensor `if` in the body: per-turn overhead
    i = paddle.zeros([1], dtype="int64")
    while i < n:
        h = paddle.tanh(paddle.matmul(h, w) + b)
        if h.sum() > 0:
            h = h * 0.5
        else:
            h = h + 1.0
        i = i + 1
    return h


def loop_small_if_np(h, w, b, n):
    for _ in range(int(n[0])):
        h = np.tanh(h @ w + b)
        if h.sum() > 0:
            h = h * 0.5
        else:
            h = h + 1.0
    return h


def loop_small_data():
    r = _rng(6)
    h = r.standard_normal((4, 4)).astype("float32")
    w = r.standard_normal((4, 4)).astype("float32")
    b = r.standard_normal((4,)).astype("float32")
    return {}, (h, w, b, np.array([10], "int64"))


def loop_np(h, w, b, n):
    for _ in range(int(n[0])):
        h = np.tanh(h @ w + b)
    return h


def loop_data():
    r = _rng(5)
    h = r.standard_normal((8, 32)).astype("float32")
    w = (r.standard_normal((32, 32)) * 0.1).astype("float32")
    b = r.standard_normal((32,)).astype("float32")
    return {}, (h, w, b, np.array([RNN_STEPS], "int64"))


# name -> (dy2st function, numpy function, data factory)
BENCHMARKS: Dict[str, Tuple[Callable, Callable, Callable]] = {
    "add1": (add1, add1_np, add1_data),
    "ctrl": (ctrl, ctrl_np, ctrl_data),
    "mlp": (mlp, mlp_np, mlp_data),
    "attention": (attention, attention_np, attention_data),
    "rnn": (rnn, rnn_np, rnn_data),
    "rnn_tensor": (rnn_tensor, rnn_tensor_np, rnn_tensor_data),
    "loop_paddle": (loop_paddle, loop_np, loop_data),
    "loop_range": (loop_range, loop_np, loop_data),
    "loop_incr": (loop_increment, loop_np, loop_data),
    "loop_small": (loop_small_if, loop_small_if_np, loop_small_data),
}


def fresh(fn: Callable) -> Callable:
    """A new function object with fn's code (so to_static converts and traces it anew)."""
    import types
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
