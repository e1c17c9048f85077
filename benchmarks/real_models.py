"""Forward passes and train steps at realistic sizes (issue 14), measured in one run (not a test):
a ResNet-style CNN at batch 8 on 64x64 images, a 2-layer Transformer encoder at batch 8 x 128
tokens (d_model 256), and an LSTM language model over 35 steps (nn.LSTM, and LSTMCells stepped by
a `for t in range(steps)` over a tensor `steps`).

Forward (inference, under `paddle.no_grad()` on every side): to_static against dy2st eager and,
for the Transformer and the LSTMs, numpy written by hand; median time per call and the peak
memory (tracemalloc) of one call. Train steps (forward,
backward, optimizer step): eager, to_static(model) with an eager step, and the whole step in
to_static, against eager.

Run with `python benchmarks/real_models.py [cnn|transformer|lstm|lstm_cell ...] [--forward-only]`
from the repository root; prints the figures and ratios with their targets, exit status 1 when a
target is missed."""
from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Tuple

# One BLAS thread for every side, as benchmarks/train.py does: on the shared 2-core machine a
# second BLAS thread competing with other processes made matmuls up to 50x slower.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sequence_layers import encoder_arrays, numpy_encoder_layer, numpy_lstm  # noqa: E402
from suite import peak_memory  # noqa: E402

import dy2st as paddle  # noqa: E402
import dy2st.nn.functional as F  # noqa: E402

ROUNDS = 7
BATCH = 8
TARGET_NUMPY = 1.2          # to_static / numpy by hand, forward


# ----------------------------------------------------------------------------- measuring
def interleaved(fns: Dict[str, Callable[[], Any]], rounds: int = ROUNDS,
                budget: float = 0.03, clock: Callable[[], float] = time.perf_counter) -> Dict[str, float]:
    """Median seconds per call of each fn, measured round-robin: every round calls each fn
    `number` times in turn, so a burst of load on the shared machine hits all of them alike.
    clock: wall time by default; time.process_time gives the CPU time of the process's threads."""
    numbers = {}
    for name, fn in fns.items():
        fn()
        t0 = clock()
        fn()
        numbers[name] = max(1, int(budget / max(clock() - t0, 1e-9)))
    runs: Dict[str, List[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            n = numbers[name]
            t0 = clock()
            for _ in range(n):
                fn()
            runs[name].append((clock() - t0) / n)
    return {name: statistics.median(r) for name, r in runs.items()}


def twins(make: Callable[[], paddle.nn.Layer], count: int) -> List[paddle.nn.Layer]:
    """count models with the first one's parameters (and buffers)."""
    models = [make() for _ in range(count)]
    for m in models[1:]:
        m.set_state_dict(models[0].state_dict())
    return models


# ----------------------------------------------------------------------------- ResNet-style CNN
class BasicBlock(paddle.nn.Layer):
    """conv3x3-bn-relu-conv3x3-bn plus the input (a 1x1 conv + bn when the shape changes), relu."""

    def __init__(self, cin: int, cout: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = paddle.nn.Conv2D(cin, cout, 3, stride=stride, padding=1, bias_attr=False)
        self.bn1 = paddle.nn.BatchNorm2D(cout)
        self.conv2 = paddle.nn.Conv2D(cout, cout, 3, padding=1, bias_attr=False)
        self.bn2 = paddle.nn.BatchNorm2D(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = paddle.nn.Sequential(
                paddle.nn.Conv2D(cin, cout, 1, stride=stride, bias_attr=False),
                paddle.nn.BatchNorm2D(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        shortcut = x if self.down is None else self.down(x)
        return F.relu(y + shortcut)


class ResNetish(paddle.nn.Layer):
    """A stem and three stages of two basic blocks (16, 32, 64 channels; 64, 32, 16 pixels)."""

    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.stem = paddle.nn.Sequential(paddle.nn.Conv2D(3, 16, 3, padding=1, bias_attr=False),
                                         paddle.nn.BatchNorm2D(16), paddle.nn.ReLU())
        blocks, cin = [], 16
        for cout, stride in ((16, 1), (32, 2), (64, 2)):
            blocks += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout)]
            cin = cout
        self.blocks = paddle.nn.Sequential(*blocks)
        self.pool = paddle.nn.AdaptiveAvgPool2D(1)
        self.fc = paddle.nn.Linear(64, classes)

    def forward(self, x):
        return self.fc(paddle.flatten(self.pool(self.blocks(self.stem(x))), 1))


def cnn_case() -> Dict[str, Any]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, 3, 64, 64)).astype("float32")
    y = rng.integers(0, 10, BATCH).astype("int64")
    return {"make": ResNetish, "inputs": (x,), "label": y, "loss": F.cross_entropy,
            "optimizer": "Momentum", "numpy": None}


# ----------------------------------------------------------------------------- Transformer
D_MODEL, HEADS, TOKENS = 256, 4, 128


def make_transformer() -> paddle.nn.Layer:
    layer = paddle.nn.TransformerEncoderLayer(D_MODEL, HEADS, 4 * D_MODEL, dropout=0.0)
    return paddle.nn.TransformerEncoder(layer, 2)


def numpy_transformer(model: paddle.nn.Layer) -> Callable[[np.ndarray], np.ndarray]:
    arrays = [encoder_arrays(layer) for layer in model.layers]

    def run(x: np.ndarray) -> np.ndarray:
        for p in arrays:
            x = numpy_encoder_layer(x, p, HEADS)
        return x
    return run


def mse(out, target):
    return F.mse_loss(out, target)


def transformer_case() -> Dict[str, Any]:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((BATCH, TOKENS, D_MODEL)).astype("float32")
    y = rng.standard_normal((BATCH, TOKENS, D_MODEL)).astype("float32")
    return {"make": make_transformer, "inputs": (x,), "label": y, "loss": mse,
            "optimizer": "Adam", "numpy": numpy_transformer}


# ----------------------------------------------------------------------------- LSTM language model
VOCAB, EMBED, HIDDEN, STEPS = 1000, 200, 200, 35


class LSTMLM(paddle.nn.Layer):
    """Embedding, a 2-layer nn.LSTM, logits over the vocabulary at every step."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = paddle.nn.Embedding(VOCAB, EMBED)
        self.lstm = paddle.nn.LSTM(EMBED, HIDDEN, num_layers=2)
        self.head = paddle.nn.Linear(HIDDEN, VOCAB)

    def forward(self, tokens, steps):
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out)


class CellLM(paddle.nn.Layer):
    """The same model with two LSTMCells stepped by hand over `range(steps)`, steps a tensor."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = paddle.nn.Embedding(VOCAB, EMBED)
        self.cell1 = paddle.nn.LSTMCell(EMBED, HIDDEN)
        self.cell2 = paddle.nn.LSTMCell(HIDDEN, HIDDEN)
        self.head = paddle.nn.Linear(HIDDEN, VOCAB)

    def forward(self, tokens, steps):
        x = self.embed(tokens)
        h1 = paddle.zeros([tokens.shape[0], HIDDEN], "float32")
        c1, h2, c2 = h1, h1, h1
        outs = []
        for t in range(steps):
            h1, (h1, c1) = self.cell1(x[:, t], (h1, c1))
            h2, (h2, c2) = self.cell2(h1, (h2, c2))
            outs.append(h2)
        return self.head(paddle.stack(outs, 1))


def lstm_weights(model: paddle.nn.Layer) -> List[List[np.ndarray]]:
    """numpy_lstm's per-layer [W_ih^T, W_hh^T, b_ih, b_hh], read once."""
    if isinstance(model, LSTMLM):
        names = [(f"weight_ih_l{i}", f"weight_hh_l{i}", f"bias_ih_l{i}", f"bias_hh_l{i}")
                 for i in range(2)]
        owners = [model.lstm, model.lstm]
    else:
        names = [("weight_ih", "weight_hh", "bias_ih", "bias_hh")] * 2
        owners = [model.cell1, model.cell2]
    return [[np.ascontiguousarray(getattr(o, n[0]).numpy().T),
             np.ascontiguousarray(getattr(o, n[1]).numpy().T),
             getattr(o, n[2]).numpy(), getattr(o, n[3]).numpy()] for o, n in zip(owners, names)]


def numpy_lm(model: paddle.nn.Layer) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    table, weights = model.embed.weight.numpy(), lstm_weights(model)
    w, b = model.head.weight.numpy(), model.head.bias.numpy()

    def run(tokens: np.ndarray, steps: np.ndarray) -> np.ndarray:
        return numpy_lstm(table[tokens[:, :int(steps[0])]], weights) @ w + b
    return run


def lm_loss(logits, target):
    return F.cross_entropy(paddle.reshape(logits, [-1, VOCAB]), paddle.reshape(target, [-1]))


def lm_case(make: Callable[[], paddle.nn.Layer]) -> Callable[[], Dict[str, Any]]:
    def case() -> Dict[str, Any]:
        rng = np.random.default_rng(2)
        tokens = rng.integers(0, VOCAB, (BATCH, STEPS + 1)).astype("int64")
        return {"make": make, "inputs": (tokens[:, :-1], np.array([STEPS], "int64")),
                "label": tokens[:, 1:], "loss": lm_loss, "optimizer": "Adam", "numpy": numpy_lm}
    return case


CASES = {"cnn": cnn_case, "transformer": transformer_case, "lstm": lm_case(LSTMLM),
         "lstm_cell": lm_case(CellLM)}


# ----------------------------------------------------------------------------- forward
def forward_row(name: str, case: Dict[str, Any]) -> Dict[str, Any]:
    paddle.seed(0)
    eager_model, static_model = twins(case["make"], 2)
    eager_model.eval()
    static_model.eval()
    static = paddle.jit.to_static(static_model, full_graph=True)   # converts static_model in place
    targs = tuple(paddle.to_tensor(a) for a in case["inputs"])

    def inference(model):
        # both sides without gradient recording: with it, each keeps what its backward reads
        # (the train rows below measure that)
        def run():
            with paddle.no_grad():
                return model(*targs)
        return run
    fns = {"static": inference(static), "eager": inference(eager_model)}
    want = eager_model(*targs).numpy()
    np.testing.assert_allclose(static(*targs).numpy(), want, rtol=1e-4, atol=1e-4, err_msg=name)
    if case["numpy"] is not None:
        hand, args = case["numpy"](eager_model), case["inputs"]
        np.testing.assert_allclose(hand(*args), want, rtol=1e-4, atol=1e-4, err_msg=name)
        fns["numpy"] = lambda: hand(*args)
    row = {"name": name, **interleaved(fns)}
    row["mem_static"] = peak_memory(fns["static"])
    row["mem_eager"] = peak_memory(fns["eager"])
    if "numpy" in fns:
        row["mem_numpy"] = peak_memory(fns["numpy"])
    return row


# ----------------------------------------------------------------------------- train steps
def make_step(loss_fn: Callable) -> Callable:
    def train_step(model, opt, inputs, label):
        loss = loss_fn(model(*inputs), label)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return train_step


def optimizer(kind: str, model: paddle.nn.Layer) -> Any:
    if kind == "Momentum":
        return paddle.optimizer.Momentum(learning_rate=0.01, parameters=model.parameters())
    return paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())


def train_row(name: str, case: Dict[str, Any]) -> Dict[str, Any]:
    paddle.seed(0)
    models = twins(case["make"], 3)
    for m in models:
        m.train()
    eager_model, converted_model, whole_model = models
    paddle.jit.to_static(converted_model, full_graph=True)         # the forward converted in place
    opts = [optimizer(case["optimizer"], m) for m in models]
    step = make_step(case["loss"])
    whole_step = paddle.jit.to_static(make_step(case["loss"]), full_graph=True)
    targs = tuple(paddle.to_tensor(a) for a in case["inputs"])
    label = paddle.to_tensor(case["label"])
    fns = {"eager": lambda: step(eager_model, opts[0], targs, label),
           "to_static(model)": lambda: step(converted_model, opts[1], targs, label),
           "whole step": lambda: whole_step(whole_model, opts[2], targs, label)}
    # the same step from the same parameters: the same loss and the same updated parameters
    losses = [float(fn()) for fn in fns.values()]
    np.testing.assert_allclose(losses[1:], [losses[0]] * 2, rtol=1e-4, err_msg=name)
    for ps in zip(*(m.parameters() for m in models)):
        for p in ps[1:]:
            np.testing.assert_allclose(p.numpy(), ps[0].numpy(), rtol=1e-3, atol=1e-5, err_msg=name)
    row = {"name": name, **interleaved(fns, budget=0.05)}
    row.update({f"mem {k}": peak_memory(fn) for k, fn in fns.items()})
    assert whole_step.num_programs == 1
    return row


# ----------------------------------------------------------------------------- report
def ms(t: float) -> str:
    return f"{t * 1e3:.2f}"


def mb(b: int) -> str:
    return f"{b / 2 ** 20:.1f}"


def print_table(title: str, columns: List[Tuple[str, int, Callable[[Dict], str]]],
                rows: List[Dict[str, Any]], good: Callable[[Dict], bool]) -> bool:
    """Print rows under title, one cell per (heading, width, cell text) column and a last
    column saying whether good(row); True when every row is."""
    print(title)
    print(f"{'model':<12}" + "".join(f"{h:>{w}}" for h, w, _ in columns) + "  ok")
    ok = True
    for r in rows:
        row_ok = good(r)
        ok &= row_ok
        print(f"{r['name']:<12}" + "".join(f"{cell(r):>{w}}" for _, w, cell in columns) +
              f"  {'yes' if row_ok else 'NO'}")
    return ok


def report_forward(rows: List[Dict[str, Any]]) -> bool:
    def ratio(r: Dict, base: str) -> str:
        return f"{r['static'] / r[base]:.2f}" if base in r else "-"

    def good(r: Dict) -> bool:
        return r["static"] <= r["eager"] and r["mem_static"] <= r["mem_eager"] and \
            ("numpy" not in r or r["static"] <= TARGET_NUMPY * r["numpy"])
    return print_table(
        f"forward, median ms per call ({ROUNDS} interleaved rounds); peak MB of one call "
        f"(tracemalloc); targets: static <= eager, static <= {TARGET_NUMPY}x numpy, "
        "memory static <= eager",
        [("static", 9, lambda r: ms(r["static"])), ("eager", 9, lambda r: ms(r["eager"])),
         ("numpy", 9, lambda r: ms(r["numpy"]) if "numpy" in r else "-"),
         ("st/eager", 9, lambda r: ratio(r, "eager")), ("st/np", 7, lambda r: ratio(r, "numpy")),
         ("MB st", 8, lambda r: mb(r["mem_static"])), ("MB eager", 9, lambda r: mb(r["mem_eager"])),
         ("MB np", 7, lambda r: mb(r["mem_numpy"]) if "mem_numpy" in r else "-")],
        rows, good)


def report_train(rows: List[Dict[str, Any]]) -> bool:
    forms = ("eager", "to_static(model)", "whole step")
    return print_table(
        f"\ntrain step (forward + backward + optimizer step), median ms per step ({ROUNDS} "
        "interleaved rounds); ratios to eager; peak MB of one step; target: both to_static "
        "forms <= eager",
        [(h, 9, lambda r, f=f: ms(r[f])) for h, f in zip(("eager", "to_st(m)", "whole"), forms)] +
        [("m/eager", 8, lambda r: f"{r[forms[1]] / r['eager']:.2f}"),
         ("whole/e", 8, lambda r: f"{r[forms[2]] / r['eager']:.2f}")] +
        [(h, 9, lambda r, f=f: mb(r[f"mem {f}"])) for h, f in zip(("MB eager", "MB m", "MB whole"),
                                                                   forms)],
        rows, lambda r: r[forms[1]] <= r["eager"] and r[forms[2]] <= r["eager"])


def main(argv: List[str]) -> int:
    forward_only = "--forward-only" in argv
    names = [a for a in argv if not a.startswith("--")] or list(CASES)
    print(f"BLAS threads: OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']} "
          f"(one thread for dy2st and numpy alike); batch {BATCH}")
    ok = report_forward([forward_row(n, CASES[n]()) for n in names])
    if not forward_only:
        ok &= report_train([train_row(n, CASES[n]()) for n in names])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
