"""paddle.distributed.spawn: processes started from Python get the job's environment; one that
raises stops the others, and the parent raises with its traceback."""
import os
import time

import pytest

import dy2st.distributed as dist
from dy2st.distributed.multiprocess import ProcessRaisedException
from tests.distributed import spawn_worker


def test_each_process_gets_its_rank(tmp_path):
    dist.spawn(spawn_worker.report, args=(str(tmp_path), "hello"), nprocs=2)
    got = sorted((tmp_path / f"rank{r}").read_text().split()[:3] for r in range(2))
    assert got == [["hello", "0", "2"], ["hello", "1", "2"]]


def test_a_raising_process_stops_the_others(tmp_path):
    start = time.monotonic()
    with pytest.raises(ProcessRaisedException, match="(?s)process 1 .*rank 1 fails on purpose"):
        dist.spawn(spawn_worker.fail_on_rank_1, args=(str(tmp_path),), nprocs=2)
    assert time.monotonic() - start < 60
    pids = [int((tmp_path / f"pid{r}").read_text()) for r in range(2)
            if (tmp_path / f"pid{r}").exists()]
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="nprocs must be a positive int"):
        dist.spawn(spawn_worker.report, nprocs=0)
    with pytest.raises(TypeError, match="unknown option"):
        dist.spawn(spawn_worker.report, nprocs=1, colour="red")
    with pytest.raises(ValueError, match="gpus lists 1 devices for nprocs 2"):
        dist.spawn(spawn_worker.report, nprocs=2, gpus="0")
