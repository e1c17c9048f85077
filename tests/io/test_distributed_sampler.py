"""paddle.io.DistributedBatchSampler: each rank's batches, with Paddle's semantics (padding by
wrapping around, batch-wise interleaving of the ranks, the epoch as the shuffle seed), checked
on their own and against Paddle's own sampler when Paddle is installed."""
import importlib.util
import itertools

import numpy as np
import pytest

import dy2st as paddle
from dy2st.io import DistributedBatchSampler

CASES = list(itertools.product([1, 7, 10, 17], [1, 2, 3, 4], [1, 3, 64]))
FLAGS = list(itertools.product([False, True], [False, True]))     # shuffle, drop_last


def shares(n, nranks, batch_size, shuffle=False, drop_last=False):
    samplers = [DistributedBatchSampler(list(range(n)), batch_size, nranks, r, shuffle,
                                        drop_last) for r in range(nranks)]
    return samplers, [[i for b in s for i in b] for s in samplers]


@pytest.mark.parametrize("n, nranks, batch_size", CASES)
def test_ranks_cover_the_dataset_with_equal_shares(n, nranks, batch_size):
    for shuffle, drop_last in FLAGS:
        _, got = shares(n, nranks, batch_size, shuffle)
        per_rank = -(-n // nranks)
        assert all(len(g) == per_rank for g in got)
        everything = sorted(i for g in got for i in g)
        # every index is read; the padding (total - n of them) repeats the first ones
        assert sorted(set(everything)) == list(range(n))
        assert len(everything) == per_rank * nranks
        if per_rank * nranks == n:
            assert everything == list(range(n))     # disjoint when nothing is padded
        for rank in range(nranks):
            s = DistributedBatchSampler(list(range(n)), batch_size, nranks, rank, shuffle,
                                        drop_last)
            lengths = [len(b) for b in s]
            assert len(lengths) == len(s)
            assert all(k == batch_size for k in lengths[:-1])
            if drop_last and lengths:
                assert lengths[-1] == batch_size


def test_ranks_take_runs_of_a_batch_in_turn():
    _, got = shares(10, 2, 2)
    # [0 1 | 2 3] [4 5 | 6 7] then the rest [8 9] split evenly
    assert got == [[0, 1, 4, 5, 8], [2, 3, 6, 7, 9]]
    _, got = shares(5, 2, 2)           # padded to 6 with index 0
    assert got == [[0, 1, 4], [2, 3, 0]]


def test_shuffle_uses_the_epoch_as_seed_and_moves_on_each_pass():
    a = DistributedBatchSampler(list(range(20)), 4, 2, 0, shuffle=True)
    first, second = list(a), list(a)
    assert first != second and a.epoch == 2
    a.set_epoch(0)
    assert list(a) == first
    order = np.arange(20)
    np.random.RandomState(0).shuffle(order)
    assert [i for b in first for i in b] == order[[0, 1, 2, 3, 8, 9, 10, 11, 16, 17]].tolist()
    b = DistributedBatchSampler(list(range(20)), 4, 2, 1, shuffle=True)
    assert set(i for x in first for i in x).isdisjoint(i for x in list(b) for i in x)


def test_rank_and_size_default_to_the_job_environment(monkeypatch):
    monkeypatch.setenv("PADDLE_TRAINER_ID", "1")
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "3")
    s = DistributedBatchSampler(list(range(9)), 2)
    assert (s.local_rank, s.nranks, s.num_samples, s.total_size) == (1, 3, 3, 9)


def test_a_data_loader_reads_the_ranks_batches():
    data = paddle.io.TensorDataset([paddle.to_tensor(np.arange(10.0).reshape(10, 1))])
    loader = paddle.io.DataLoader(data, batch_sampler=DistributedBatchSampler(data, 3, 2, 1))
    assert [b[0].numpy().ravel().tolist() for b in loader] == [[3, 4, 5], [8, 9]]


@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": 0}, "batch_size must be a positive int"),
    ({"batch_size": 2, "num_replicas": 0}, "num_replicas must be a positive int"),
    ({"batch_size": 2, "num_replicas": 2, "rank": 2}, "rank 2 is not below num_replicas 2"),
    ({"batch_size": 2, "rank": -1}, "rank must be a non-negative int"),
    ({"batch_size": 2, "shuffle": 1}, "shuffle must be a bool"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        DistributedBatchSampler(list(range(4)), **kwargs)


# slow: importing Paddle takes seconds; the semantics are checked without it above
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("paddle") is None, reason="Paddle is not installed")
def test_same_batches_as_paddles_sampler():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import paddle as real_paddle
    for (n, nranks, batch_size), (shuffle, drop_last) in itertools.product(CASES, FLAGS):
        for rank in range(nranks):
            ours = DistributedBatchSampler(list(range(n)), batch_size, nranks, rank, shuffle,
                                           drop_last)
            theirs = real_paddle.io.DistributedBatchSampler(list(range(n)), batch_size, nranks,
                                                            rank, shuffle, drop_last)
            for _ in range(2):          # two epochs
                assert list(ours) == list(theirs), (n, nranks, batch_size, shuffle, rank)
            assert len(ours) == len(theirs)
            theirs.set_epoch(5)
            ours.set_epoch(5)
            assert list(ours) == list(theirs)
