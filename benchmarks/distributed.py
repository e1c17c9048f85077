"""Data-parallel training, 1 process against 2 on this machine (issue 29): the step time of an MLP
trained on the same global batch (eagerly on numpy with DataParallel, and as one train step
compiled by XLA), and the time of the gradient all-reduce of one step.

Run with `python benchmarks/distributed.py` from the repository root (needs jax). It starts each
job through `python -m dy2st.distributed.launch` and prints median ms per step, the ratio
2 processes / 1 process, and the all-reduce time per step. On a machine with 2 cores that other
work shares, 2 processes bring no speed-up: each process gets half the batch but the same
fixed costs, plus the all-reduce. The point is correctness and the cost of the collectives."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Dict, Tuple

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

GLOBAL_BATCH, FEATURES, HIDDEN, CLASSES = 256, 256, 512, 10
ROUNDS, STEPS = 5, 10


def median_ms(fn: Callable[[], Any]) -> float:
    fn()
    fn()
    runs = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(STEPS):
            fn()
        runs.append((time.perf_counter() - t0) / STEPS)
    return 1000 * statistics.median(runs)


def worker() -> None:
    """One process of the job: times its steps and (rank 0) prints them as one JSON line."""
    # imported here: the launching side (main) needs none of dy2st
    import dy2st as paddle
    import dy2st.distributed as dist
    from dy2st.runtime.collective import communicator

    dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    rng = np.random.default_rng(0)
    share = GLOBAL_BATCH // world
    x = paddle.to_tensor(rng.standard_normal((GLOBAL_BATCH, FEATURES)).astype("float32")
                         [rank * share:(rank + 1) * share])
    y = paddle.to_tensor(rng.integers(0, CLASSES, (GLOBAL_BATCH,))[rank * share:(rank + 1) * share])
    out: Dict[str, float] = {"world": world}
    for mode in ("eager", "xla"):
        out[mode], net = time_steps(paddle, mode, x, y)
    # the all-reduce DataParallel runs after each eager backward: every gradient in one buffer
    size = sum(int(np.prod(p.shape)) for p in net.parameters()) + len(net.parameters())
    grads = np.ones(size, np.float32)
    out["all_reduce"] = median_ms(lambda: communicator().all_reduce(grads, "sum"))
    out["all_reduce_mb"] = grads.nbytes / 2 ** 20
    if rank == 0:
        print("RESULT " + json.dumps(out), flush=True)


def time_steps(paddle: Any, mode: str, x: Any, y: Any) -> Tuple[float, Any]:
    """Median ms of a DataParallel MLP's train step (eager, or one XLA computation)."""
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(FEATURES, HIDDEN), paddle.nn.ReLU(),
                               paddle.nn.Linear(HIDDEN, HIDDEN), paddle.nn.ReLU(),
                               paddle.nn.Linear(HIDDEN, CLASSES))
    model = paddle.DataParallel(net)
    opt = paddle.optimizer.SGD(0.01, parameters=model.parameters())

    def step(x, y):
        loss = paddle.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    if mode == "xla":
        step = paddle.jit.to_static(step, backend="xla", full_graph=True)
    return median_ms(lambda: step(x, y)), net


def run_job(nproc: int) -> Dict[str, float]:
    cmd = [sys.executable, "-m", "dy2st.distributed.launch", "--nproc_per_node", str(nproc),
           os.path.abspath(__file__), "--worker"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT), timeout=900)
    for line in proc.stdout.splitlines():
        if "RESULT " in line:
            return json.loads(line.split("RESULT ", 1)[1])
    raise SystemExit(f"the job of {nproc} process(es) failed:\n{proc.stdout[-2000:]}"
                     f"\n{proc.stderr[-4000:]}")


def main() -> None:
    one, two = run_job(1), run_job(2)
    print(f"MLP {FEATURES}-{HIDDEN}-{HIDDEN}-{CLASSES}, global batch {GLOBAL_BATCH}, SGD; "
          f"median ms per step ({os.cpu_count()} cores)")
    print(f"{'mode':<8} {'1 process':>10} {'2 processes':>12} {'2 / 1':>7}")
    for mode in ("eager", "xla"):
        print(f"{mode:<8} {one[mode]:>10.2f} {two[mode]:>12.2f} {two[mode] / one[mode]:>7.2f}")
    print(f"all-reduce of the gradients ({two['all_reduce_mb']:.2f} MB) per step: "
          f"{two['all_reduce']:.2f} ms with 2 processes, {one['all_reduce']:.3f} ms with 1 "
          "(no communication)")


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    else:
        main()
