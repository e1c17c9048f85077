"""One process of tests/distributed/test_collectives.py (started by dy2st.distributed.launch, with
any number of processes; the test starts 2): runs every collective, point-to-point transfer and group operation once, and
pickles what it got to OUT_DIR/rank<R>.pkl. Imported, it gives the test the inputs each rank
had, for the one-process definitions."""
import os
import pickle
import sys
import warnings

import numpy as np

import dy2st as paddle
import dy2st.distributed as dist


def subgroup(n):
    """The ranks of a group of some of the processes, and one process outside it."""
    return ([0, n - 1], 1) if n > 2 else ([1], 0)


def data(rank, n):
    """Rank `rank`'s input: n rows (one chunk per process) of 2 values."""
    return (np.arange(2 * n, dtype="float32").reshape(n, 2) * (rank + 1) + rank).astype("float32")


def split_sizes(rank, n):
    """What rank sends to each process in the unequal alltoall_single: rank + j + 1 rows."""
    return [rank + j + 1 for j in range(n)]


def uneven(rank, n):
    return (np.arange(sum(split_sizes(rank, n)), dtype="int64") + 100 * rank).reshape(-1, 1)


def caught(fn, *args, **kwargs):
    """The type and message of what fn raised (None: nothing)."""
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the test checks the type and the text
        return type(e).__name__, str(e)
    return None


def numpy(ts):
    return [t.numpy() for t in ts]


def collectives(r, n, out):
    x = data(r, n)
    for op in ("SUM", "MAX", "PROD", "AVG"):
        t = paddle.to_tensor(x)
        dist.reduce(t, dst=1, op=getattr(dist.ReduceOp, op))
        out["reduce_" + op] = t.numpy()
    got = []
    dist.gather(paddle.to_tensor(x), got, dst=n - 1)
    out["gather"] = numpy(got)
    filled = [paddle.zeros([n, 2]) for _ in range(n)]
    dist.gather(paddle.to_tensor(x * 2), filled if r == 0 else None, dst=0)
    out["gather_in_place"] = numpy(filled)
    t = paddle.zeros([2])
    dist.scatter(t, [paddle.to_tensor(row) for row in x] if r == 1 else None, src=1)
    out["scatter"] = t.numpy()
    t = paddle.zeros([2])
    dist.scatter(t, paddle.to_tensor(x) if r == 0 else None, src=0)
    out["scatter_tensor"] = t.numpy()
    for op in ("SUM", "MAX", "MIN", "AVG"):
        t = paddle.zeros([2])
        dist.reduce_scatter(t, [paddle.to_tensor(row) for row in x], op=getattr(dist.ReduceOp, op))
        out["reduce_scatter_" + op] = t.numpy()
    t = paddle.zeros([1, 2])
    dist.reduce_scatter(t, paddle.to_tensor(x))
    out["reduce_scatter_tensor"] = t.numpy()
    got = []
    task = dist.alltoall(got, [paddle.to_tensor(row) for row in x])
    out["alltoall"] = numpy(got)
    out["task"] = (task.wait(), task.is_completed())
    t = paddle.zeros([n, 2])
    dist.alltoall_single(t, paddle.to_tensor(x))
    out["alltoall_single"] = t.numpy()
    received = [r + 1 + i for i in range(n)]          # split_sizes(i, n)[r]
    t = paddle.zeros([sum(received), 1], dtype="int64")
    dist.alltoall_single(t, paddle.to_tensor(uneven(r, n)), split_sizes(r, n), received)
    out["alltoall_single_uneven"] = t.numpy()
    objects = [None, None]
    if r == n - 1:
        objects = [{"from": r}, "last"]
    dist.broadcast_object_list(objects, src=n - 1)
    out["broadcast_object_list"] = objects
    mine = ["stale"]
    dist.scatter_object_list(mine, [{"to": j} for j in range(n)] if r == 0 else None, src=0)
    out["scatter_object_list"] = mine
    out["backend"] = dist.get_backend()


def point_to_point(r, n, out):
    right, left = (r + 1) % n, (r - 1) % n
    dist.send(paddle.to_tensor(data(r, n)), dst=right)
    t = paddle.zeros([n, 2])
    dist.recv(t, src=left)
    out["ring"] = t.numpy()
    # isend/irecv both ways between every pair, in any order: the store holds the messages
    tasks, boxes = [], {}
    for peer in range(n):
        if peer != r:
            boxes[peer] = paddle.zeros([1], dtype="int64")
            tasks.append(dist.irecv(boxes[peer], src=peer))
            dist.isend(paddle.to_tensor([10 * r + peer], dtype="int64"), dst=peer)
    for task in tasks[:-1]:
        task.wait()
    dist.wait(boxes[max(boxes)])          # the last one through paddle.distributed.wait
    out["exchange"] = {p: int(b.numpy()[0]) for p, b in boxes.items()}
    if r == 0:
        dist.send_object_list([{"a": 1}, [2, 3]], dst=1)
        dist.send(paddle.to_tensor([1.0]), dst=1)
    if r == 1:
        objects = [None, None]
        dist.recv_object_list(objects, src=0)
        out["objects"] = objects
        wrong = paddle.zeros([2])
        out["recv_wrong_shape"] = caught(dist.recv, wrong, src=0)


def groups(r, n, out):
    members, outsider = subgroup(n)
    g = dist.new_group(members)
    out["group"] = (g.id, g.rank, g.ranks, g.nranks, dist.get_rank(g), dist.get_world_size(g),
                    g.is_member(), dist.get_group(g.id) is g)
    x = data(r, n)
    k = len(members)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        t = paddle.to_tensor(x)
        out["g_all_reduce_task"] = dist.all_reduce(t, group=g) is not None
        out["g_all_reduce"] = t.numpy()
        t = paddle.to_tensor(x)
        dist.broadcast(t, src=members[-1], group=g)
        out["g_broadcast"] = t.numpy()
        got = []
        dist.all_gather(got, paddle.to_tensor(x), group=g)
        out["g_all_gather"] = numpy(got)
        t = paddle.zeros([2])
        dist.reduce_scatter(t, [paddle.to_tensor(row) for row in x[:k]], group=g)
        out["g_reduce_scatter"] = t.numpy()
        got = []
        dist.alltoall(got, [paddle.to_tensor(row) for row in x[:k]], group=g)
        out["g_alltoall"] = numpy(got)
        objects = []
        dist.all_gather_object(objects, r, group=g)
        out["g_all_gather_object"] = objects
        dist.barrier(group=g)
        if r == outsider:
            out["g_send"] = dist.send(paddle.to_tensor(x), dst=members[0], group=g)
    out["g_warnings"] = [str(w.message) for w in seen]
    if g.is_member():
        out["g_bad_src"] = caught(dist.broadcast, paddle.to_tensor(x), src=outsider, group=g)
    dist.shutdown_process_group(g)
    out["g_shut_down"] = caught(dist.all_reduce, paddle.to_tensor(x), group=g)
    dist.restart_process_group(g)
    if g.is_member():
        t = paddle.to_tensor(x)
        dist.all_reduce(t, op=dist.ReduceOp.MAX, group=g)
        out["g_restarted"] = t.numpy()
    dist.destroy_process_group(g)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        out["g_destroyed"] = dist.get_group(g.id)


def data_parallel(r, n, out):
    """DataParallel over a group averages the gradients of its members only."""
    members, _ = subgroup(n)
    g = dist.new_group(members)
    paddle.seed(r)
    net = paddle.nn.Linear(2, 1)
    if not g.is_member():
        out["dp_outsider"] = caught(paddle.DataParallel, net, group=g)
        out["dp_weight"] = net.weight.numpy()
        return
    model = paddle.DataParallel(net, group=g)
    model(paddle.to_tensor(data(r, n))).sum().backward()
    out["dp_grad"] = net.weight.grad.numpy()
    out["dp_weight"] = net.weight.numpy()

    def step(x):
        model(x).sum().backward()
        return x

    compiled_step = paddle.jit.to_static(step, full_graph=True)
    out["dp_compiled"] = caught(compiled_step, paddle.to_tensor(data(r, n)))


def errors(r, n, out):
    """Argument errors: every process raises (none is left waiting)."""
    t = paddle.zeros([2])
    out["err_dst"] = caught(dist.reduce, t, dst=n)
    out["err_list_length"] = caught(dist.reduce_scatter, t, [t] * (n + 1))
    out["err_alltoall_length"] = caught(dist.alltoall, [], [t])
    # only the source sees its list is wrong: it tells the others, and all raise
    out["err_scatter_list"] = caught(dist.scatter, t, [t] * (n + 1) if r == 0 else None, src=0)
    out["err_scatter_objects"] = caught(dist.scatter_object_list, [], [1] if r == 0 else None,
                                        src=0)
    out["err_unpicklable"] = caught(dist.broadcast_object_list,
                                    [lambda: 0] if r == 0 else [None], src=0)
    out["err_split_sizes"] = caught(dist.alltoall_single, paddle.zeros([n, 1]),
                                    paddle.zeros([n, 1]), [1] * n, [2] + [1] * (n - 2) + [0]
                                    if r == 1 else [1] * n)


def compiled(r, n, out):
    """reduce_scatter and alltoall inside converted functions, on both backends."""
    def step(x):
        y = paddle.zeros([2])
        dist.reduce_scatter(y, [x[i] for i in range(n)])
        high, mean = paddle.zeros([2]), paddle.zeros([2])
        dist.reduce_scatter(high, [x[i] for i in range(n)], op=dist.ReduceOp.MAX)
        dist.reduce_scatter(mean, x, op=dist.ReduceOp.AVG)       # one tensor of n chunks
        parts = []
        dist.alltoall(parts, [x[i] * 2.0 for i in range(n)])
        z = paddle.zeros_like(x)
        dist.alltoall_single(z, x + 1.0)
        return y, paddle.stack(parts), z, high, mean

    for backend in ("numpy", "xla"):
        f = paddle.jit.to_static(step, backend=backend, full_graph=True)
        out["compiled_" + backend] = [v.numpy() for v in f(paddle.to_tensor(data(r, n)))]
        kinds = [op.type for op in f.concrete_program.main_program.global_block().ops]
        out["compiled_ops_" + backend] = sorted(k for k in set(kinds) if k.startswith("c_"))

    def p2p(x):
        dist.send(x, dst=(r + 1) % n)
        return x + 1.0

    f = paddle.jit.to_static(p2p, full_graph=True)
    out["compiled_send"] = caught(f, paddle.to_tensor([1.0]))


def bn_batch(n):
    """SyncBatchNorm's whole batch (2 rows per process, 3 channels of length 2, far from a zero
    mean) and the cotangent of its output; rank r takes rows 2r and 2r + 1."""
    rng = np.random.default_rng(7)
    return ((rng.standard_normal((2 * n, 3, 2)) * 2 + 3).astype("float32"),
            rng.standard_normal((2 * n, 3, 2)).astype("float32"))


def bn_layer():
    layer = paddle.nn.SyncBatchNorm(3, momentum=0.5, data_format="NCL")
    layer.weight.set_value(np.array([1.5, -0.5, 2.0], "float32"))
    layer.bias.set_value(np.array([0.1, 0.2, -0.3], "float32"))
    return layer


def sync_batch_norm(r, n, out):
    """One training step of a SyncBatchNorm on this rank's rows, eagerly and compiled on both
    backends: its output, gradients and running statistics, then its output in eval mode."""
    whole, cotangent = bn_batch(n)
    x, cot = whole[2 * r:2 * r + 2], paddle.to_tensor(cotangent[2 * r:2 * r + 2])
    for mode in ("eager", "numpy", "xla"):
        layer = bn_layer()

        def step(t):
            y = layer(t)
            (y * cot).sum().backward()
            return y
        f = step if mode == "eager" else paddle.jit.to_static(step, backend=mode, full_graph=True)
        t = paddle.to_tensor(x, stop_gradient=False)
        y = f(t)
        layer.eval()
        out["sbn_" + mode] = [y.numpy(), t.grad.numpy(), layer.weight.grad.numpy(),
                              layer.bias.grad.numpy(), layer._mean.numpy(),
                              layer._variance.numpy(), layer(paddle.to_tensor(x)).numpy()]


def main(out_dir):
    r, n = int(os.environ["PADDLE_TRAINER_ID"]), int(os.environ["PADDLE_TRAINERS_NUM"])
    out = {}
    # the CPU barrier context first; init_parallel_env then shares the runtime it joined
    dist.gloo_init_parallel_env(r, n, os.environ["PADDLE_MASTER"])
    dist.gloo_barrier()
    dist.init_parallel_env()
    collectives(r, n, out)
    point_to_point(r, n, out)
    groups(r, n, out)
    data_parallel(r, n, out)
    errors(r, n, out)
    compiled(r, n, out)
    sync_batch_norm(r, n, out)
    dist.gloo_barrier()
    dist.gloo_release()
    out["gloo_released"] = caught(dist.gloo_barrier)
    dist.barrier()
    with open(os.path.join(out_dir, f"rank{r}.pkl"), "wb") as f:
        pickle.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1])
