"""One process of the data-parallel tests (started by dy2st.distributed.launch): trains an MLP and
a small CNN with DataParallel, eagerly and as a whole train step on XLA, on its share of a global
batch, runs the collectives, and saves what it got to OUT_DIR/rank<R>.npz. Imported (not
launched), it gives the test the models and data for the one-process reference."""
import sys

import numpy as np

import dy2st as paddle
import dy2st.distributed as dist

GLOBAL_BATCH = 8
STEPS = 3


def mlp():
    return paddle.nn.Sequential(paddle.nn.Linear(5, 8), paddle.nn.Tanh(), paddle.nn.Linear(8, 3))


def cnn():
    return paddle.nn.Sequential(paddle.nn.Conv2D(1, 3, 3), paddle.nn.ReLU(),
                                paddle.nn.MaxPool2D(2), paddle.nn.Flatten(),
                                paddle.nn.Linear(12, 3))


MODELS = {"mlp": (mlp, (5,)), "cnn": (cnn, (1, 6, 6))}
# (model, how it trains): eagerly, as a whole step compiled by XLA, with only the forward compiled
# (and with gradients accumulated over two halves, the first without averaging: no_sync)
RUNS = [("mlp", "eager"), ("mlp", "xla"), ("mlp", "xla_forward"), ("mlp", "eager_no_sync"),
        ("cnn", "eager"), ("cnn", "xla")]


def batches(kind, steps=STEPS):
    """The global batches of every step (the same on every process)."""
    rng = np.random.default_rng(7)
    shape = MODELS[kind][1]
    return [(rng.standard_normal((GLOBAL_BATCH,) + shape).astype("float32"),
             rng.standard_normal((GLOBAL_BATCH, 3)).astype("float32")) for _ in range(steps)]


GRADS = []      # the first layer's gradient after each backward of the no_sync run


def train(kind, mode, rank, world, seed=0, steps=STEPS):
    """The parameters after `steps` SGD steps on rank's share of each global batch."""
    paddle.seed(seed)
    net = MODELS[kind][0]()
    model = paddle.DataParallel(net)
    opt = paddle.optimizer.SGD(learning_rate=0.2, parameters=model.parameters())

    def step(x, y):
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    def accumulated(x, y):
        # two halves: the first backward under no_sync (local only), the second averages the
        # sum of both over the processes
        half = x.shape[0] // 2
        with model.no_sync():
            (((model(x[:half]) - y[:half]) ** 2).mean() * 0.5).backward()
        GRADS.append(net[0].weight.grad.numpy().copy())     # this process's own gradient
        (((model(x[half:]) - y[half:]) ** 2).mean() * 0.5).backward()
        GRADS.append(net[0].weight.grad.numpy().copy())     # the average over the processes
        opt.step()
        opt.clear_grad()

    if mode == "eager_no_sync":
        step = accumulated
    elif mode == "xla_forward":
        # the forward compiled (DataParallel inside to_static), backward and step eager
        model = paddle.jit.to_static(model, backend="xla")
    elif mode != "eager":
        step = paddle.jit.to_static(step, backend=mode, full_graph=True)
    share = GLOBAL_BATCH // world
    for x, y in batches(kind, steps):
        step(paddle.to_tensor(x[rank * share:(rank + 1) * share]),
             paddle.to_tensor(y[rank * share:(rank + 1) * share]))
    return {k: v.numpy().copy() for k, v in model.state_dict().items()}


class Looped(paddle.nn.Layer):
    """A layer applied as many times as its input says (a loop with a data-dependent trip
    count: its gradient reads per-turn buffers that a long loop outgrows)."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x, n):
        i = paddle.zeros([], "int64")
        while i < n:
            x = paddle.tanh(self.fc(x))
            i = i + 1
        return x


def looped(mode, rank):
    """Parameters after 2 steps in which rank 1 loops 40 times (past the first buffers of 32
    turns, so its step is compiled again larger: every rank must do so with it) and rank 0 3."""
    paddle.seed(0)
    model = paddle.DataParallel(Looped())
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())

    def step(x, n):
        loss = (model(x, n) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    if mode == "xla":
        step = paddle.jit.to_static(step, backend="xla", full_graph=True)
    x = paddle.to_tensor(np.full((2, 4), 0.1 * (rank + 1), "float32"))
    for _ in range(2):
        step(x, paddle.to_tensor(40 if rank == 1 else 3, dtype="int64"))
    return {k: v.numpy().copy() for k, v in model.state_dict().items()}


def collectives(rank):
    out = {}
    for name in ("SUM", "MAX", "MIN", "AVG", "PROD"):
        t = paddle.to_tensor([rank + 1.0, 2.0 * rank - 1.0])
        dist.all_reduce(t, op=getattr(dist.ReduceOp, name))
        out["all_reduce_" + name] = t.numpy()
    parts = []
    dist.all_gather(parts, paddle.to_tensor([[rank, 10 + rank]], dtype="int64"))
    out["all_gather"] = np.stack([p.numpy() for p in parts])
    b = paddle.to_tensor([rank * 1.5, 3.0], dtype="float64")
    dist.broadcast(b, src=1)
    out["broadcast"] = b.numpy()
    objects = []
    dist.all_gather_object(objects, {"rank": rank, "text": "r" * (rank + 1)})
    out["all_gather_object"] = np.array([o["text"] for o in objects])
    dist.barrier()

    def summed(x):
        y = x * 2.0
        dist.all_reduce(y)              # 2 * (1 + 2)
        parts = []
        dist.all_gather(parts, x)       # [1], [2]
        z = x + 0.0
        dist.broadcast(z, src=0)        # 1
        return y + 1.0 + parts[1] * 10.0 + z * 100.0

    for backend in ("numpy", "xla"):
        f = paddle.jit.to_static(summed, backend=backend, full_graph=True)
        out["to_static_all_reduce_" + backend] = f(paddle.to_tensor([rank + 1.0])).numpy()
    out["world"] = np.array([dist.get_world_size(), dist.get_rank(), dist.ParallelEnv().rank])
    return out


def main(out_dir):
    dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    result = collectives(rank)
    for kind, mode in RUNS:
        # each rank starts from its own random parameters: DataParallel gives it rank 0's
        params = train(kind, mode, rank, world, seed=rank)
        for k, v in params.items():
            result[f"{kind}/{mode}/{k}"] = v
    result["no_sync_grads"] = np.stack(GRADS)
    for mode in ("eager", "xla"):
        for k, v in looped(mode, rank).items():
            result[f"looped/{mode}/{k}"] = v
    np.savez(f"{out_dir}/rank{rank}.npz", **result)


if __name__ == "__main__":
    main(sys.argv[1])
