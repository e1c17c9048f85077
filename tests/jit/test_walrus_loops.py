"""`while (s := s + x.sum()) < limit:` in converted code: the assignment in the test binds the
function's variable, as in Python, also inside `and` / `or` (of a while test, an if test or an
assigned value), for tensor and Python tests, with break / continue, on inputs
running the loop zero, one and many times, and through jit.save / jit.load."""
import numpy as np
import pytest

import dy2st as paddle


def _accumulate(x, limit):
    s = paddle.zeros([])
    while (s := s + x.sum()) < limit:
        s = s * 1.5
    return s


def _with_jumps(x, limit):
    s = paddle.zeros([])
    k = 0
    while (s := s + x.sum()) < limit:
        k += 1
        if k % 2 == 0:
            continue
        if s > limit * 0.9:
            break
        s = s * 1.5
    return s + k


def _python_test(x, limit):
    items = [1.0, 2.0, 3.0]
    out = x * 0
    while (n := len(items)) > 1:
        out = out + x * items.pop() * n
    return out + limit


def _used_after(x, limit):
    i = paddle.to_tensor(0)
    while (y := x * paddle.cast(i, "float32")).sum() < limit:
        i += 1
    return y + paddle.cast(i, "float32")


def _in_and(x, limit):
    s = paddle.zeros([])
    n = 0
    while (n := n + 1) < 5 and (s := s + x.mean()) < limit:
        s = s + 0.25
    return s + n


def _if_or(x, limit):
    if (a := x.sum()) > limit or (b := x.max() * 2.0) > limit:
        return x * a
    return x + a + b            # both ran: b holds a value


def _assigned_and(x, limit):
    ok = (m := x.mean()) < limit and (k := m * 3.0) < limit
    return paddle.where(ok, x * m, x - m) + (k if (m < limit) else 0.0)


CASES = [_accumulate, _with_jumps, _python_test, _used_after, _in_and, _if_or, _assigned_and]
LIMITS = [0.5, 3.0, 20.0, 150.0]


@pytest.mark.parametrize("full_graph", [False, True])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_walrus_in_while_test(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    x = paddle.to_tensor(np.array([0.5, 1.5], "float32"))
    for limit in LIMITS:
        lim = paddle.to_tensor(np.float32(limit))
        np.testing.assert_allclose(sf(x, lim).numpy(), fn(x, lim).numpy(), rtol=1e-6,
                                   err_msg=f"limit={limit}")


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_saved_model_agrees(fn, tmp_path):
    spec = [paddle.static.InputSpec([2], "float32"), paddle.static.InputSpec([], "float32")]
    sf = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    x = paddle.to_tensor(np.array([0.5, 1.5], "float32"))
    for limit in LIMITS:
        lim = paddle.to_tensor(np.float32(limit))
        np.testing.assert_allclose(loaded(x, lim).numpy(), fn(x, lim).numpy(), rtol=1e-6,
                                   err_msg=f"limit={limit}")
