"""Two processes on this machine, started by `python -m dy2st.distributed.launch`, train an MLP
and a small CNN with DataParallel (eagerly, and as whole train steps compiled by XLA) to the
parameters one process reaches on the concatenated batch, and their collectives agree."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")

from tests.distributed import dp_worker  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    """What each of the 2 processes saved (one launch for every check of this file)."""
    out = tmp_path_factory.mktemp("dp")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "dy2st.distributed.launch", "--nproc_per_node",
                           "2", str(Path(dp_worker.__file__)), str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return [dict(np.load(out / f"rank{r}.npz")) for r in range(2)]


@pytest.mark.slow
@pytest.mark.parametrize("kind, mode", dp_worker.RUNS)
def test_two_processes_train_to_the_one_process_parameters(ranks, kind, mode):
    # one process, the whole batch of every step, plain training (DataParallel is a no-op)
    reference = dp_worker.train(kind, "eager", rank=0, world=1, seed=0)
    for r, saved in enumerate(ranks):
        for name, want in reference.items():
            got = saved[f"{kind}/{mode}/{name}"]
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6,
                                       err_msg=f"rank {r} {kind} {mode} {name}")
    # the steps moved the parameters (equal results are not just the untouched start)
    start = dp_worker.train(kind, "eager", rank=0, world=1, seed=0, steps=0)
    assert all(np.abs(reference[k] - start[k]).max() > 1e-3 for k in reference)


@pytest.mark.slow
def test_collectives_across_two_processes(ranks):
    for r, saved in enumerate(ranks):
        np.testing.assert_allclose(saved["all_reduce_SUM"], [3.0, 0.0])
        np.testing.assert_allclose(saved["all_reduce_MAX"], [2.0, 1.0])
        np.testing.assert_allclose(saved["all_reduce_MIN"], [1.0, -1.0])
        np.testing.assert_allclose(saved["all_reduce_AVG"], [1.5, 0.0])
        np.testing.assert_allclose(saved["all_reduce_PROD"], [2.0, -1.0])
        np.testing.assert_array_equal(saved["all_gather"], [[[0, 10]], [[1, 11]]])
        assert saved["all_gather"].dtype == np.int64
        np.testing.assert_array_equal(saved["broadcast"], [1.5, 3.0])
        assert saved["broadcast"].dtype == np.float64
        assert list(saved["all_gather_object"]) == ["r", "rr"]
        # all_reduce, all_gather and broadcast inside converted functions on both backends
        for backend in ("numpy", "xla"):
            np.testing.assert_allclose(saved["to_static_all_reduce_" + backend], [127.0])
        assert list(saved["world"]) == [2, r, r]


@pytest.mark.slow
def test_no_sync_keeps_the_local_gradient_until_the_next_backward(ranks):
    local = [saved["no_sync_grads"][0::2] for saved in ranks]
    averaged = [saved["no_sync_grads"][1::2] for saved in ranks]
    assert np.abs(local[0] - local[1]).max() > 1e-4     # each process kept its own
    np.testing.assert_array_equal(averaged[0], averaged[1])


@pytest.mark.slow
def test_a_step_compiled_again_on_one_process_is_compiled_again_on_all(ranks):
    # rank 1's loop outgrows the loop buffers; both ranks compile again and stay in step
    for saved in ranks:
        for name in ("fc.weight", "fc.bias"):
            np.testing.assert_allclose(saved[f"looped/xla/{name}"], saved[f"looped/eager/{name}"],
                                       rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(ranks[0]["looped/xla/fc.weight"],
                                  ranks[1]["looped/xla/fc.weight"])
