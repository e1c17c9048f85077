"""Executor and eager overhead against hand-written numpy, measured in one run (not a test).

Run with `python benchmarks/executor.py`; prints a table of times, ratios and targets."""
from __future__ import annotations

import timeit
from typing import Callable, List, Tuple

import numpy as np

import dy2st as paddle
from dy2st import static
from dy2st.runtime.executor import compile_program

N_OPS = 200
REPEAT = 7


def best_time(fn: Callable[[], object], number: int) -> float:
    """Seconds per call: the minimum over REPEAT timeit runs of `number` calls."""
    return min(timeit.repeat(fn, number=number, repeat=REPEAT)) / number


def make_weights(n: int, size: int) -> Tuple[List[np.ndarray], List[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal((size, size)) / size).astype("float32") for _ in range(n)]
    bs = [rng.standard_normal((size, size)).astype("float32") for _ in range(n)]
    half = np.array(0.5, "float32")
    return ws, bs, half


# ----------------------------------------------------------------------------- (a) executor
def chain_ops(n_ops: int) -> List[str]:
    """The op sequence: matmul, add, multiply, tanh, repeated until n_ops ops."""
    cycle = ["matmul", "add", "multiply", "tanh"]
    return [cycle[i % len(cycle)] for i in range(n_ops)]


def build_program(ops: List[str], ws, bs, half) -> Tuple[static.Program, static.Variable]:
    w_t = [paddle.to_tensor(w) for w in ws]
    b_t = [paddle.to_tensor(b) for b in bs]
    half_t = paddle.to_tensor(half)
    main = static.Program()
    with static.program_guard(main):
        h = static.data("x", [64, 64], "float32")
        for i, op in enumerate(ops):
            k = i // 4
            if op == "matmul":
                h = paddle.matmul(h, w_t[k])
            elif op == "add":
                h = paddle.add(h, b_t[k])
            elif op == "multiply":
                h = paddle.multiply(h, half_t)
            else:
                h = paddle.tanh(h)
    assert main.num_ops() == len(ops), main.num_ops()
    return main, h


def hand_written_numpy(ops: List[str], ws, bs, half) -> Callable[[np.ndarray], np.ndarray]:
    """The same numpy calls as straight-line code, as a person would write them."""
    lines = ["def run(h):"]
    for i, op in enumerate(ops):
        k = i // 4
        call = {"matmul": f"np.matmul(h, W{k})", "add": f"np.add(h, B{k})",
                "multiply": "np.multiply(h, HALF)", "tanh": "np.tanh(h)"}[op]
        lines.append(f"    h = {call}")
    lines.append("    return h")
    ns = {"np": np, "HALF": half}
    ns.update({f"W{k}": w for k, w in enumerate(ws)})
    ns.update({f"B{k}": b for k, b in enumerate(bs)})
    exec("\n".join(lines), ns)
    return ns["run"]


def bench_executor() -> Tuple[float, float]:
    ops = chain_ops(N_OPS)
    ws, bs, half = make_weights((N_OPS + 3) // 4, 64)
    main, out = build_program(ops, ws, bs, half)
    x = np.random.default_rng(1).standard_normal((64, 64)).astype("float32")
    compiled = compile_program(main, ["x"], [out.name])
    numpy_fn = hand_written_numpy(ops, ws, bs, half)
    np.testing.assert_allclose(compiled([x])[0], numpy_fn(x), rtol=1e-5, atol=1e-6)
    exe = static.Executor()
    t_exec = best_time(lambda: exe.run(main, feed={"x": x}, fetch_list=[out]), 200)
    t_numpy = best_time(lambda: numpy_fn(x), 200)
    return t_exec, t_numpy


# ----------------------------------------------------------------------------- (b) eager
def bench_eager() -> Tuple[float, float]:
    ws, bs, half = make_weights(1, 4)
    w, b = ws[0], bs[0]
    x = np.random.default_rng(2).standard_normal((4, 4)).astype("float32")
    wt, bt, halft, xt = (paddle.to_tensor(v) for v in (w, b, half, x))

    def eager():
        h = paddle.matmul(xt, wt)
        h = h + bt
        h = h * halft
        h = paddle.tanh(h)
        h = h - bt
        return h.mean()

    def numpy_ref():
        h = np.matmul(x, w)
        h = np.add(h, b)
        h = np.multiply(h, half)
        h = np.tanh(h)
        h = np.subtract(h, b)
        return np.mean(h)

    np.testing.assert_allclose(eager().numpy(), numpy_ref(), rtol=1e-5, atol=1e-6)
    return best_time(eager, 5000), best_time(numpy_ref, 5000)


def main() -> None:
    t_exec, t_np = bench_executor()
    t_eager, t_np_small = bench_eager()
    rows = [
        (f"(a) compiled executor, {N_OPS} ops on 64x64", t_exec, t_np, 1.2),
        ("(b) eager mode, 6 ops on 4x4", t_eager, t_np_small, 3.0),
    ]
    print(f"{'benchmark':<42} {'dy2st':>10} {'numpy':>10} {'ratio':>7} {'target':>7}  ok")
    for name, t, ref, target in rows:
        ratio = t / ref
        print(f"{name:<42} {t * 1e6:>8.1f}us {ref * 1e6:>8.1f}us {ratio:>7.2f} {target:>7.1f}  "
              f"{'yes' if ratio <= target else 'NO'}")


if __name__ == "__main__":
    main()
