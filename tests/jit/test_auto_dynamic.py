"""Automatic dynamic shapes (issue 23, item 10): after a tensor argument came with three
distinct shapes, the dims that changed are unknown and one program serves every size; code
that needs the size as a Python number keeps exact shapes, bounded by the cache limit."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit import auto_dynamic, cache_limit

W = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)


def head(x, w):
    h = paddle.matmul(x, w)
    if h.mean() > 0:
        h = h * 2
    return h.mean(axis=0) + x.shape[0]


def needs_python_size(x):
    return x.reshape([-1, x.shape[0] * 3]), [0] * x.shape[0]


def test_many_batch_sizes_share_one_program():
    static = paddle.jit.to_static(head)
    w = paddle.to_tensor(W)
    rng = np.random.default_rng(0)
    for b in list(range(1, 60)) + [1000, 3, 1]:
        x = paddle.to_tensor(rng.standard_normal((b, 4)).astype("float32"))
        np.testing.assert_allclose(static(x, w).numpy(), head(x, w).numpy(), rtol=1e-5,
                                   err_msg=f"batch {b}")
    assert static.num_programs == 3      # two exact shapes, then one with dim 0 unknown
    assert static.last_input_spec[0].shape[0] is None


def test_code_needing_a_python_size_stays_exact_and_bounded(monkeypatch):
    monkeypatch.setattr(cache_limit, "CACHE_LIMIT", 6)
    static = paddle.jit.to_static(needs_python_size)
    with pytest.warns(cache_limit.CacheLimitWarning, match="needs_python_size"):
        for b in range(1, 15):
            x = paddle.to_tensor(np.ones([b, 3], "float32"))
            got, zeros = static(x)
            want, want_zeros = needs_python_size(x)
            np.testing.assert_allclose(got.numpy(), want.numpy())
            assert zeros == want_zeros
    assert static.num_programs == 6


def test_given_input_spec_is_kept(monkeypatch):
    static = paddle.jit.to_static(head, input_spec=[paddle.static.InputSpec([None, 4]),
                                                    paddle.static.InputSpec([4, 3])])
    w = paddle.to_tensor(W)
    for b in (1, 2, 3, 4):
        static(paddle.to_tensor(np.ones([b, 4], "float32")), w)
    assert static.num_programs == 1


def test_can_be_switched_off(monkeypatch):
    monkeypatch.setattr(auto_dynamic, "ENABLED", False)
    static = paddle.jit.to_static(head)
    w = paddle.to_tensor(W)
    for b in (1, 2, 3, 4):
        static(paddle.to_tensor(np.ones([b, 4], "float32")), w)
    assert static.num_programs == 4
