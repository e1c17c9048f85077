"""The same Paddle-API model code on dy2st and its peers, measured in one run (issue 27): a 2-layer
Transformer encoder with exact GELU, a 3-conv CNN, LSTM and GRU language models, and the encoder's
train step (forward + backward + Adam).

Sides: dy2st eager, dy2st to_static, PaddlePaddle eager and to_static when `import paddle` works
(optional: the Paddle columns are left out without it), and numpy written by hand. One BLAS / OMP
thread on every side. Prints median ms per call (interleaved rounds, so a burst of load on the
shared machine hits every side alike), ratios, and the peak memory (tracemalloc) of one dy2st
to_static call.

Run with `python benchmarks/peers.py [encoder|cnn|lstm|gru|train ...] [--cpu]` from the repository
root (--cpu: CPU time per call instead of wall time)."""
from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional

# one thread on every side, set before numpy or paddle start their pools
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy.special as sp  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from real_models import interleaved  # noqa: E402
from sequence_layers import numpy_lstm  # noqa: E402
from suite import peak_memory  # noqa: E402

import dy2st  # noqa: E402
import dy2st.runtime.passes as passes  # noqa: E402

try:
    import paddle as real_paddle  # noqa: E402
    real_paddle.set_device("cpu")
except Exception:                   # noqa: BLE001 - any failure to import means "no Paddle side"
    real_paddle = None

BATCH, TOKENS, D_MODEL, HEADS, FFN = 8, 128, 256, 4, 1024
VOCAB, EMBED, HIDDEN, STEPS = 1000, 200, 200, 35


# ----------------------------------------------------------------------------- the model code
def models(paddle: Any) -> Dict[str, Callable[[], Any]]:
    """The model constructors, written once against the Paddle API of the module `paddle`."""
    nn, F = paddle.nn, paddle.nn.functional

    def encoder():
        layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, dropout=0.0, activation="gelu")
        return nn.TransformerEncoder(layer, 2)

    class CNN(nn.Layer):
        """(conv3x3 + ReLU + max-pool 2) x 3, mean over the pixels, fc."""

        def __init__(self):
            super().__init__()
            self.convs = nn.LayerList([nn.Conv2D(cin, cout, 3, padding=1)
                                       for cin, cout in ((3, 32), (32, 64), (64, 128))])
            self.fc = nn.Linear(128, 10)

        def forward(self, x):
            for conv in self.convs:
                x = F.max_pool2d(F.relu(conv(x)), 2)
            return self.fc(x.mean(axis=[2, 3]))

    class LSTMLM(nn.Layer):
        """Embedding, a 2-layer LSTM, logits over the vocabulary at every step."""

        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, EMBED)
            self.lstm = nn.LSTM(EMBED, HIDDEN, num_layers=2)
            self.head = nn.Linear(HIDDEN, VOCAB)

        def forward(self, tokens):
            out, _ = self.lstm(self.embed(tokens))
            return self.head(out)

    class GRULM(nn.Layer):
        """Embedding, a 2-layer GRU, logits over the vocabulary at every step."""

        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, EMBED)
            self.gru = nn.GRU(EMBED, HIDDEN, num_layers=2)
            self.head = nn.Linear(HIDDEN, VOCAB)

        def forward(self, tokens):
            out, _ = self.gru(self.embed(tokens))
            return self.head(out)

    return {"encoder": encoder, "cnn": CNN, "lstm": LSTMLM, "gru": GRULM}


def inputs() -> Dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {"encoder": rng.standard_normal((BATCH, TOKENS, D_MODEL)).astype("float32"),
            "cnn": rng.standard_normal((BATCH, 3, 64, 64)).astype("float32"),
            "lstm": rng.integers(0, VOCAB, (BATCH, STEPS)).astype("int64"),
            "gru": rng.integers(0, VOCAB, (BATCH, STEPS)).astype("int64")}


# ----------------------------------------------------------------------------- numpy by hand
def numpy_encoder(params: Dict[str, np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    def lin(name, v):
        return v @ params[name + ".weight"] + params[name + ".bias"]

    def norm(name, v):
        mu = v.mean(-1, keepdims=True)
        var = v.var(-1, keepdims=True)
        return (v - mu) / np.sqrt(var + 1e-5) * params[name + ".weight"] + params[name + ".bias"]

    def layer(i, x):
        p = f"layers.{i}."
        b, n, d = x.shape
        hd = d // HEADS
        q, k, v = (lin(p + f"self_attn.{w}_proj", x).reshape(b, n, HEADS, hd).transpose(0, 2, 1, 3)
                   for w in "qkv")
        s = q @ k.transpose(0, 1, 3, 2) * (hd ** -0.5)
        s = np.exp(s - s.max(-1, keepdims=True))
        att = ((s / s.sum(-1, keepdims=True)) @ v).transpose(0, 2, 1, 3).reshape(b, n, d)
        x = norm(p + "norm1", x + lin(p + "self_attn.out_proj", att))
        h = lin(p + "linear1", x)
        h = 0.5 * h * (1 + sp.erf(h * np.float32(1 / np.sqrt(2))))     # exact GELU via scipy
        return norm(p + "norm2", x + lin(p + "linear2", h))

    return lambda x: layer(1, layer(0, x))


def numpy_cnn(params: Dict[str, np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    def run(x):
        for i in range(3):
            w, b = params[f"convs.{i}.weight"], params[f"convs.{i}.bias"]
            xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
            cols = sliding_window_view(xp, (3, 3), axis=(2, 3))       # [N, C, H, W, 3, 3]
            y = np.tensordot(cols, w, axes=([1, 4, 5], [1, 2, 3]))    # [N, H, W, O]
            y = np.maximum(y + b, 0).transpose(0, 3, 1, 2)
            n, c, h, wd = y.shape
            x = y.reshape(n, c, h // 2, 2, wd // 2, 2).max(axis=(3, 5))
        return x.mean(axis=(2, 3)) @ params["fc.weight"] + params["fc.bias"]
    return run


def numpy_lm(params: Dict[str, np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    weights = [[np.ascontiguousarray(params[f"lstm.weight_ih_l{i}"].T),
                np.ascontiguousarray(params[f"lstm.weight_hh_l{i}"].T),
                params[f"lstm.bias_ih_l{i}"], params[f"lstm.bias_hh_l{i}"]] for i in range(2)]
    table, w, b = params["embed.weight"], params["head.weight"], params["head.bias"]
    return lambda tokens: numpy_lstm(table[tokens], weights) @ w + b


def numpy_gru_lm(params: Dict[str, np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    layers = [(np.ascontiguousarray(params[f"gru.weight_ih_l{i}"].T),
               np.ascontiguousarray(params[f"gru.weight_hh_l{i}"].T),
               params[f"gru.bias_ih_l{i}"], params[f"gru.bias_hh_l{i}"]) for i in range(2)]
    table, w, b = params["embed.weight"], params["head.weight"], params["head.bias"]

    def run(tokens):
        x = table[tokens]
        for w_ih_t, w_hh_t, b_ih, b_hh in layers:
            xg = x @ w_ih_t + b_ih                  # every step's input gates in one product
            h = np.zeros((x.shape[0], w_hh_t.shape[0]), x.dtype)
            outs = []
            for t in range(x.shape[1]):
                x_r, x_z, x_c = np.split(xg[:, t], 3, axis=-1)
                h_r, h_z, h_c = np.split(h @ w_hh_t + b_hh, 3, axis=-1)
                r = 1 / (1 + np.exp(-(x_r + h_r)))
                z = 1 / (1 + np.exp(-(x_z + h_z)))
                c = np.tanh(x_c + r * h_c)
                h = (h - c) * z + c
                outs.append(h)
            x = np.stack(outs, 1)
        return x @ w + b
    return run


NUMPY = {"encoder": numpy_encoder, "cnn": numpy_cnn, "lstm": numpy_lm, "gru": numpy_gru_lm}


# ----------------------------------------------------------------------------- the sides
def state(model: Any) -> Dict[str, np.ndarray]:
    return {k: np.asarray(v.numpy()) for k, v in model.state_dict().items()}


def build(lib: Any, name: str, params: Optional[Dict[str, np.ndarray]]) -> Any:
    lib.seed(0)
    model = models(lib)[name]()
    if params is not None:
        model.set_state_dict({k: lib.to_tensor(v) for k, v in params.items()})
    return model


def peak_without_reuse(name: str, params: Dict[str, np.ndarray], x: np.ndarray) -> int:
    """Peak memory of one to_static call compiled without the buffer-reuse pass."""
    original = passes.reuse_buffers
    passes.reuse_buffers = lambda program, facts=None: 0
    try:
        model = dy2st.jit.to_static(build(dy2st, name, params), full_graph=True)
        model.eval()
        xt = dy2st.to_tensor(x)

        def run():
            with dy2st.no_grad():
                return model(xt)
        run()
        return peak_memory(run)
    finally:
        passes.reuse_buffers = original


def forward_fns(name: str, x: np.ndarray) -> Dict[str, Callable[[], Any]]:
    eager = build(dy2st, name, None)
    params = state(eager)
    eager.eval()
    static = dy2st.jit.to_static(build(dy2st, name, params), full_graph=True)
    static.eval()
    xt = dy2st.to_tensor(x)

    def call(lib, model, arg):
        def run():
            with lib.no_grad():
                return model(arg)
        return run
    fns = {"dy2st eager": call(dy2st, eager, xt), "dy2st static": call(dy2st, static, xt)}
    hand = NUMPY[name](params)
    fns["numpy"] = lambda: hand(x)
    if real_paddle is not None:
        p_eager = build(real_paddle, name, params)
        p_eager.eval()
        p_static = real_paddle.jit.to_static(build(real_paddle, name, params), full_graph=True)
        p_static.eval()
        px = real_paddle.to_tensor(x)
        fns["paddle eager"] = call(real_paddle, p_eager, px)
        fns["paddle static"] = call(real_paddle, p_static, px)
    want = fns["dy2st eager"]().numpy()
    for side, fn in fns.items():
        out = fn()
        np.testing.assert_allclose(out if side == "numpy" else out.numpy(), want,
                                   rtol=2e-3, atol=2e-3, err_msg=f"{name}: {side}")
    return fns


def train_fns(x: np.ndarray) -> Dict[str, Callable[[], Any]]:
    target = np.random.default_rng(1).standard_normal(x.shape).astype("float32")
    params = state(build(dy2st, "encoder", None))

    def side(lib, convert_step: bool):
        model = lib.jit.to_static(build(lib, "encoder", params), full_graph=True)
        model.train()
        opt = lib.optimizer.Adam(learning_rate=1e-4, parameters=model.parameters())
        xt, yt = lib.to_tensor(x), lib.to_tensor(target)

        def step(model, opt, xt, yt):
            loss = lib.nn.functional.mse_loss(model(xt), yt)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        run = lib.jit.to_static(step, full_graph=True) if convert_step else step
        return lambda: run(model, opt, xt, yt)

    fns = {"dy2st eager": None, "dy2st static": side(dy2st, False),
           "dy2st whole step": side(dy2st, True)}
    eager = build(dy2st, "encoder", params)
    eager.train()
    opt = dy2st.optimizer.Adam(learning_rate=1e-4, parameters=eager.parameters())
    xt, yt = dy2st.to_tensor(x), dy2st.to_tensor(target)

    def eager_step():
        loss = dy2st.nn.functional.mse_loss(eager(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    fns["dy2st eager"] = eager_step
    if real_paddle is not None:
        fns["paddle static"] = side(real_paddle, False)
    losses = {k: float(fn()) for k, fn in fns.items()}
    first = losses["dy2st eager"]
    for k, v in losses.items():
        assert abs(v - first) <= 1e-3 * abs(first), (k, losses)
    return fns


# ----------------------------------------------------------------------------- report
SIDES = ["dy2st eager", "dy2st static", "dy2st whole step", "paddle eager", "paddle static",
         "numpy"]
# dy2st static / Paddle static (the GRU LM has no target in issue 27: measured alongside the LSTM)
TARGETS = {"encoder": 1.0, "cnn": 2.0, "lstm": 1.0, "gru": 1.0, "train": 1.5}


def report(name: str, times: Dict[str, float], mem: int, mem_no_reuse: Optional[int]) -> None:
    cells = "  ".join(f"{s} {times[s] * 1e3:8.2f}" for s in SIDES if s in times)
    print(f"{name:<8} ms: {cells}")
    static = times["dy2st static"]
    ratios = [f"/eager {static / times['dy2st eager']:.2f}"]
    if "numpy" in times:
        ratios.append(f"/numpy {static / times['numpy']:.2f}")
    if "paddle static" in times:
        ratios.append(f"/paddle static {static / times['paddle static']:.2f} "
                      f"(target <= {TARGETS[name]})")
    print(f"{'':<8} dy2st static {' '.join(ratios)}")
    before = "" if mem_no_reuse is None else f" ({mem_no_reuse / 2 ** 20:.1f} MB without buffer reuse)"
    print(f"{'':<8} dy2st static peak memory of one call {mem / 2 ** 20:.1f} MB{before}")


def main(argv: List[str]) -> int:
    # --cpu: CPU time of the process (all its threads) per call instead of wall time; on a
    # shared, loaded machine wall time mostly measures the scheduler
    cpu = "--cpu" in argv
    names = [a for a in argv if a != "--cpu"] or ["encoder", "cnn", "lstm", "gru", "train"]
    side = f"PaddlePaddle {real_paddle.__version__}" if real_paddle is not None else "no Paddle"
    print(f"one thread per side; {side}; numpy {np.__version__}; "
          f"{'CPU time (process_time)' if cpu else 'wall time'}")
    clock = time.process_time if cpu else time.perf_counter
    data = inputs()
    for name in names:
        fns = train_fns(data["encoder"]) if name == "train" else forward_fns(name, data[name])
        times = interleaved(fns, budget=0.1 if name == "train" else 0.05, clock=clock)
        no_reuse = None if name == "train" else peak_without_reuse(
            name, state(build(dy2st, name, None)), data[name])
        report(name, times, peak_memory(fns["dy2st static"]), no_reuse)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
