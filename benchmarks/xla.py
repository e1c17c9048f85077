"""The XLA backend against the same models written by hand in jax.jit, and against the numpy
backend, in one run (issue 28): a GELU Transformer encoder (2 layers, batch 8 x 128, d_model
256, 4 heads, FFN 1024), a CNN (batch 8, 3x64x64, conv3x3+ReLU+maxpool x3, mean, fc) and an
LSTM language model; forward and whole train step (Adam). Also the compile time of each
program and the per-call overhead of a tiny program.

Run with `python benchmarks/xla.py [encoder|cnn|lstm ...]` from the repository root. It prints
median ms per call and the ratios dy2st-xla / jax.jit (target <= 1.25) and numpy / dy2st-xla.
The exit status is 1 when a target is missed."""
from __future__ import annotations

import math
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dy2st as paddle  # noqa: E402
import dy2st.nn.functional as F  # noqa: E402

TARGET = 1.25
ROUNDS = 5
BATCH, TOKENS, D_MODEL, HEADS, FFN = 8, 128, 256, 4, 1024
VOCAB, EMBED, HIDDEN, STEPS = 1000, 128, 128, 20
LR = 1e-3


def median_time(fn: Callable[[], Any], rounds: int = ROUNDS, budget: float = 0.2) -> float:
    fn()
    t0 = time.perf_counter()
    fn()
    n = max(1, int(budget / max(time.perf_counter() - t0, 1e-9)))
    runs = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - t0) / n)
    return statistics.median(runs)


# ----------------------------------------------------------------------------- dy2st models
class Encoder(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        layer = paddle.nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, dropout=0.0,
                                                  activation="gelu")
        self.enc = paddle.nn.TransformerEncoder(layer, 2)

    def forward(self, x):
        return self.enc(x)


class CNN(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.convs = paddle.nn.LayerList([paddle.nn.Conv2D(a, b, 3, padding=1)
                                          for a, b in ((3, 16), (16, 32), (32, 64))])
        self.fc = paddle.nn.Linear(64, 10)

    def forward(self, x):
        for conv in self.convs:
            x = F.max_pool2d(F.relu(conv(x)), 2)
        return self.fc(x.mean(axis=[2, 3]))


class LM(paddle.nn.Layer):
    """Embedding, one LSTM cell stepped over the sequence, logits at every step."""

    def __init__(self):
        super().__init__()
        self.emb = paddle.nn.Embedding(VOCAB, EMBED)
        self.w = self.create_parameter([EMBED + HIDDEN, 4 * HIDDEN])
        self.b = self.create_parameter([4 * HIDDEN], is_bias=True)
        self.out = paddle.nn.Linear(HIDDEN, VOCAB)

    def forward(self, tokens):
        e = self.emb(tokens)
        h = paddle.zeros([tokens.shape[0], HIDDEN])
        c = paddle.zeros([tokens.shape[0], HIDDEN])
        outs = []
        for t in range(STEPS):
            gates = paddle.matmul(paddle.concat([e[:, t], h], axis=1), self.w) + self.b
            i, f, g, o = paddle.split(gates, 4, axis=1)
            c = F.sigmoid(f) * c + F.sigmoid(i) * paddle.tanh(g)
            h = F.sigmoid(o) * paddle.tanh(c)
            outs.append(h)
        return self.out(paddle.stack(outs, axis=1))


# ----------------------------------------------------------------------------- the same in jax
def jax_models():
    import jax   # the benchmark's own hand-written side; dy2st itself imports jax lazily
    import jax.numpy as jnp
    from jax import lax

    def lin(p, name, v):
        return v @ p[name + ".weight"] + p[name + ".bias"]

    def norm(p, name, v):
        mu = v.mean(-1, keepdims=True)
        var = ((v - mu) ** 2).mean(-1, keepdims=True)
        return (v - mu) / jnp.sqrt(var + 1e-5) * p[name + ".weight"] + p[name + ".bias"]

    def encoder(p, x):
        b, n, d = x.shape
        hd = d // HEADS
        for k in range(2):
            pre = f"enc.layers.{k}."
            q, kk, v = (lin(p, f"{pre}self_attn.{w}_proj", x).reshape(b, n, HEADS, hd)
                        .transpose(0, 2, 1, 3) for w in "qkv")
            s = jax.nn.softmax(q @ kk.transpose(0, 1, 3, 2) * (hd ** -0.5), axis=-1)
            att = (s @ v).transpose(0, 2, 1, 3).reshape(b, n, d)
            x = norm(p, pre + "norm1", x + lin(p, pre + "self_attn.out_proj", att))
            ff = jax.nn.gelu(lin(p, pre + "linear1", x), approximate=False)
            x = norm(p, pre + "norm2", x + lin(p, pre + "linear2", ff))
        return x

    def cnn(p, x):
        for k in range(3):
            x = lax.conv_general_dilated(x, p[f"convs.{k}.weight"], (1, 1), ((1, 1), (1, 1)),
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
            x = jax.nn.relu(x + p[f"convs.{k}.bias"].reshape(1, -1, 1, 1))
            x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        return lin(p, "fc", x.mean(axis=(2, 3)))

    def lm(p, tokens):
        e = p["emb.weight"][tokens]
        h = jnp.zeros((tokens.shape[0], HIDDEN))
        c = jnp.zeros((tokens.shape[0], HIDDEN))
        outs = []
        for t in range(STEPS):
            gates = jnp.concatenate([e[:, t], h], axis=1) @ p["w"] + p["b"]
            i, f, g, o = jnp.split(gates, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            outs.append(h)
        return lin(p, "out", jnp.stack(outs, axis=1))

    def mse(out, y):
        return ((out - y) ** 2).mean()

    def xent(logits, y):
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.take_along_axis(logp, y[..., None], axis=-1).mean()

    def train_step(model, loss):
        def step(p, m, v, t, x, y):
            value, g = jax.value_and_grad(lambda q: loss(model(q, x), y))(p)
            t = t + 1
            b1, b2, eps = 0.9, 0.999, 1e-8
            m = jax.tree.map(lambda a, b: b1 * a + (1 - b1) * b, m, g)
            v = jax.tree.map(lambda a, b: b2 * a + (1 - b2) * b * b, v, g)
            lr = LR * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            p = jax.tree.map(lambda q, a, b: q - lr * a / (jnp.sqrt(b) + eps), p, m, v)
            return value, p, m, v, t
        return jax.jit(step)
    return {"encoder": (encoder, mse), "cnn": (cnn, xent), "lstm": (lm, xent),
            "jit": jax.jit, "train_step": train_step, "jnp": jnp}


def cases() -> Dict[str, Dict[str, Any]]:
    rng = np.random.default_rng(0)
    return {
        "encoder": {"make": Encoder,
                    "x": rng.standard_normal((BATCH, TOKENS, D_MODEL)).astype("float32"),
                    "y": rng.standard_normal((BATCH, TOKENS, D_MODEL)).astype("float32"),
                    "loss": lambda out, y: F.mse_loss(out, y)},
        "cnn": {"make": CNN, "x": rng.standard_normal((BATCH, 3, 64, 64)).astype("float32"),
                "y": rng.integers(0, 10, (BATCH,)).astype("int64"),
                "loss": lambda out, y: F.cross_entropy(out, y)},
        "lstm": {"make": LM, "x": rng.integers(0, VOCAB, (BATCH, STEPS)).astype("int64"),
                 "y": rng.integers(0, VOCAB, (BATCH, STEPS)).astype("int64"),
                 "loss": lambda out, y: F.cross_entropy(out, y)},
    }


# ----------------------------------------------------------------------------- rows
def dy2st_sides(case: Dict[str, Any], backend: str):
    paddle.seed(0)
    model = case["make"]()
    params = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    fwd = paddle.jit.to_static(case["make"](), backend=backend)
    fwd.set_state_dict(model.state_dict())
    fwd.eval()
    opt = paddle.optimizer.Adam(learning_rate=LR, parameters=model.parameters())

    def step(x, y):
        loss = case["loss"](model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    step = paddle.jit.to_static(step, backend=backend)
    return params, fwd, step


def bench(name: str, case: Dict[str, Any], jx: Dict[str, Any]) -> List[tuple]:
    x, y = paddle.to_tensor(case["x"]), paddle.to_tensor(case["y"])
    model_fn, loss_fn = jx[name]
    rows = []
    sides = {b: dy2st_sides(case, b) for b in ("xla", "numpy")}
    params = {k: jx["jnp"].asarray(v) for k, v in sides["xla"][0].items()}
    jfwd = jx["jit"](model_fn)
    fwd_xla, fwd_np = sides["xla"][1], sides["numpy"][1]
    with paddle.no_grad():
        t0 = time.perf_counter()
        out = fwd_xla(x)
        compile_fwd = time.perf_counter() - t0
        ref = np.asarray(jfwd(params, case["x"]))
        np.testing.assert_allclose(out.numpy(), ref, rtol=2e-3, atol=2e-4)
        t_xla = median_time(lambda: fwd_xla(x).numpy())
        t_np = median_time(lambda: fwd_np(x).numpy())
    t_jax = median_time(lambda: np.asarray(jfwd(params, case["x"])))
    rows.append((f"{name} forward", t_xla, t_jax, t_np, compile_fwd))
    jstep = jx["train_step"](model_fn, loss_fn)
    zeros = {k: jx["jnp"].zeros_like(v) for k, v in params.items()}
    state = [params, zeros, dict(zeros), 0]

    def jax_step():
        value, *rest = jstep(*state, case["x"], case["y"])
        state[:] = rest
        return float(value)
    step_xla, step_np = sides["xla"][2], sides["numpy"][2]
    t0 = time.perf_counter()
    first = float(step_xla(x, y))
    compile_step = time.perf_counter() - t0
    np.testing.assert_allclose(first, jax_step(), rtol=2e-3)
    t_xla = median_time(lambda: float(step_xla(x, y)))
    t_jax = median_time(jax_step)
    t_np = median_time(lambda: float(step_np(x, y)), rounds=3, budget=0.05)
    rows.append((f"{name} train step", t_xla, t_jax, t_np, compile_step))
    for sf in (fwd_xla.forward, step_xla):
        compiled = sf._last.compiled
        if getattr(compiled, "fallback", None) is not None:
            print(f"  note: {name}: {compiled.fallback}")
    return rows


def dispatch_overhead() -> tuple:
    tiny = paddle.to_tensor(np.ones(4, "float32"))
    xla = paddle.jit.to_static(lambda v: v + 1.0, backend="xla")
    npb = paddle.jit.to_static(lambda v: v + 1.0, backend="numpy")
    return median_time(lambda: xla(tiny)), median_time(lambda: npb(tiny))


def main(argv: List[str]) -> int:
    names = [a for a in argv if not a.startswith("-")] or ["encoder", "cnn", "lstm"]
    jx = jax_models()
    all_cases = cases()
    missed = 0
    print(f"{'row':<22} {'xla ms':>9} {'jax.jit ms':>11} {'numpy ms':>10} {'xla/jax':>8} "
          f"{'numpy/xla':>10} {'compile s':>10}")
    for name in names:
        for row, t_xla, t_jax, t_np, comp in bench(name, all_cases[name], jx):
            ratio = t_xla / t_jax
            flag = "" if ratio <= TARGET else "  (target <= 1.25 missed)"
            missed += ratio > TARGET
            print(f"{row:<22} {t_xla * 1e3:9.2f} {t_jax * 1e3:11.2f} {t_np * 1e3:10.2f} "
                  f"{ratio:8.2f} {t_np / t_xla:10.2f} {comp:10.2f}{flag}")
    xla_tiny, np_tiny = dispatch_overhead()
    print(f"tiny program (x + 1 on 4 floats): xla {xla_tiny * 1e6:.1f} us per call, "
          f"numpy {np_tiny * 1e6:.1f} us per call")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
