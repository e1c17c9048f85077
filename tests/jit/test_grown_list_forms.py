"""Every spelling of growing a list in a tensor loop works as `acc.append(t)` does (issue 24 item
6): `d["acc"] += [t]`, `d["acc"] = d["acc"] + [t]`, `obj.acc += [t]`, `self.acc += [t]`,
`d["a"]["b"] += [t]`, `lst[0] += [t]`, `+= (t,)`, `d["acc"].extend([...])`, `acc += more` (a
list the source does not show as one: found by tracing a turn), in `for` over a
tensor's rows, `for` over `range(tensor)` and `while` with a tensor test; to_static (both
full_graph settings) and jit.save / jit.load give eager's result for zero, one and three turns."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.graph_break.refusal import GraphBreakError
from tests.support import assert_sum_of_squares_gradient


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
        assert_sum_of_squares_gradient(sf, fn, x0, paddle.to_tensor(n))


def counter_in_dict(x):
    d = {"n": 0, "acc": []}
    for r in x:
        d["n"] += 1
        d["acc"] += [r]
    return x * d["n"], len(d["acc"]), d["n"] + 1


@pytest.mark.parametrize("full_graph", [True, False])
def test_int_counter_in_dict_counts_the_turns(full_graph):
    # a Python int in a dict counted in a tensor loop holds the number of turns, as in eager
    # code; as any number a tensor loop carries, it is a Python int after it, as len() is
    sf = paddle.jit.to_static(counter_in_dict, full_graph=full_graph)
    for rows in (1, 3):
        x = paddle.to_tensor(np.ones((rows, 2), "float32"))
        want = counter_in_dict(x)
        got = sf(x)
        np.testing.assert_allclose(got[0].numpy(), want[0].numpy())
        assert type(got[1]) is int and got[1] == want[1] == rows
        assert type(got[2]) is int and got[2] == want[2] == rows + 1


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


# --- another holder of a list that a tensor loop grows (alias, container entry, attribute,
# global, a caller's local): the array cannot be that list object, so the loop runs as Python
# with full_graph=False and is refused in one graph, never a silently stale holder

_HELD = []


def _held_alias(x, n):
    acc = []
    alias = acc
    for i in range(n):
        acc.append(x[0] * paddle.cast(i, "float32"))
    return len(alias)


def _held_in_dict(x, n):
    acc = [x[0]]
    d = {"a": acc}
    for i in range(n):
        acc.append(x[1] + paddle.cast(i, "float32"))
    return len(d["a"]), paddle.add_n(d["a"])


def _held_in_list(x, n):
    acc = []
    outer = [acc]
    for i in range(n):
        acc.append(x[0] + 1.0)
    return len(outer[0])


class _Box:
    pass


def _held_as_attribute(x, n):
    acc = []
    box = _Box()
    box.a = acc
    for i in range(n):
        acc.append(x[0])
    return len(box.a)


def _entry_aliased(x, n):
    d = {"acc": []}
    alias = d["acc"]
    for i in range(n):
        d["acc"] += [x[0] * 2.0]
    return len(alias)


def _held_globally(x, n):
    _HELD.clear()
    acc = _HELD
    for i in range(n):
        acc.append(x[1])
    return len(_HELD)


def _grows(x, n, acc):
    for i in range(n):
        acc.append(x[0])
    return 0


def _held_by_caller(x, n):
    acc = []
    _grows(x, n, acc)
    return len(acc)


_HOLDER_FORMS = [_held_alias, _held_in_dict, _held_in_list, _held_as_attribute, _entry_aliased,
                 _held_globally, _held_by_caller]


def _plain(v):
    if isinstance(v, tuple):
        return tuple(_plain(u) for u in v)
    return v.numpy() if hasattr(v, "numpy") else v


@pytest.mark.parametrize("fn", _HOLDER_FORMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("trips", [0, 1, 3])
def test_other_holder_sees_eager_entries_with_graph_breaks(fn, trips):
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(3, 2))
    n = paddle.to_tensor(trips)
    want = _plain(fn(x, n))
    sf = paddle.jit.to_static(fn)
    for _ in range(2):          # the first call traces and breaks, the second runs the outline
        np.testing.assert_equal(_plain(sf(x, n)), want)


@pytest.mark.parametrize("fn", _HOLDER_FORMS, ids=lambda f: f.__name__)
def test_other_holder_refused_in_one_graph(fn):
    x = paddle.to_tensor(np.ones((3, 2), "float32"))
    with pytest.raises(TypeError, match=r"grown in a tensor loop becomes a tensor array.*also "
                                        r"held as"):
        paddle.jit.to_static(fn, full_graph=True)(x, paddle.to_tensor(2))


def test_other_holder_message_names_both():
    x = paddle.to_tensor(np.ones((3, 2), "float32"))
    with pytest.raises(TypeError) as e:
        paddle.jit.to_static(_held_alias, full_graph=True)(x, paddle.to_tensor(2))
    text = str(e.value)
    assert "`acc`" in text and "`alias`" in text and "for i in range(n)" in text
    with pytest.raises(TypeError, match=r"`acc \(in _held_by_caller\)`"):
        paddle.jit.to_static(_held_by_caller, full_graph=True)(x, paddle.to_tensor(2))


def test_other_holder_refused_by_save(tmp_path):
    spec = [paddle.static.InputSpec([3, 2], "float32"), paddle.static.InputSpec([], "int64")]
    with pytest.raises(GraphBreakError, match=r"line \d+: for i in range\(n\):\n.*`acc`.*"
                                              r"also held as `d\['a'\]`"):
        paddle.jit.save(paddle.jit.to_static(_held_in_dict, input_spec=spec),
                        str(tmp_path / "m"))


def _no_other_holder(x, n):
    acc = []
    for i in range(n):
        acc.append(x[0] * paddle.cast(i, "float32"))
    alias = acc           # made after the loop: it holds the loop's result
    return len(alias)


def _argument_grown(x, n, acc):
    for i in range(n):
        acc.append(x[1])
    return len(acc)


@pytest.mark.parametrize("trips", [0, 3])
def test_list_without_other_holder_stays_in_one_graph(trips):
    x = paddle.to_tensor(np.ones((3, 2), "float32"))
    n = paddle.to_tensor(trips)
    sf = paddle.jit.to_static(_no_other_holder, full_graph=True)
    assert int(_plain(sf(x, n))) == trips
    mine, theirs = [], []
    got = paddle.jit.to_static(_argument_grown, full_graph=True)(x, n, mine)
    assert int(_plain(got)) == _argument_grown(x, n, theirs) == trips
    assert len(mine) == len(theirs) == trips


def _if_grows_held(x):
    acc = []
    alias = acc
    if x.sum() > 0:
        acc.append(x)
    return len(alias)


def _if_grows_entry_held(x):
    acc = [x]
    d = {"k": acc}
    if x.sum() > 0:
        acc.append(x * 2.0)
    else:
        acc.append(x)
        acc.append(x - 1.0)
    return len(d["k"]), paddle.add_n(d["k"])


@pytest.mark.parametrize("fn", [_if_grows_held, _if_grows_entry_held], ids=lambda f: f.__name__)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_list_grown_in_one_branch_with_other_holder(fn, sign):
    x = paddle.to_tensor(np.full([2], sign, "float32"))
    want = _plain(fn(x))
    sf = paddle.jit.to_static(fn)
    for _ in range(2):
        np.testing.assert_equal(_plain(sf(x)), want)
    with pytest.raises(TypeError, match=r"grown in one branch of a tensor `if` becomes a tensor "
                                        r"array.*make `(alias|d\['k'\])` after the `if`"):
        paddle.jit.to_static(fn, full_graph=True)(x)
