"""Every spelling of growing a list in a tensor loop works as `acc.append(t)` does (issue 24 item
6): `d["acc"] += [t]`, `d["acc"] = d["acc"] + [t]`, `obj.acc += [t]`, `self.acc += [t]`,
`d["a"]["b"] += [t]`, `lst[0] += [t]`, `+= (t,)`, `d["acc"].extend([...])`, `acc += more` (a
list the source does not show as one: found by tracing a turn), in `for` over a
tensor's rows, `for` over `range(tensor)` and `while` with a tensor test; to_static (both
full_graph settings) and jit.save / jit.load give eager's result for zero, one and three turns."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import numeric_gradient, value_and_grad


def _read(acc, x):
    # every way code reads the list after the loop: stack, len, the last entry
    return paddle.stack(acc).sum(axis=0) + acc[-1] * len(acc) + x


def entry_aug(x, n):
    d = {"acc": [x * 0.5]}
    for i in range(n):
        d["acc"] += [x * paddle.cast(i + 1, "float32")]
    return _read(d["acc"], x)


def entry_add(x, n):
    d = {"acc": [x * 0.5]}
    for i in range(n):
        d["acc"] = d["acc"] + [x * paddle.cast(i + 1, "float32")]
    return _read(d["acc"], x)


def entry_prepend(x, n):
    d = {"acc": [x * 0.5]}
    for i in range(n):
        d["acc"] = [x * paddle.cast(i + 1, "float32")] + d["acc"]
    return _read(d["acc"], x)


def entry_aug_tuple(x, n):
    d = {"acc": [x * 0.5]}
    for i in range(n):
        d["acc"] += (x * paddle.cast(i + 1, "float32"),)    # list += tuple extends the list
    return _read(d["acc"], x)


def nested_entry_aug(x, n):
    d = {"a": {"b": [x * 0.5]}, "k": 2.0}
    for i in range(n):
        d["a"]["b"] += [d["a"]["b"][-1] * d["k"] + 1.0]
    return _read(d["a"]["b"], x)


def list_entry_aug(x, n):
    lst = [[x * 0.5], x]
    for i in range(n):
        lst[0] += [lst[1] * paddle.cast(i + 1, "float32")]
    return _read(lst[0], x)


def entry_extend(x, n):
    d = {"acc": [x * 0.5]}
    for i in range(n):
        d["acc"].extend([x * paddle.cast(i, "float32"), x - 1.0])
    return _read(d["acc"], x)


class Box:
    pass


def attribute_aug(x, n):
    box = Box()
    box.acc = [x * 0.5]
    for i in range(n):
        box.acc += [x * paddle.cast(i + 1, "float32")]
    return _read(box.acc, x)


def attribute_add(x, n):
    box = Box()
    box.acc = [x * 0.5]
    for i in range(n):
        box.acc = box.acc + [x * paddle.cast(i + 1, "float32")]
    return _read(box.acc, x)


def name_aug_tuple(x, n):
    acc = [x * 0.5]
    for i in range(n):
        acc += (x * paddle.cast(i + 1, "float32"),)
    return _read(acc, x)


def name_add(x, n):
    acc = [x * 0.5]
    for i in range(n):
        acc = acc + [x * paddle.cast(i + 1, "float32")]
    return _read(acc, x)


FORMS = [entry_aug, entry_add, entry_prepend, entry_aug_tuple, nested_entry_aug, list_entry_aug,
         entry_extend, attribute_aug, attribute_add, name_aug_tuple, name_add]


def _inputs(n):
    return paddle.to_tensor(np.array([1.0, -2.0], "float32")), paddle.to_tensor(n)


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", FORMS, ids=lambda f: f.__name__)
def test_range_loop_grows_the_list(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    for n in (0, 1, 3):       # one entry, three trip counts
        args = _inputs(n)
        np.testing.assert_allclose(sf(*args).numpy(), fn(*args).numpy(), rtol=1e-6,
                                   err_msg=f"n={n}")


@pytest.mark.parametrize("fn", [entry_aug, nested_entry_aug, list_entry_aug, attribute_aug,
                                entry_aug_tuple], ids=lambda f: f.__name__)
def test_saved_model_agrees(fn, tmp_path):
    spec = [paddle.static.InputSpec([2], "float32"), paddle.static.InputSpec([], "int64")]
    sf = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for n in (0, 1, 3):
        args = _inputs(n)
        np.testing.assert_allclose(loaded(*args).numpy(), fn(*args).numpy(), rtol=1e-6,
                                   err_msg=f"n={n}")


def rows_entry_aug(x):
    d = {"acc": [paddle.zeros([2])]}
    for r in x:
        d["acc"] += [r * 2.0]
    return paddle.stack(d["acc"]).sum(axis=0) + d["acc"][-1] * len(d["acc"])


def while_entry_aug(x, n):
    d = {"acc": [x * 0.5], "i": paddle.to_tensor(0)}
    while d["i"] < n:
        d["acc"] += [d["acc"][-1] + x]
        d["i"] += 1
    return _read(d["acc"], x)


def while_attribute_aug(x, n):
    box = Box()
    box.acc = [x * 0.5]
    i = paddle.to_tensor(0)
    while i < n:
        box.acc += [box.acc[-1] * 2.0]
        i += 1
    return _read(box.acc, x)


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [while_entry_aug, while_attribute_aug], ids=lambda f: f.__name__)
def test_while_loop_grows_the_list(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    for n in (0, 1, 3):
        args = _inputs(n)
        np.testing.assert_allclose(sf(*args).numpy(), fn(*args).numpy(), err_msg=f"n={n}")


def test_loop_over_rows_saved_with_any_row_count(tmp_path):
    spec = [paddle.static.InputSpec([None, 2], "float32")]
    sf = paddle.jit.to_static(rows_entry_aug, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for rows in (0, 1, 3):
        x = paddle.to_tensor(np.arange(rows * 2, dtype="float32").reshape(rows, 2) - 1.5)
        want = rows_entry_aug(x).numpy()
        np.testing.assert_allclose(sf(x).numpy(), want, err_msg=f"rows={rows}")
        np.testing.assert_allclose(loaded(x).numpy(), want, err_msg=f"rows={rows}")


class Collector(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(2, 2)

    def forward(self, x):
        self.acc = []
        for r in x:
            self.acc += [self.fc(r)]
        return paddle.stack(self.acc).sum(axis=0) * len(self.acc)


def test_layer_attribute_grows(tmp_path):
    paddle.seed(3)
    model = Collector()
    spec = [paddle.static.InputSpec([None, 2], "float32")]
    static = paddle.jit.to_static(model, input_spec=spec, full_graph=True)
    xs = [np.random.default_rng(k).standard_normal((k, 2)).astype("float32") for k in (1, 3)]
    eager = Collector()
    eager.set_state_dict(model.state_dict())
    want = [eager(paddle.to_tensor(x)).numpy() for x in xs]
    for x, w in zip(xs, want):
        np.testing.assert_allclose(static(paddle.to_tensor(x)).numpy(), w, rtol=1e-5)
    paddle.jit.save(static, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for x, w in zip(xs, want):
        np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), w, rtol=1e-5)


@pytest.mark.parametrize("fn", [entry_aug, nested_entry_aug, attribute_add],
                         ids=lambda f: f.__name__)
def test_gradient_matches_finite_differences(fn):
    sf = paddle.jit.to_static(fn, full_graph=True)
    x0 = np.array([0.3, -0.7], "float64")
    for n in (0, 3):
        count = paddle.to_tensor(n)
        _, grad = value_and_grad(sf, x0, count)

        def loss(x):
            out = fn(paddle.to_tensor(x), count).numpy()
            return float((out * out).sum())
        np.testing.assert_allclose(grad, numeric_gradient(loss, x0), rtol=1e-5, err_msg=f"n={n}")


def counter_in_dict(x):
    d = {"n": 0, "acc": []}
    for r in x:
        d["n"] += 1
        d["acc"] += [r]
    return x * d["n"], len(d["acc"]), d["n"] + 1


@pytest.mark.parametrize("full_graph", [True, False])
def test_int_counter_in_dict_counts_the_turns(full_graph):
    # a Python int in a dict counted in a tensor loop holds the number of turns, as in eager
    # code; as any loop variable a tensor loop carries, it is an int64 0-d tensor after it
    sf = paddle.jit.to_static(counter_in_dict, full_graph=full_graph)
    for rows in (1, 3):
        x = paddle.to_tensor(np.ones((rows, 2), "float32"))
        want = counter_in_dict(x)
        got = sf(x)
        np.testing.assert_allclose(got[0].numpy(), want[0].numpy())
        assert int(got[1]) == want[1] == rows
        assert int(got[2]) == want[2] == rows + 1


def aliased_entry(x):
    d = {"acc": [x]}
    alias = d["acc"]
    d["acc"] += (x * 2.0,)             # list.__iadd__: the same list grows, alias sees it
    return len(alias), paddle.stack(alias).sum()


@pytest.mark.parametrize("full_graph", [True, False])
def test_augmented_item_assignment_changes_the_list_in_place(full_graph):
    x = paddle.to_tensor(np.array([1.0, 2.0], "float32"))
    n, total = paddle.jit.to_static(aliased_entry, full_graph=full_graph)(x)
    want_n, want_total = aliased_entry(x)
    assert int(n) == want_n == 2
    np.testing.assert_allclose(total.numpy(), want_total.numpy())


# lists grown by a list the source does not show as one: a traced turn finds them
def name_aug_list_variable(x, n):
    acc = [x * 0.5]
    for i in range(n):
        more = [x * paddle.cast(i + 1, "float32"), x - 1.0]
        acc += more
    return _read(acc, x)


def entry_add_list_variable(x, n):
    d = {"acc": [x * 0.5]}
    for i in range(n):
        more = [x * paddle.cast(i + 1, "float32")]
        d["acc"] = d["acc"] + more
    return _read(d["acc"], x)


def attribute_aug_list_variable(x, n):
    box = Box()
    box.acc = [x * 0.5]
    i = paddle.to_tensor(0)
    while i < n:
        more = [box.acc[-1] * 2.0]
        box.acc += more
        i += 1
    return _read(box.acc, x)


TRACED = [name_aug_list_variable, entry_add_list_variable, attribute_aug_list_variable]


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", TRACED, ids=lambda f: f.__name__)
def test_list_grown_by_a_list_variable(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    for n in (0, 1, 3):
        args = _inputs(n)
        np.testing.assert_allclose(sf(*args).numpy(), fn(*args).numpy(), err_msg=f"n={n}")


def test_list_grown_by_a_list_variable_saved(tmp_path):
    spec = [paddle.static.InputSpec([2], "float32"), paddle.static.InputSpec([], "int64")]
    sf = paddle.jit.to_static(name_aug_list_variable, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for n in (0, 1, 3):
        args = _inputs(n)
        np.testing.assert_allclose(loaded(*args).numpy(), name_aug_list_variable(*args).numpy(),
                                   err_msg=f"n={n}")


def python_numbers_grown(x, n):
    ids = [0]
    for i in range(n):
        ids += [1]
    return x * len(ids)


def test_list_of_python_numbers_grown_is_refused():
    # a tensor array holds tensors: a list of Python numbers growing by a tensor trip count
    # cannot be one, and one graph says so at the loop
    with pytest.raises(ValueError, match="changes the structure of its loop variables") as info:
        paddle.jit.to_static(python_numbers_grown, full_graph=True)(*_inputs(2))
    line = python_numbers_grown.__code__.co_firstlineno + 2
    assert f"line {line}" in str(info.value)
    sf = paddle.jit.to_static(python_numbers_grown, full_graph=False)
    np.testing.assert_allclose(sf(*_inputs(2)).numpy(), python_numbers_grown(*_inputs(2)).numpy())
