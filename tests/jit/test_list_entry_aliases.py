"""A tensor appended to a list is the list's entry itself: an in-place change made after the
append shows in the entry, in tensor loops (where the list is a tensor array) as in Python code,
with both full_graph settings, through jit.save, and for gradients."""
import numpy as np
import pytest

import dy2st as paddle


def _for_range(x, n):
    acc = []
    h = x * 1
    for _ in range(n):
        h = h + 1
        acc.append(h)
        h[0] = 100.0
    return paddle.stack(acc)


def _while(x, n):
    acc = []
    h = x * 1
    i = paddle.to_tensor(0)
    while i < n:
        h = h * 2
        acc.append(h)
        h[1] = -1.0
        i += 1
    return paddle.concat(acc)


def _method_change(x, n):
    acc = []
    for i in range(n):
        h = x + paddle.cast(i, "float32")
        acc.append(h)
        h.scale_(3.0)
    return paddle.stack(acc)


def _changed_in_branch(x, n):
    acc = []
    for i in range(n):
        h = x * paddle.cast(i + 1, "float32")
        acc.append(h)
        if h.sum() > 4:
            h[2] = 0.0
    return paddle.stack(acc)


def _python_loop(x, n):
    acc = []
    for r in x:
        h = r * 2
        acc.append(h)
        h[0] = 0.0
    return paddle.stack(acc) + n.astype("float32")


def _straight_line(x, n):
    acc = []
    h = x * 1
    acc.append(h)
    h[1] = -5.0
    return acc[0] + n.astype("float32")


def _assign_output(x, n):
    acc = []
    h = x * 2.0
    acc.append(h)
    paddle.assign(x * 7.0 + n.astype("float32"), output=h)     # writes into h itself
    return acc[0] + h


CASES = [_for_range, _while, _method_change, _changed_in_branch, _python_loop, _straight_line,
         _assign_output]


def _args(n):
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], "float32")
    return x, np.array(n, "int64")


def _inputs(fn, n):
    x, n = _args(n)
    if fn in (_for_range, _while, _method_change, _changed_in_branch):
        x = x[0]
    return paddle.to_tensor(x), paddle.to_tensor(n)


@pytest.mark.parametrize("full_graph", [False, True])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_entries_see_later_changes(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    for n in (1, 2, 3):
        args = _inputs(fn, n)
        np.testing.assert_allclose(sf(*args).numpy(), fn(*args).numpy(), err_msg=f"n={n}")


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_saved_model_agrees(fn, tmp_path):
    x, n = _inputs(fn, 2)
    spec = [paddle.static.InputSpec(x.shape, "float32"), paddle.static.InputSpec([], "int64")]
    sf = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for k in (1, 3):
        args = _inputs(fn, k)
        np.testing.assert_allclose(loaded(*args).numpy(), fn(*args).numpy(), err_msg=f"n={k}")


def _grad_case(x, n):
    acc = []
    h = x * 1
    for _ in range(n):
        h = h * x
        acc.append(h)
        h[1] = h[1] * 3.0
    return paddle.stack(acc).sum()


@pytest.mark.parametrize("full_graph", [False, True])
def test_gradients_agree(full_graph):
    grads = []
    for run in (_grad_case, paddle.jit.to_static(_grad_case, full_graph=full_graph)):
        x = paddle.to_tensor(np.array([1.0, 2.0, 0.5], "float32"), stop_gradient=False)
        run(x, paddle.to_tensor(3)).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5)


def _same_object(x, n):
    acc = []
    h = x * 1
    for _ in range(n):
        h[0] = h[0] + 1.0
        acc.append(h)
    return paddle.stack(acc)


def test_one_object_appended_on_every_turn():
    """Eager's entries are all one object: a graph break runs the loop as Python; one graph
    cannot hold that, and says so at the loop."""
    x, n = paddle.to_tensor(np.ones(3, "float32")), paddle.to_tensor(3)
    want = _same_object(x, n).numpy()
    np.testing.assert_allclose(paddle.jit.to_static(_same_object)(x, n).numpy(), want)
    with pytest.raises(ValueError, match="same tensor object") as info:
        paddle.jit.to_static(_same_object, full_graph=True)(x, n)
    assert "for _ in range(n):" in str(info.value)
    append = _same_object.__code__.co_firstlineno + 5
    assert f"(line {append}: `acc.append(h)`)" in str(info.value)


def _appended_then_changed(x):
    h = paddle.zeros([2])
    acc = []
    for r in x:
        acc.append(h)
        h[1] = r[1] * 2.0
    return paddle.stack(acc)


def test_appended_then_changed_over_rows():
    """Issue 24 item 5's program: the refusal names the append's line as well as the loop's."""
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(3, 2))
    want = _appended_then_changed(x).numpy()
    np.testing.assert_allclose(want, [[0.0, 10.0]] * 3)      # every entry is the last h
    np.testing.assert_allclose(paddle.jit.to_static(_appended_then_changed)(x).numpy(), want)
    with pytest.raises(ValueError, match="same tensor object") as info:
        paddle.jit.to_static(_appended_then_changed, full_graph=True)(x)
    first = _appended_then_changed.__code__.co_firstlineno
    assert f"line {first + 3}" in str(info.value) and "for r in x:" in str(info.value)
    assert f"(line {first + 4}: `acc.append(h)`)" in str(info.value)


def test_assign_with_output_writes_into_the_tensor_eagerly():
    """As in Paddle 3.3.1: the list entry is the output tensor, which takes x's value, and the
    gradient of what reads it flows to x (it was a copy that left output unchanged)."""
    x = paddle.to_tensor(np.array([0.5, -1.0, 2.0], "float32"), stop_gradient=False)
    out = _assign_output(x, paddle.to_tensor(0))
    np.testing.assert_allclose(out.numpy(), 14.0 * x.numpy())
    (out * out).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * 14.0 * 14.0 * x.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="output has shape"):
        paddle.assign(paddle.ones([2]), output=paddle.zeros([3]))
