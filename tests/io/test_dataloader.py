"""paddle.io datasets, samplers and DataLoader (single process): batches, order, shuffling,
drop_last, collate_fn, iterable datasets, splits, and a small training loop over a loader."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.io import (
    BatchSampler,
    ComposeDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequenceSampler,
    Subset,
    TensorDataset,
    random_split,
)


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, idx):
        return np.array([idx, idx * idx], dtype="float32"), np.array(idx % 2, dtype="int64")

    def __len__(self):
        return self.n


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for k in range(self.n):
            yield np.full([2], k, dtype="float32")


def test_batches_in_order_with_a_short_last_batch():
    batches = list(DataLoader(Squares(7), batch_size=3))
    assert len(batches) == 3 == len(DataLoader(Squares(7), batch_size=3))
    x, y = batches[0]
    assert isinstance(x, paddle.Tensor) and x.shape == [3, 2] and y.shape == [3]
    np.testing.assert_array_equal(x.numpy()[:, 1], [0, 1, 4])
    np.testing.assert_array_equal(batches[2][0].numpy()[:, 0], [6])
    assert str(y.dtype).endswith("int64")


def test_drop_last_drops_the_short_batch():
    loader = DataLoader(Squares(7), batch_size=3, drop_last=True)
    assert len(loader) == 2 and [b[0].shape[0] for b in loader] == [3, 3]


def test_shuffle_visits_every_sample_once_and_follows_the_seed():
    def order(seed):
        paddle.seed(seed)
        return np.concatenate([b[0].numpy()[:, 0] for b in DataLoader(Squares(10), batch_size=4,
                                                                         shuffle=True)])
    first = order(3)
    assert sorted(first.tolist()) == list(range(10))
    assert first.tolist() != list(range(10))
    np.testing.assert_array_equal(order(3), first)


def test_collate_fn_receives_the_list_of_samples():
    loader = DataLoader(Squares(5), batch_size=2, collate_fn=lambda s: len(s))
    assert list(loader) == [2, 2, 1]


def test_dict_and_number_samples_are_collated_by_field():
    class Records(Dataset):
        def __getitem__(self, i):
            return {"id": i, "score": float(i) / 2, "name": f"r{i}"}

        def __len__(self):
            return 3
    (batch,) = list(DataLoader(Records(), batch_size=3))
    np.testing.assert_array_equal(batch["id"].numpy(), [0, 1, 2])
    np.testing.assert_allclose(batch["score"].numpy(), [0.0, 0.5, 1.0])
    assert batch["name"] == ["r0", "r1", "r2"]


def test_iterable_dataset_batches_and_refuses_shuffle_and_len():
    batches = list(DataLoader(Stream(5), batch_size=2))
    assert [b.shape for b in batches] == [[2, 2], [2, 2], [1, 2]]
    np.testing.assert_array_equal(batches[2].numpy(), [[4, 4]])
    with pytest.raises(ValueError, match="shuffled"):
        DataLoader(Stream(5), batch_size=2, shuffle=True)
    with pytest.raises(TypeError, match="no length"):
        len(DataLoader(Stream(5)))


def test_batch_size_none_yields_single_samples():
    samples = list(DataLoader(Squares(3), batch_size=None))
    assert len(samples) == 3 and samples[1][0].shape == [2]


def test_tensor_dataset_rows_and_mismatched_rows():
    xs = paddle.to_tensor(np.arange(12, dtype="float32").reshape(6, 2))
    ys = paddle.to_tensor(np.arange(6))
    ds = TensorDataset([xs, ys])
    assert len(ds) == 6
    np.testing.assert_array_equal(ds[4][0].numpy(), [8, 9])
    (x, y), = list(DataLoader(ds, batch_size=6))
    np.testing.assert_array_equal(x.numpy(), xs.numpy())
    with pytest.raises(ValueError, match="rows"):
        TensorDataset([xs, paddle.ones([5])])


def test_samplers():
    ds = Squares(5)
    assert list(SequenceSampler(ds)) == [0, 1, 2, 3, 4]
    assert sorted(RandomSampler(ds)) == [0, 1, 2, 3, 4]
    drawn = list(RandomSampler(ds, replacement=True, num_samples=12))
    assert len(drawn) == 12 and all(0 <= d < 5 for d in drawn)
    assert list(BatchSampler(ds, batch_size=2)) == [[0, 1], [2, 3], [4]]
    assert list(BatchSampler(sampler=SequenceSampler(ds), batch_size=2, drop_last=True)) == \
        [[0, 1], [2, 3]]
    loader = DataLoader(ds, batch_sampler=BatchSampler(ds, batch_size=4))
    assert [b[0].shape[0] for b in loader] == [4, 1]
    with pytest.raises(ValueError, match="exactly one"):
        BatchSampler(batch_size=2)
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(ds, batch_sampler=BatchSampler(ds), batch_size=4)
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(ds, batch_size=0)


def test_subset_random_split_and_compose():
    ds = Squares(10)
    sub = Subset(ds, [7, 2])
    assert len(sub) == 2 and sub[0][0][0] == 7
    paddle.seed(1)
    parts = random_split(ds, [6, 4])
    seen = [p.indices for p in parts]
    assert [len(p) for p in parts] == [6, 4] and sorted(seen[0] + seen[1]) == list(range(10))
    assert [len(p) for p in random_split(ds, [0.75, 0.25])] == [8, 2]
    with pytest.raises(ValueError, match="add up"):
        random_split(ds, [3, 3])
    both = ComposeDataset([ds, ds])
    assert len(both[3]) == 4
    chained = paddle.io.ConcatDataset([Squares(2), Squares(3)])
    assert len(chained) == 5 and chained[3][0][0] == 1 and chained[-1][0][0] == 2
    with pytest.raises(IndexError, match="out of range"):
        chained[5]


def test_training_loop_over_a_loader_reduces_the_loss():
    paddle.seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], dtype="float32")).astype("float32")
    loader = DataLoader(TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)]), batch_size=8,
                        shuffle=True, num_workers=2)
    model = paddle.nn.Linear(3, 1)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())

    def epoch_loss():
        return float(((model(paddle.to_tensor(x)) - paddle.to_tensor(y)) ** 2).mean().numpy())
    before = epoch_loss()
    for _ in range(5):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
    assert epoch_loss() < 0.1 * before
