"""paddle.distributed in a job of one process (no launcher, no jax): ranks from the environment,
collectives that give their input back, DataParallel as a no-op wrapper with the wrapped layer's
state_dict keys, and clear errors for a job of several processes that cannot start."""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dy2st as paddle
import dy2st.distributed as dist
from dy2st.distributed import group as groups

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh(monkeypatch):
    """No job joined yet (and none left behind)."""
    for name in ("PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM", "PADDLE_GLOBAL_RANK",
                 "PADDLE_GLOBAL_SIZE", "PADDLE_MASTER", "PADDLE_TRAINER_ENDPOINTS"):
        monkeypatch.delenv(name, raising=False)
    dist.destroy_process_group()
    yield monkeypatch
    dist.destroy_process_group()


def test_one_process_job_needs_no_jax(fresh):
    code = ("import sys, dy2st as paddle, dy2st.distributed as dist; dist.init_parallel_env(); "
            "paddle.DataParallel(paddle.nn.Linear(2, 2)); print('jax' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if not k.startswith("PADDLE_")},
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr


def test_one_process_job(fresh):
    assert not dist.is_initialized()
    assert (dist.get_rank(), dist.get_world_size()) == (0, 1)
    group = dist.init_parallel_env()
    assert dist.init_parallel_env() is group and dist.is_initialized()
    assert (group.rank, group.nranks, group.ranks) == (0, 1, [0])
    # as in Paddle, new_group makes a new group (a new id) even of every process
    sub = dist.new_group([0])
    assert (sub.id, sub.ranks, sub.rank, sub.nranks) == (1, [0], 0, 1)
    assert dist.get_group(1) is sub and dist.get_group(0) is group
    env = dist.ParallelEnv()
    assert (env.rank, env.world_size, env.local_rank, env.nranks) == (0, 1, 0, 1)


def test_ranks_come_from_paddles_environment_variables(fresh):
    fresh.setenv("PADDLE_TRAINER_ID", "3")
    fresh.setenv("PADDLE_TRAINERS_NUM", "4")
    fresh.setenv("PADDLE_TRAINER_ENDPOINTS", "10.0.0.1:6170,10.0.0.2:6170")
    fresh.setenv("PADDLE_CURRENT_ENDPOINT", "10.0.0.2:6170")
    env = dist.ParallelEnv()
    assert (env.rank, env.world_size) == (3, 4)
    assert env.trainer_endpoints == ["10.0.0.1:6170", "10.0.0.2:6170"]
    assert env.current_endpoint == "10.0.0.2:6170"
    assert (dist.get_rank(), dist.get_world_size()) == (3, 4)
    fresh.setenv("PADDLE_TRAINERS_NUM", "two")
    with pytest.raises(ValueError, match="PADDLE_TRAINERS_NUM='two' is not an integer"):
        dist.get_world_size()


@pytest.mark.parametrize("op", ["SUM", "MAX", "MIN", "AVG", "PROD"])
def test_collectives_of_one_process_give_the_input_back(fresh, op):
    dist.init_parallel_env()
    t = paddle.to_tensor([1.5, -2.0])
    task = dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
    assert task.wait() and task.is_completed()
    np.testing.assert_array_equal(t.numpy(), [1.5, -2.0])
    parts = []
    dist.all_gather(parts, paddle.to_tensor([[1, 2]]))
    assert len(parts) == 1 and parts[0].numpy().tolist() == [[1, 2]]
    b = paddle.to_tensor([4.0])
    dist.broadcast(b, src=0)
    assert b.numpy().tolist() == [4.0]
    objs = []
    dist.all_gather_object(objs, {"a": 1})
    assert objs == [{"a": 1}]
    dist.barrier()


def test_collective_errors(fresh):
    dist.init_parallel_env()
    with pytest.raises(ValueError, match="ReduceOp"):
        dist.all_reduce(paddle.to_tensor([1.0]), op="sum")
    with pytest.raises(ValueError, match=r"src=1 is not a global rank of the group \(ranks \[0\]\)"):
        dist.broadcast(paddle.to_tensor([1.0]), src=1)
    with pytest.raises(TypeError, match="expects a paddle Tensor"):
        dist.all_reduce(np.ones(2))
    with pytest.raises(ValueError, match=r"new_group\(ranks=\[0, 1\]\): the ranks must be distinct "
                       "ranks of the job"):
        dist.new_group([0, 1])


@pytest.mark.parametrize("backend", [
    "numpy", pytest.param("xla", marks=pytest.mark.skipif(
        importlib.util.find_spec("jax") is None, reason="jax is not installed"))])
def test_all_reduce_in_a_converted_function(fresh, backend):
    dist.init_parallel_env()

    @paddle.jit.to_static(full_graph=True, backend=backend)
    def f(x):
        y = x * 2.0
        dist.all_reduce(y)
        return y + 1.0

    np.testing.assert_allclose(f(paddle.to_tensor([1.0, 2.0])).numpy(), [3.0, 5.0])
    ops = [op.type for op in f.concrete_program.main_program.global_block().ops]
    assert "c_allreduce" in ops


def mlp():
    paddle.seed(1)
    return paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.ReLU(), paddle.nn.Linear(4, 2))


def train(model, params, steps, to_static):
    opt = paddle.optimizer.SGD(0.1, parameters=params)

    def step(x):
        loss = (model(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    if to_static:
        step = paddle.jit.to_static(step, full_graph=True)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        step(paddle.to_tensor(rng.standard_normal((5, 3)).astype("float32")))


@pytest.mark.parametrize("to_static", [False, True])
def test_data_parallel_of_one_process_trains_as_the_plain_layer(fresh, to_static):
    dist.init_parallel_env()
    plain = mlp()
    train(plain, plain.parameters(), 3, to_static)
    net = mlp()
    model = paddle.DataParallel(net, find_unused_parameters=True)
    train(model, model.parameters(), 3, to_static)
    for (k, a), (k2, b) in zip(plain.state_dict().items(), model.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_data_parallel_keeps_the_wrapped_layers_state_dict_keys(fresh):
    net = mlp()
    model = paddle.DataParallel(net)
    assert list(model.state_dict()) == list(net.state_dict()) == \
        ["0.weight", "0.bias", "2.weight", "2.bias"]
    saved = {k: v.numpy() * 0 + 1 for k, v in net.state_dict().items()}
    model.set_state_dict(saved)
    assert all((v.numpy() == 1).all() for v in net.state_dict().values())
    assert [n for n, _ in model.named_parameters()][0] == "_layers.0.weight"   # as Paddle
    with model.no_sync():
        assert not model.grad_need_sync
    assert model.grad_need_sync
    loss = paddle.to_tensor([1.0])
    assert model.scale_loss(loss) is loss
    with pytest.raises(TypeError, match="wraps a paddle.nn.Layer"):
        paddle.DataParallel(lambda x: x)


def test_several_processes_without_jax_name_the_xla_extra(fresh):
    fresh.setenv("PADDLE_TRAINERS_NUM", "2")
    fresh.setenv("PADDLE_TRAINER_ID", "0")
    fresh.setenv("PADDLE_MASTER", "127.0.0.1:1")
    real = importlib.util.find_spec
    fresh.setattr(groups.importlib.util, "find_spec",
                  lambda name, *a: None if name == "jax" else real(name, *a))
    with pytest.raises(ImportError, match=r'pip install "dy2st\[xla\]".*backend="xla"'):
        dist.init_parallel_env()
    assert not dist.is_initialized()


def test_several_processes_need_a_master_and_init(fresh):
    fresh.setenv("PADDLE_TRAINERS_NUM", "2")
    fresh.setenv("PADDLE_TRAINER_ID", "1")
    with pytest.raises(RuntimeError, match="call paddle.distributed.init_parallel_env"):
        dist.all_reduce(paddle.to_tensor([1.0]))
    if importlib.util.find_spec("jax") is not None:
        with pytest.raises(RuntimeError, match="PADDLE_MASTER .* is not set.*launch"):
            dist.init_parallel_env()
    fresh.setenv("PADDLE_TRAINER_ID", "2")
    with pytest.raises(ValueError, match="rank 2 of a job of 2"):
        dist.init_parallel_env()


def test_every_collective_of_one_process_is_its_definition(fresh):
    """With one process, each collective is its one-process definition: reduce and
    reduce_scatter give the input, gather a list of it, scatter and alltoall chunk 0."""
    dist.init_parallel_env()
    x = np.array([[1.0, -2.0]], "float32")
    t = paddle.to_tensor(x)
    assert dist.reduce(t, dst=0, op=dist.ReduceOp.MAX).wait()
    np.testing.assert_array_equal(t.numpy(), x)
    got = []
    dist.gather(paddle.to_tensor(x), got, dst=0)
    np.testing.assert_array_equal(np.stack([g.numpy() for g in got]), x[None])
    t = paddle.zeros([2])
    dist.scatter(t, [paddle.to_tensor(x[0])], src=0)
    np.testing.assert_array_equal(t.numpy(), x[0])
    t = paddle.zeros([2])
    dist.reduce_scatter(t, [paddle.to_tensor(x[0])], op=dist.ReduceOp.AVG)
    np.testing.assert_array_equal(t.numpy(), x[0])
    out = [paddle.zeros([2])]
    dist.alltoall(out, [paddle.to_tensor(x[0])])       # a full output list is written in place
    np.testing.assert_array_equal(out[0].numpy(), x[0])
    t = paddle.zeros([3, 1], dtype="int64")
    dist.alltoall_single(t, paddle.to_tensor([[4], [5], [6]], dtype="int64"), [3], [3])
    assert t.numpy().ravel().tolist() == [4, 5, 6]
    objects = [{"k": 1}, 2]
    dist.broadcast_object_list(objects, src=0)
    assert objects == [{"k": 1}, 2]
    mine = []
    dist.scatter_object_list(mine, [("only", 0)], src=0)
    assert mine == [("only", 0)]
    assert dist.get_backend() == "LOCAL"


def test_send_and_recv_to_oneself(fresh):
    # one process: the message waits in the in-memory store, in order, until received
    dist.init_parallel_env()
    dist.send(paddle.to_tensor([1.0, 2.0]), dst=0)
    dist.isend(paddle.to_tensor([3.0, 4.0]), dst=0)
    first, second = paddle.zeros([2]), paddle.zeros([2])
    dist.recv(first, src=0)
    task = dist.irecv(second, src=0)
    assert task.is_completed() is False or second.numpy().tolist() == [0.0, 0.0]
    dist.wait(second)
    assert first.numpy().tolist() == [1.0, 2.0] and second.numpy().tolist() == [3.0, 4.0]
    dist.send_object_list([{"a": 1}, "b"], dst=0)
    objects = [None, None]
    dist.recv_object_list(objects, src=0)
    assert objects == [{"a": 1}, "b"]
    with pytest.raises(TimeoutError, match="no other process can store it"):
        dist.recv(paddle.zeros([2]), src=0)


def test_errors_of_the_new_collectives(fresh):
    dist.init_parallel_env()
    t = paddle.zeros([2])
    with pytest.raises(ValueError, match=r"reduce: dst=1 is not a global rank of the group"):
        dist.reduce(t, dst=1)
    with pytest.raises(ValueError, match=r"scatter: tensor_list must be a list of 1 tensors"):
        dist.scatter(t, [t, t], src=0)
    with pytest.raises(ValueError, match=r"scatter: tensor_list\[0\] is float32\[3\]"):
        dist.scatter(t, [paddle.zeros([3])], src=0)
    with pytest.raises(ValueError, match="gather: gather_list has 2 tensors; the group has 1"):
        dist.gather(t, [t, t], dst=0)
    with pytest.raises(ValueError, match="gather_list must be a list on the dst rank 0"):
        dist.gather(t, None, dst=0)
    with pytest.raises(ValueError, match="reduce_scatter: op must be a paddle.distributed.ReduceOp"):
        dist.reduce_scatter(t, [t], op="sum")
    with pytest.raises(TypeError, match="both be tensors or both be lists"):
        dist.alltoall([], t)
    with pytest.raises(ValueError, match=r"in_split_sizes=\[1\] must hold 1 sizes .* \(2\)"):
        dist.alltoall_single(t, t, [1], None)
    with pytest.raises(ValueError, match="out_split_sizes"):
        dist.alltoall_single(paddle.zeros([2]), paddle.zeros([2]), [2], [1])
    with pytest.raises(ValueError, match=r"recv: rank 0 sent a float32\[1\] tensor into a "
                       r"float32\[2\] one"):
        dist.send(paddle.zeros([1]), dst=0)
        dist.recv(t, src=0)
    with pytest.raises(ValueError, match="irecv: give src"):
        dist.irecv(t)
    with pytest.raises(ValueError, match="object_list cannot be None or empty"):
        dist.send_object_list([], dst=0)
    with pytest.raises(ValueError, match="give dst or dst_in_group, not both"):
        dist.send_object_list([1], dst=0, dst_in_group=0)
    with pytest.raises(ValueError, match="scatter_object_list: rank 0's in_object_list must "
                       "hold 1 objects"):
        dist.scatter_object_list([], [1, 2], src=0)
    with pytest.raises(RuntimeError, match="the gloo context is not initialized"):
        dist.gloo_barrier()
    with pytest.raises(ValueError, match="rank_num should be at least 2"):
        dist.gloo_init_parallel_env(0, 1, "127.0.0.1:1")
    dist.gloo_release()                      # nothing to release: nothing happens, as in Paddle


def test_groups_of_one_process_job(fresh):
    dist.init_parallel_env()
    g = dist.new_group([0])
    assert (g.get_group_rank(0), g.get_global_rank(0), g.world_size) == (0, 0, 1)
    t = paddle.to_tensor([2.0])
    dist.all_reduce(t, group=g)
    assert t.numpy().tolist() == [2.0]
    dist.shutdown_process_group()            # every group but the world group
    with pytest.raises(RuntimeError, match="was shut down by shutdown_process_group"):
        dist.all_reduce(t, group=g)
    dist.all_reduce(t)                       # the world group is never shut down by default
    dist.restart_process_group()
    dist.all_reduce(t, group=g)
    dist.destroy_process_group(g)
    with pytest.warns(UserWarning, match="Group 1 is not initialized"):
        assert dist.get_group(1) is None
    with pytest.raises(ValueError, match="is not a live group"):
        dist.destroy_process_group(g)
    with pytest.raises(RuntimeError, match=r"all_reduce: Group\(.*\) was destroyed"):
        dist.all_reduce(t, group=g)
    outside = dist.Group(-1, 9, [5])      # (non-members: tests/distributed/test_collectives.py)
    with pytest.raises(RuntimeError, match="get_backend: this process .* is not a member"):
        dist.get_backend(outside)
    with pytest.raises(TypeError, match="group must be a paddle.distributed Group"):
        dist.all_reduce(t, group=0)


def test_eager_only_collectives_break_the_graph(fresh):
    dist.init_parallel_env()

    def step(x):
        y = x * 2.0
        dist.send(y, dst=0)
        z = paddle.zeros([2])
        dist.recv(z, src=0)
        return z + 1.0

    # the default mode runs the transfer eagerly (a graph break) and gives the eager result
    f = paddle.jit.to_static(step)
    np.testing.assert_array_equal(f(paddle.to_tensor([1.0, 2.0])).numpy(), [3.0, 5.0])
    np.testing.assert_array_equal(f(paddle.to_tensor([3.0, 1.0])).numpy(), [7.0, 3.0])
    assert paddle.jit.explain(step, paddle.to_tensor([1.0, 2.0])).break_count >= 1
    g = paddle.jit.to_static(step, full_graph=True)
    with pytest.raises(Exception, match=r"(?s)dist.send\(y, dst=0\).*runs eagerly only"):
        g(paddle.to_tensor([1.0, 2.0]))


@pytest.mark.parametrize("backend", [
    "numpy", pytest.param("xla", marks=pytest.mark.skipif(
        importlib.util.find_spec("jax") is None,
        reason='jax is not installed (pip install "dy2st[xla]")'))])
def test_reduce_scatter_and_alltoall_are_ops_of_the_program(fresh, backend):
    dist.init_parallel_env()

    @paddle.jit.to_static(full_graph=True, backend=backend)
    def f(x):
        y = paddle.zeros([2])
        dist.reduce_scatter(y, [x * 3.0])
        parts = []
        dist.alltoall(parts, [x + 1.0])
        return y + parts[0]

    np.testing.assert_allclose(f(paddle.to_tensor([1.0, 2.0])).numpy(), [5.0, 9.0])
    ops = [op.type for op in f.concrete_program.main_program.global_block().ops]
    assert "c_reducescatter" in ops and "c_alltoall" in ops


@pytest.mark.skipif(importlib.util.find_spec("onnx") is None,
                    reason='onnx is not installed (pip install "dy2st[onnx]")')
@pytest.mark.parametrize("collective", ["reduce_scatter", "alltoall"])
def test_onnx_refuses_the_new_collectives(fresh, tmp_path, collective):
    from dy2st.onnx import NotExportableError  # onnx is optional: loaded by this test only
    dist.init_parallel_env()

    def f(x):
        out = []
        if collective == "alltoall":
            dist.alltoall(out, [x])
            return out[0]
        y = paddle.zeros([2])
        dist.reduce_scatter(y, [x])
        return y

    op = {"reduce_scatter": "c_reducescatter", "alltoall": "c_alltoall"}[collective]
    with pytest.raises(NotExportableError, match=f"(?s){op}.*exported model runs in one process"):
        paddle.onnx.export(f, str(tmp_path / "m"),
                           input_spec=[paddle.static.InputSpec([2], "float32")])
    assert not (tmp_path / "m.onnx").exists()
