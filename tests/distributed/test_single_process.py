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
from dy2st.distributed import collective

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
    assert dist.new_group() is group and dist.new_group([0]) is group
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
    with pytest.raises(ValueError, match="src must be a rank"):
        dist.broadcast(paddle.to_tensor([1.0]), src=1)
    with pytest.raises(TypeError, match="expects a paddle Tensor"):
        dist.all_reduce(np.ones(2))
    with pytest.raises(NotImplementedError, match="only the group of every process"):
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
    fresh.setattr(collective.importlib.util, "find_spec",
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
