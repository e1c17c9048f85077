"""Sequence functions of nn.functional (sequence_mask, gather_tree, label_smooth,
cosine_similarity, one_hot, embedding with padding_idx) against numpy written by hand, eagerly,
under to_static with unknown dims, and their gradients against finite differences."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.support import check_grad

F = paddle.nn.functional


def close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol, atol=tol)


def np_gather_tree(ids, parents):
    steps, batch, beam = ids.shape
    out = np.zeros_like(ids)
    for b in range(batch):
        for k in range(beam):
            out[-1, b, k] = ids[-1, b, k]
            p = parents[-1, b, k]
            for t in range(steps - 2, -1, -1):
                out[t, b, k] = ids[t, b, p]
                p = parents[t, b, p]
    return out


def test_sequence_mask():
    lengths = np.array([[1, 3], [0, 4]])
    want = np.arange(5)[None, None, :] < lengths[..., None]
    got = F.sequence_mask(paddle.to_tensor(lengths), maxlen=5)
    assert str(got.dtype) == "paddle.int64" and got.shape == [2, 2, 5]
    close(got.numpy(), want)
    got = F.sequence_mask(paddle.to_tensor(lengths), dtype="float32")          # maxlen = max = 4
    assert got.shape == [2, 2, 4] and str(got.dtype) == "paddle.float32"
    close(got.numpy(), want[..., :4])
    static = paddle.jit.to_static(lambda x: F.sequence_mask(x, 6, "bool"), input_spec=[InputSpec([None], "int64")],
                                  full_graph=True)
    close(static(paddle.to_tensor(np.array([2, 6, 0]))).numpy(), np.arange(6) < np.array([2, 6, 0])[:, None])
    with pytest.raises(TypeError, match="int32 or int64"):
        F.sequence_mask(paddle.to_tensor([1.5]))


def test_gather_tree_against_numpy_eager_and_static():
    rs = np.random.default_rng(0)
    ids = rs.integers(0, 9, (5, 2, 3))
    parents = rs.integers(0, 3, (5, 2, 3))
    want = np_gather_tree(ids, parents)
    close(F.gather_tree(paddle.to_tensor(ids), paddle.to_tensor(parents)).numpy(), want)
    spec = [InputSpec([None, None, 3], "int64")] * 2
    static = paddle.jit.to_static(F.gather_tree, input_spec=spec, full_graph=True)
    for steps in (5, 1):
        close(static(paddle.to_tensor(ids[:steps]), paddle.to_tensor(parents[:steps])).numpy(),
              np_gather_tree(ids[:steps], parents[:steps]))
    assert sum(op.type == "while" for block in static.program.blocks for op in block.ops) == 1
    with pytest.raises(ValueError, match="same shape"):
        F.gather_tree(paddle.to_tensor(ids), paddle.to_tensor(parents[:2]))


def test_label_smooth_and_gradient():
    label = np.eye(4)[[0, 2, 3]].astype(np.float32)
    close(F.label_smooth(paddle.to_tensor(label), epsilon=0.2).numpy(), label * 0.8 + 0.05)
    prior = np.array([[0.1, 0.2, 0.3, 0.4]], np.float32)
    close(F.label_smooth(paddle.to_tensor(label), paddle.to_tensor(prior)).numpy(), label * 0.9 + 0.1 * prior)
    check_grad(lambda x: F.label_smooth(x, epsilon=0.3), label)
    with pytest.raises(ValueError, match="epsilon"):
        F.label_smooth(paddle.to_tensor(label), epsilon=1.5)


def test_cosine_similarity_and_gradient():
    rs = np.random.default_rng(1)
    a, b = rs.standard_normal((3, 5)), rs.standard_normal((1, 5))
    want = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    close(F.cosine_similarity(paddle.to_tensor(a), paddle.to_tensor(b)).numpy(), want)
    close(F.cosine_similarity(paddle.to_tensor(a.T), paddle.to_tensor(b.T), axis=0).numpy(), want)
    zero = F.cosine_similarity(paddle.zeros([2, 3]), paddle.ones([2, 3]))
    close(zero.numpy(), [0.0, 0.0])
    check_grad(lambda x, y: F.cosine_similarity(x, y, axis=-1), a, np.repeat(b, 3, 0))


def test_one_hot_and_embedding_padding_idx():
    ids = np.array([[1, 0], [3, 2]])
    close(F.one_hot(paddle.to_tensor(ids), 4).numpy(), np.eye(4)[ids])
    static = paddle.jit.to_static(lambda x: F.one_hot(x, num_classes=5), input_spec=[InputSpec([None], "int64")],
                                  full_graph=True)
    close(static(paddle.to_tensor(np.array([4, 0, 2]))).numpy(), np.eye(5)[[4, 0, 2]])
    emb = paddle.nn.Embedding(5, 3, padding_idx=-1, sparse=True)
    out = emb(paddle.to_tensor(ids * 0 + np.array([[4, 1], [4, 0]])))
    w = emb.weight.numpy()
    close(out.numpy(), np.stack([[np.zeros(3), w[1]], [np.zeros(3), w[0]]]))
    out.sum().backward()
    assert np.all(emb.weight.grad.numpy()[4] == 0) and np.all(emb.weight.grad.numpy()[1] == 1)
