"""The cost of paddle.distributed's point-to-point transfers (send / recv through the key-value
store of JAX's coordination service) against a collective moving the same bytes (broadcast
through gloo), measured in the same job of 2 processes on this machine.

Run with `python benchmarks/point_to_point.py` from the repository root (needs jax). It prints,
for each message size, the median one-way time of a send/recv (half a ping-pong between rank 0
and rank 1), the median time of a broadcast of the same array, and their ratio."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Dict

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

SIZES = (16, 64 * 1024, 1024 * 1024, 8 * 1024 * 1024)      # bytes
ROUNDS = 7


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    fn()
    runs = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        runs.append((time.perf_counter() - t0) / repeat)
    return 1000 * statistics.median(runs)


def worker() -> None:
    """One process of the job; rank 0 prints the figures as one JSON line."""
    # imported here: the launching side (main) needs none of dy2st
    import dy2st as paddle
    import dy2st.distributed as dist

    dist.init_parallel_env()
    rank = dist.get_rank()
    out: Dict[str, Any] = {}
    for size in SIZES:
        t = paddle.to_tensor(np.ones(size // 4, np.float32))
        repeat = 20 if size <= 1 << 20 else 4

        def ping_pong(t: Any = t) -> None:
            if rank == 0:
                dist.send(t, dst=1)
                dist.recv(t, src=1)
            else:
                dist.recv(t, src=0)
                dist.send(t, dst=0)

        dist.barrier()
        p2p = median_ms(ping_pong, repeat) / 2
        dist.barrier()
        bcast = median_ms(lambda t=t: dist.broadcast(t, src=0), repeat)
        out[str(size)] = {"p2p": p2p, "broadcast": bcast}
    if rank == 0:
        print("RESULT " + json.dumps(out), flush=True)


def main() -> None:
    cmd = [sys.executable, "-m", "dy2st.distributed.launch", "--nproc_per_node", "2",
           os.path.abspath(__file__), "--worker"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT), timeout=900)
    result = None
    for line in proc.stdout.splitlines():
        if "RESULT " in line:
            result = json.loads(line.split("RESULT ", 1)[1])
    if result is None:
        raise SystemExit(f"the job failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    print(f"2 processes on this machine ({os.cpu_count()} cores); median ms")
    print(f"{'bytes':>9} {'send/recv':>10} {'broadcast':>10} {'p2p / bcast':>12} {'MB/s p2p':>9}")
    for size in SIZES:
        r = result[str(size)]
        rate = size / 2 ** 20 / (r["p2p"] / 1000)
        print(f"{size:>9} {r['p2p']:>10.2f} {r['broadcast']:>10.2f} "
              f"{r['p2p'] / r['broadcast']:>12.2f} {rate:>9.1f}")


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    else:
        main()
