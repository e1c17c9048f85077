"""Sequence layers against hand-written numpy doing the same work, measured in one run (not a
test): a 2-layer LSTM over 35 steps and a Transformer encoder layer, each eagerly and under
to_static with unknown batch and length dims, plus the LSTM's first to_static call.

Run with `PYTHONPATH=. python benchmarks/sequence_layers.py` from the repository root; prints
times and ratios (dy2st / numpy)."""
from __future__ import annotations

import time
import timeit
from typing import Callable

import numpy as np

import dy2st as paddle
from dy2st.static import InputSpec

REPEAT = 5
BATCH, STEPS, HIDDEN = 16, 35, 64


def best_time(fn: Callable[[], object], number: int = 3) -> float:
    return min(timeit.repeat(fn, number=number, repeat=REPEAT)) / number


def numpy_lstm(x: np.ndarray, weights: list) -> np.ndarray:
    """The same LSTM in numpy, step by step."""
    for w_ih_t, w_hh_t, b_ih, b_hh in weights:          # weights transposed once, contiguous
        batch, steps, _ = x.shape
        h = np.zeros((batch, w_hh_t.shape[0]), x.dtype)
        c = np.zeros_like(h)
        bias = b_ih + b_hh
        outs = []
        for t in range(steps):
            # one [batch, in] x [in, 4h] product per step: on this machine's numpy (OpenBLAS) one
            # 2-D [batch * steps, in] product for all steps is slower than 35 small ones
            g = x[:, t] @ w_ih_t + h @ w_hh_t + bias
            i, f, gg, o = np.split(g, 4, axis=-1)
            c = 1 / (1 + np.exp(-f)) * c + 1 / (1 + np.exp(-i)) * np.tanh(gg)
            h = 1 / (1 + np.exp(-o)) * np.tanh(c)
            outs.append(h)
        x = np.stack(outs, 1)
    return x


def encoder_arrays(layer) -> dict:
    """The encoder layer's parameters as numpy arrays, read once (outside the timed code)."""
    return {name: p.numpy() for name, p in layer.named_parameters()}


def numpy_encoder_layer(x: np.ndarray, p: dict, heads: int) -> np.ndarray:
    """Post-norm encoder layer. The products stay 3-D: on this machine's numpy (OpenBLAS) a 2-D
    [batch * len, d] x [d, d] product is about 100x slower than the same product as [batch, len, d]."""
    b, n, d = x.shape
    hd = d // heads
    rows = x

    def lin(name, v):
        return v @ p[name + ".weight"] + p[name + ".bias"]

    def norm(name, v):
        mu, var = v.mean(-1, keepdims=True), v.var(-1, keepdims=True)
        return (v - mu) / np.sqrt(var + 1e-5) * p[name + ".weight"] + p[name + ".bias"]

    def split(v):
        return v.reshape(b, n, heads, hd).transpose(0, 2, 1, 3)

    q, k, v = (split(lin(f"self_attn.{w}_proj", rows)) for w in "qkv")
    s = q @ k.transpose(0, 1, 3, 2) * (hd ** -0.5)    # a Python float: the scores stay float32
    s = np.exp(s - s.max(-1, keepdims=True))
    att = ((s / s.sum(-1, keepdims=True)) @ v).transpose(0, 2, 1, 3).reshape(b, n, d)
    rows = norm("norm1", rows + lin("self_attn.out_proj", att))
    return norm("norm2", rows + lin("linear2", np.maximum(lin("linear1", rows), 0)))


def report(name: str, dy2st_time: float, numpy_time: float) -> None:
    print(f"{name:<34} {dy2st_time * 1e3:8.2f} ms   numpy {numpy_time * 1e3:8.2f} ms   "
          f"ratio {dy2st_time / numpy_time:5.2f}")


def main() -> None:
    rng = np.random.default_rng(0)
    lstm = paddle.nn.LSTM(HIDDEN, HIDDEN, num_layers=2)
    x = rng.standard_normal((BATCH, STEPS, HIDDEN)).astype(np.float32)
    weights = [[np.ascontiguousarray(getattr(lstm, f"weight_ih_l{i}").numpy().T),
                np.ascontiguousarray(getattr(lstm, f"weight_hh_l{i}").numpy().T),
                getattr(lstm, f"bias_ih_l{i}").numpy(), getattr(lstm, f"bias_hh_l{i}").numpy()] for i in range(2)]
    xt = paddle.to_tensor(x)
    np.testing.assert_allclose(lstm(xt)[0].numpy(), numpy_lstm(x, weights), rtol=1e-4, atol=1e-5)
    t_np = best_time(lambda: numpy_lstm(x, weights))

    def run_lstm(v):
        return lstm(v)[0]

    static = paddle.jit.to_static(run_lstm, input_spec=[InputSpec([None, None, HIDDEN], "float32")],
                                  full_graph=True)
    start = time.perf_counter()
    static(xt)
    first = time.perf_counter() - start
    report("lstm 2x35 eager", best_time(lambda: run_lstm(xt)), t_np)
    report("lstm 2x35 to_static", best_time(lambda: static(xt)), t_np)
    print(f"{'lstm 2x35 to_static first call':<34} {first * 1e3:8.2f} ms")

    layer = paddle.nn.TransformerEncoderLayer(HIDDEN, 4, 4 * HIDDEN, dropout=0.0)
    layer.eval()
    y = rng.standard_normal((BATCH, STEPS, HIDDEN)).astype(np.float32)
    yt = paddle.to_tensor(y)
    arrays = encoder_arrays(layer)
    np.testing.assert_allclose(layer(yt).numpy(), numpy_encoder_layer(y, arrays, 4), rtol=1e-4, atol=1e-4)
    t_np = best_time(lambda: numpy_encoder_layer(y, arrays, 4))
    static_layer = paddle.jit.to_static(layer.forward, input_spec=[InputSpec([None, None, HIDDEN], "float32")],
                                        full_graph=True)
    static_layer(yt)
    report("encoder layer eager", best_time(lambda: layer(yt)), t_np)
    report("encoder layer to_static", best_time(lambda: static_layer(yt)), t_np)


if __name__ == "__main__":
    main()
