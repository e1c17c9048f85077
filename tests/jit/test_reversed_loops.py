"""`for i in reversed(range(...))` with tensor bounds is a tensor loop over the range's items,
last first; Python bounds keep a Python range. Eager vs to_static (both full_graph settings) vs
jit.save / jit.load, for zero, one and many turns."""
import numpy as np
import pytest

import dy2st as paddle


def _count_down(x, n):
    acc = x * 0
    for i in reversed(range(n)):
        acc = acc * 2 + paddle.cast(i, "float32")
    return acc


def _stepped(x, n):
    acc = x * 0
    for i in reversed(range(1, n, 2)):
        acc = acc * 3 + paddle.cast(i, "float32")
    return acc


def _negative_step(x, n):
    acc = x * 0
    for i in reversed(range(n, 0, -2)):
        acc = acc * 2 - paddle.cast(i, "float32")
    return acc


def _python_bound(x, n):
    acc = x * 0
    for i in reversed(range(4)):
        acc = acc * 2 + i
    return acc + paddle.cast(n, "float32")


def _rows_by_index(x, n):
    out = []
    for i in reversed(range(x.shape[0])):
        out.append(x[i] * paddle.cast(i + 1, "float32"))
    return paddle.stack(out)


CASES = [_count_down, _stepped, _negative_step, _python_bound]


@pytest.mark.parametrize("full_graph", [False, True])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_reversed_range(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    for n in (0, 1, 2, 5):
        args = (paddle.ones([2]), paddle.to_tensor(n))
        np.testing.assert_allclose(sf(*args).numpy(), fn(*args).numpy(), err_msg=f"n={n}")


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_saved_model_agrees(fn, tmp_path):
    spec = [paddle.static.InputSpec([2], "float32"), paddle.static.InputSpec([], "int64")]
    sf = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for n in (0, 3, 6):
        args = (paddle.ones([2]), paddle.to_tensor(n))
        np.testing.assert_allclose(loaded(*args).numpy(), fn(*args).numpy(), err_msg=f"n={n}")


def test_unknown_batch_rows():
    sf = paddle.jit.to_static(_rows_by_index, full_graph=True,
                              input_spec=[paddle.static.InputSpec([None, 2], "float32"), None])
    for b in (1, 3):
        x = paddle.to_tensor(np.arange(2 * b, dtype="float32").reshape(b, 2))
        n = paddle.to_tensor(0)
        np.testing.assert_allclose(sf(x, n).numpy(), _rows_by_index(x, n).numpy())
