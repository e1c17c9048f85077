"""`.item()`, `.tolist()`, `float(t)`, `int(t)`, `bool(t)`, `.numpy()` in converted code: real
Python values through a graph break with full_graph=False, a clear error at the user's line with
full_graph=True where Python logic needs the value, eager's result where tensor code uses it, and
never a gradient through them."""
import collections

import numpy as np
import pytest

import dy2st as paddle
from tests.support import check_user_error

HERE = __file__


def _counter(ids, x):
    counts = collections.Counter(ids.tolist())
    return x * paddle.to_tensor([counts[i] for i in range(4)], dtype="float32")


def _sorted_numpy(x):
    values = x.numpy().tolist()
    return paddle.to_tensor(sorted(values)) + x * 0


def _dict_keys(ids, x):
    seen = {}
    for v in ids.tolist():
        seen[v] = seen.get(v, 0) + 1
    return x * len(seen)


def _formatted(ids, x):
    text = f"{x.sum().item():.1f}"
    return x + float(text)


def _indexed(ids, x):
    table = [x * 1, x * 2, x * 3, x * 4]
    return table[int(ids[0])]


PYTHON_LOGIC = {
    _counter: "counts = collections.Counter(ids.tolist())",
    _dict_keys: "seen[v] = seen.get(v, 0) + 1",
    _formatted: 'text = f"{x.sum().item():.1f}"',
    _indexed: "return table[int(ids[0])]",
}

IDS = [[1, 1, 2, 3], [0, 0, 0, 3], [1, 1, 2, 3], [2, 2, 2, 2], [3, 1, 0, 0]]


def _inputs(ids):
    return (paddle.to_tensor(np.array(ids, "int64")),
            paddle.to_tensor(np.array([0.5, 1.25, -2.0, 3.0], "float32")))


@pytest.mark.parametrize("fn", list(PYTHON_LOGIC), ids=lambda f: f.__name__)
def test_graph_break_gives_python_values(fn):
    sf = paddle.jit.to_static(fn, full_graph=False)
    for ids in IDS:     # the values change between calls: what follows the break sees them
        args = _inputs(ids)
        np.testing.assert_allclose(sf(*args).numpy(), fn(*args).numpy(), err_msg=str(ids))
    assert sf.graph_breaks, "the value must be read by Python code"


@pytest.mark.parametrize("fn", list(PYTHON_LOGIC), ids=lambda f: f.__name__)
def test_full_graph_names_the_line(fn):
    sf = paddle.jit.to_static(fn, full_graph=True)
    with pytest.raises(TypeError) as info:
        sf(*_inputs(IDS[0]))
    check_user_error(info.value, HERE, PYTHON_LOGIC[fn])
    assert "Python number read from a tensor" in str(info.value)


@pytest.mark.parametrize("values", [[3.0, 1.0, 2.0], [-1.0, 5.0, 0.5]])
def test_sorted_over_numpy_tolist(values):
    x = paddle.to_tensor(np.array(values, "float32"))
    sf = paddle.jit.to_static(_sorted_numpy, full_graph=False)
    np.testing.assert_allclose(sf(x).numpy(), _sorted_numpy(x).numpy())
    with pytest.raises(TypeError) as info:
        paddle.jit.to_static(_sorted_numpy, full_graph=True)(x)
    check_user_error(info.value, HERE, "return paddle.to_tensor(sorted(values)) + x * 0")


def _item_scale(x):
    s = x.max().item()
    return (x * s).sum()


def _float_scale(x):
    return (x * float(x.mean()) + x).sum()


def _int_scale(x):
    return (x * int(x.sum())).sum()


def _numpy_scale(x):
    return (x * paddle.to_tensor(x.mean().numpy())).sum()


def _item_arithmetic(x):
    m = x.max().item()
    n = m * 2 + 1
    if n > 3:
        return (x * n).sum()
    return (x / n).sum()


def _bool_branch(x):
    if bool(x.sum() > 0):
        return (x * x).sum()
    return (x - 1).sum()


def _tolist_sum(x):
    total = 0.0
    for v in x.tolist():
        total = total + v * v
    return x.sum() * total


TENSOR_USE = [_item_scale, _float_scale, _int_scale, _numpy_scale, _item_arithmetic,
              _bool_branch, _tolist_sum]


@pytest.mark.parametrize("full_graph", [False, True])
@pytest.mark.parametrize("fn", TENSOR_USE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("values", [[1.0, 2.0, 0.5], [-1.0, 0.25, -0.5]])
def test_values_are_constants_to_autograd(fn, full_graph, values):
    """Where tensor code uses the value the result is eager's on every path, and no gradient
    flows through it."""
    results = []
    for run in (fn, paddle.jit.to_static(fn, full_graph=full_graph)):
        x = paddle.to_tensor(np.array(values, "float32"), stop_gradient=False)
        out = run(x)
        out.backward()
        results.append((out.numpy(), x.grad.numpy()))
    (want, want_grad), (got, got_grad) = results
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-5)


@pytest.mark.parametrize("fn", TENSOR_USE, ids=lambda f: f.__name__)
def test_saved_model_agrees(fn, tmp_path):
    spec = [paddle.static.InputSpec([3], "float32")]
    sf = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for values in ([1.0, 2.0, 0.5], [-1.0, 0.25, -0.5]):
        x = paddle.to_tensor(np.array(values, "float32"))
        np.testing.assert_allclose(loaded(x).numpy(), fn(x).numpy(), rtol=1e-5)


def test_tolist_nests_like_eager():
    def rows(x):
        out = x.tolist()
        assert len(out) == 2 and all(len(row) == 3 for row in out)
        return x * sum(v * (i + 1) for row in out for i, v in enumerate(row))
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    for full_graph in (False, True):
        got = paddle.jit.to_static(rows, full_graph=full_graph)(x)
        np.testing.assert_allclose(got.numpy(), rows(x).numpy())


def test_item_of_many_elements_is_refused():
    def many(x):
        return x * float(x)
    with pytest.raises(TypeError) as info:
        paddle.jit.to_static(many, full_graph=True)(paddle.ones([3]))
    check_user_error(info.value, HERE, "return x * float(x)")
    assert "one element" in str(info.value)


# A number read from a tensor and returned (`return x.sum().item()`) is the Python number
# eager code returns, in both modes: the program computes it, the call hands it out as a number.

def returns_an_item(x):
    return x.sum().item()


def returns_numbers(x):
    return float(x.mean()), int(x.sum()), bool(x.max() > 0.0), x.tolist(), x * 2.0


def returns_a_number_from_a_branch(x):
    if x.sum() > 0.0:
        v = x.max().item()
    else:
        v = x.min().item() * 2.0
    return {"v": v, "t": x + v}


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [returns_an_item, returns_numbers, returns_a_number_from_a_branch])
def test_a_returned_number_is_a_python_number(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    for values in ([1.5, -2.0, 3.25], [-1.0, -2.5, 0.5], [0.0, 0.0, 0.0]):
        for _ in range(2):          # the trace's call and a cached one
            got, want = sf(paddle.to_tensor(values)), fn(paddle.to_tensor(values))
            got_leaves = paddle.utils.flatten(got)
            want_leaves = paddle.utils.flatten(want)
            assert [type(v) for v in got_leaves] == [type(v) for v in want_leaves]
            for g, w in zip(got_leaves, want_leaves):
                if isinstance(w, paddle.Tensor):
                    np.testing.assert_allclose(g.numpy(), w.numpy())
                else:
                    assert g == w


def test_a_returned_number_carries_no_gradient_and_the_tensors_do():
    sf = paddle.jit.to_static(returns_numbers)
    x = paddle.to_tensor([1.5, 2.0])
    x.stop_gradient = False
    mean, total, positive, values, doubled = sf(x)
    assert [type(v) for v in (mean, total, positive, *values)] == [float, int, bool, float, float]
    assert (mean, total, positive, values) == (1.75, 3, True, [1.5, 2.0])
    doubled.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def numbers_of_rows_to_tensor(x):
    vals = [float(v) for v in x.sum(axis=1)]
    return paddle.to_tensor(vals, dtype="float32") * x.sum()


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_list_of_numbers_made_in_the_program_becomes_a_tensor_of_its_length(full_graph):
    """The list is a tensor array in the program: to_tensor stacks it (it was a 0-d copy, so
    the gradient of x.sum() was expanded from the wrong shape once the row count varied)."""
    sf = paddle.jit.to_static(numbers_of_rows_to_tensor, full_graph=full_graph)
    rng = np.random.default_rng(1)
    for rows in (2, 3, 1, 4):
        data = rng.standard_normal((rows, 3)).astype("float32")
        results = []
        for run in (numbers_of_rows_to_tensor, sf):
            x = paddle.to_tensor(data)
            x.stop_gradient = False
            out = run(x)
            (out * out).sum().backward()
            results.append((out.numpy(), x.grad.numpy()))
        (want, want_grad), (got, got_grad) = results
        np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=f"rows={rows}")
        np.testing.assert_allclose(got_grad, want_grad, rtol=1e-4, err_msg=f"rows={rows}")


def _float_arithmetic(x):
    s = float(x.sum())
    r = round(s, 3)
    m = x.max().item() * 0.1
    print("numbers", r, s * 0.1, m)
    return x * r, s * 0.1, m + r


@pytest.mark.parametrize("full_graph", [True, False])
def test_python_floats_read_from_float32_tensors_are_doubles(full_graph, capsys):
    """Python's float is a double: `float(t)`, `.item()` and what Python computes from them are
    float64, as eager code has them (the program computed in float32: `round(s, 3)` printed
    5.7769999504089355 where eager prints 5.777, and `s * 0.1` differed in the 8th digit)."""
    x = paddle.to_tensor(np.array([1.2345678, 4.5424322], "float32"))
    want = _float_arithmetic(x)
    eager_text = capsys.readouterr().out
    static = paddle.jit.to_static(_float_arithmetic, full_graph=full_graph)
    for _ in range(2):                      # the trace's call and a compiled one
        got = static(x)
        assert capsys.readouterr().out.splitlines()[-1] == eager_text.strip()
        assert got[0].dtype == want[0].dtype == paddle.float32
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
        assert type(got[1]) is float and got[1] == want[1] and got[2] == want[2]
