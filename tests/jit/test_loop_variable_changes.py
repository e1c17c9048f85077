"""Tensor loops whose loop variables change in ways a static graph must carry (issue 24, items
9 and 10): a dict that gains or loses keys, a variable that starts as None, a dtype that widens.
Eager vs to_static (both full_graph settings) for trip counts 0, 1 and several; gradients
against finite differences; jit.save / jit.load; ONNX."""
import warnings

import numpy as np
import pytest

import dy2st as paddle
from dy2st.onnx.ops_side_effects import UncheckedWarning
from dy2st.static import InputSpec
from tests.autograd import gradcheck
from tests.support import check_user_error, onnx_outputs

TRIPS = (0, 1, 3)
X = np.array([1.0, -2.0, 3.0], dtype="float32")


# ----------------------------------------------------------------------------- dict keys
def key_added_while(x, n):
    d = {"a": x}
    i = paddle.zeros([], "int64")
    while i < n:
        d["b"] = d["a"] * 2.0 + i.astype("float32")
        i = i + 1
    return d["a"] + d.get("b", x * 10.0)


def key_tested_in_body(x, n):
    d = {}
    for i in range(n):
        if "acc" in d:
            d["acc"] = d["acc"] * x
        else:
            d["acc"] = x + 1.0
    return d["acc"] if "acc" in d else -x


def several_keys(x, n):
    d = {}
    for i in range(n):
        d["s"] = x.sum()
        d["m"] = x.mean() + i
    return (d["s"] + d["m"]) * x if "s" in d else x * len(d)


def key_deleted(x, n):
    d = {"a": x, "b": x * 3.0}
    for i in range(n):
        if "b" in d:
            del d["b"]
        d["a"] = d["a"] + 1.0
    return d["a"] + (d["b"] if "b" in d else 0.0) + len(d)


def key_popped(x, n):
    d = {"a": x, "b": x + 1.0}
    for i in range(n):
        d.pop("b", None)
        d["a"] = d["a"] * 2.0
    return d.pop("b", x - 100.0) + d["a"]


def nested_key(x, n):
    d = {"inner": {"a": x}}
    for i in range(n):
        d["inner"]["c"] = d["inner"]["a"] * i
    return d["inner"]["c"] if "c" in d["inner"] else x


def key_set_by_setdefault(x, n):
    d = {}
    for i in range(n):
        d.setdefault("acc", x * 0.0)      # from the second turn on the key is there
        d["acc"] = x + d["acc"]
    return d["acc"] if "acc" in d else x


def get_none_default(x, n):
    d = {}
    for i in range(n):
        d["h"] = x * 2.0
    h = d.get("h")
    return x if h is None else h + x


def key_read_after(x, n):
    d = {"a": x}
    for i in range(n):
        d["b"] = x * 4.0
    return d["b"] + 1.0


def key_read_before_set(x, n):
    d = {}
    for i in range(n):
        d["acc"] = d["acc"] + x
    return x


def key_listed(x, n):
    d = {"a": x}
    for i in range(n):
        d["b"] = x
    out = x
    for k in d:
        out = out + d[k]
    return out


# ----------------------------------------------------------------------------- None and dtypes
def none_then_tensor(x, n):
    y = None
    for i in range(n):
        y = x * 2.0 if y is None else y * x
    return y if y is not None else x + 100.0


def none_set_under_tensor_if(x, n):
    y = None
    for i in range(n):
        if x.sum() > i:
            y = x * i
    if y is None:
        y = -x
    return y


def none_becomes_tuple(x, n):
    y = None
    for i in range(n):
        y = (x * 2.0, x + 1.0)
    return x if y is None else y[0] + y[1]


def best_so_far(x, n):
    best = None
    k = paddle.zeros([], "int64")
    while k < n:
        cand = x * k.astype("float32") - 1.0
        if best is None or cand.sum() > best.sum():
            best = cand
        k += 1
    return best if best is not None else x


def none_returned(x, n):
    last = None
    for i in range(n):
        last = x * 2.0
    return last


def int_to_float(x, n):
    s = paddle.zeros([], "int64")
    for i in range(n):
        s = s + x.sum()
    return s


def float32_to_float64(x, n):
    s = paddle.ones([], "float32")
    i = paddle.zeros([], "int64")
    while i < n:
        s = s * x.astype("float64").sum()
        i = i + 1
    return s


def bool_to_float(x, n):
    seen = paddle.to_tensor(False)
    for i in range(n):
        seen = seen + x.max()
    return seen


def narrowed(x, n):
    s = x.sum()
    for i in range(n):
        s = s.astype("int64")
    return s


AGREE = [key_added_while, key_tested_in_body, several_keys, key_deleted, key_popped, nested_key,
         key_set_by_setdefault, get_none_default, none_then_tensor, none_set_under_tensor_if, none_becomes_tuple,
         best_so_far]
WIDEN = [int_to_float, float32_to_float64, bool_to_float]


def _run(fn, trips, full_graph):
    x, n = paddle.to_tensor(X), paddle.to_tensor(trips)
    return fn(x, n), paddle.jit.to_static(fn, full_graph=full_graph)(x, n)


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("trips", TRIPS)
@pytest.mark.parametrize("fn", AGREE, ids=lambda f: f.__name__)
def test_converted_loop_gives_eager_values(fn, trips, full_graph):
    eager, static = _run(fn, trips, full_graph)
    assert static.dtype == eager.dtype
    np.testing.assert_allclose(static.numpy(), eager.numpy(), rtol=1e-6)


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("trips", TRIPS)
@pytest.mark.parametrize("fn", WIDEN, ids=lambda f: f.__name__)
def test_widened_dtype_is_carried(fn, trips, full_graph):
    # the loop carries the widened dtype; a loop that ran no turn gives eager's value in the
    # dtype from before it, as eager code (and Paddle 3.3.1) does (tests/jit/test_loop_dtypes.py)
    eager, static = _run(fn, trips, full_graph)
    assert static.dtype == eager.dtype
    np.testing.assert_allclose(static.numpy(), eager.numpy())


def test_widening_is_decided_once_per_trace():
    sf = paddle.jit.to_static(int_to_float, full_graph=True)
    outs = [sf(paddle.to_tensor(X), paddle.to_tensor(k)) for k in TRIPS]
    assert [o.dtype for o in outs] == [paddle.int64, paddle.float32, paddle.float32]
    assert [float(o) for o in outs] == [0.0, 2.0, 6.0]
    assert sf.num_programs == 1


def test_narrowing_dtype_is_refused_at_the_loop():
    with pytest.raises(TypeError) as info:
        _run(narrowed, 1, True)
    assert "may widen, e.g. int64 -> float32, but not narrow" in str(info.value)
    check_user_error(info.value, __file__, 's = s.astype("int64")')


def test_narrowing_runs_through_a_graph_break():
    for trips in TRIPS:
        eager, static = _run(narrowed, trips, False)
        assert static.dtype == eager.dtype and float(static) == float(eager)


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("full_graph", [True, False])
def test_missing_key_raises_key_error_at_the_reading_line(full_graph):
    sf = paddle.jit.to_static(key_read_after, full_graph=full_graph)
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(sf(x, paddle.to_tensor(2)).numpy(), X * 4.0 + 1.0)
    with pytest.raises(KeyError):
        key_read_after(x, paddle.to_tensor(0))
    with pytest.raises(KeyError) as info:
        sf(x, paddle.to_tensor(0))
    assert "KeyError: 'b'" in str(info.value)
    check_user_error(info.value, __file__, 'return d["b"] + 1.0')


def test_key_read_before_the_loop_sets_it():
    sf = paddle.jit.to_static(key_read_before_set, full_graph=True)
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(sf(x, paddle.to_tensor(0)).numpy(), X)   # as eager: no turn
    with pytest.raises(KeyError) as info:
        sf(x, paddle.to_tensor(2))
    check_user_error(info.value, __file__, 'd["acc"] = d["acc"] + x')


def test_none_returned_after_no_turn_is_none():
    # as eager (it was a TypeError: tests/jit/test_returned_none.py has the rest)
    sf = paddle.jit.to_static(none_returned, full_graph=True)
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(sf(x, paddle.to_tensor(2)).numpy(), X * 2.0)
    assert none_returned(x, paddle.to_tensor(0)) is None
    assert sf(x, paddle.to_tensor(0)) is None


def test_listing_keys_the_loop_may_add_is_refused_in_one_graph():
    with pytest.raises(TypeError) as info:
        _run(key_listed, 1, True)
    assert "keys depend on a tensor loop" in str(info.value) and "'b'" in str(info.value)
    check_user_error(info.value, __file__, "for k in d:")
    for trips in TRIPS:        # with graph breaks, the keys are Python's again
        eager, static = _run(key_listed, trips, False)
        np.testing.assert_allclose(static.numpy(), eager.numpy())


def test_functional_while_loop_still_keeps_dtypes():
    def build():
        x = paddle.static.data("x", [2], "float32")
        return paddle.static.nn.while_loop(lambda v: v.sum() < 10,
                                           lambda v: [v.astype("float64")], [x])
    with paddle.static.program_guard(paddle.static.Program()):
        with pytest.raises(TypeError, match="keep its dtype"):
            build()


# ----------------------------------------------------------------------------- gradients
def grad_dict(x, n):
    d = {"h": x * x}
    for i in range(n):
        d["acc"] = d["h"] * 2.0 + (d["acc"] * x if "acc" in d else 0.0)
    return d.get("acc", d["h"] + 1.0)


def grad_none(x, n):
    y = None
    for i in range(n):
        y = x.sin() if y is None else y * x
    return x.exp() if y is None else y


def grad_widen(x, n):
    s = paddle.zeros([3], "int32")
    for i in range(n):
        s = s + (x * x).sum()       # int32 [3] + 0-d float64 is float64 [3], as in Paddle
    return s


@pytest.mark.parametrize("fn, trips", [(f, k) for f in (grad_dict, grad_none) for k in TRIPS] +
                         [(grad_widen, 1), (grad_widen, 3)], ids=lambda v: getattr(v, "__name__", v))
def test_gradients_through_the_loop_match_finite_differences(fn, trips):
    n = paddle.to_tensor(trips)
    sf = paddle.jit.to_static(fn, full_graph=True)
    gradcheck.check(lambda x: fn(x, n), [np.array([0.5, -1.5, 2.0])],
                    static_fn=lambda x: sf(x, n))


def test_widened_loop_that_runs_no_turn_gives_the_initial_value():
    # eager's result is the int32 initial value (nothing to differentiate): so is the call's
    sf = paddle.jit.to_static(grad_widen, full_graph=True)
    x = paddle.to_tensor(np.array([0.5, -1.5, 2.0]), stop_gradient=False)
    out = sf(x, paddle.to_tensor(0))
    assert out.dtype == paddle.int32 and not out.numpy().any()
    (g,) = paddle.grad((out.astype("float64") * x).sum(), [x])
    np.testing.assert_allclose(g.numpy(), np.zeros(3))


# ----------------------------------------------------------------------------- saving
class DictState(paddle.nn.Layer):
    """A dict attribute of the Layer that the loop adds a key to."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.state = {}

    def forward(self, x, n):
        self.state = {"h": self.fc(x)}
        i = paddle.zeros([1], "int64")
        while i < n:
            self.state["acc"] = self.state["h"] * 2.0 + \
                (self.state["acc"] if "acc" in self.state else 0.0)
            i = i + 1
        return self.state.get("acc", self.state["h"]) + 1.0


class NoneState(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x, n):
        y = None
        for i in range(n):
            h = self.fc(x)
            y = h if y is None else y * h
        return x if y is None else y


class WidenedSum(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x, n):
        s = paddle.zeros([1], "int64")
        for i in range(n):
            s = s + self.fc(x).sum()
        return s


SPECS = [InputSpec([None, 3], "float32"), InputSpec([1], "int64")]


@pytest.mark.parametrize("cls", [DictState, NoneState, WidenedSum], ids=lambda c: c.__name__)
def test_layer_saves_loads_and_exports(cls, tmp_path):
    paddle.seed(3)
    net = cls()
    x = np.random.default_rng(0).standard_normal((2, 3)).astype("float32")
    st = paddle.jit.to_static(net, input_spec=SPECS, full_graph=True)
    path = str(tmp_path / "m")
    paddle.jit.save(st, path)
    loaded = paddle.jit.load(path)
    with warnings.catch_warnings():
        # (the flags' checks guard reads that cannot fail on their path: ONNX warns it drops them)
        warnings.simplefilter("ignore", UncheckedWarning)
        paddle.onnx.export(st, path, input_spec=SPECS)
    for trips in TRIPS:
        n = paddle.to_tensor([trips])
        want = net(paddle.to_tensor(x), n).numpy()
        runs = [st, loaded]
        if cls is WidenedSum and not trips:
            # one graph, one dtype: the loaded model refuses the int64 eager code gives
            with pytest.raises(TypeError, match="eager code keeps it int64"):
                loaded(paddle.to_tensor(x), n)
            runs = [st]
        for run in runs:
            got = run(paddle.to_tensor(x), n)
            assert got.numpy().dtype == want.dtype
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
        (onnx_out,) = onnx_outputs(path + ".onnx", x, np.array([trips], "int64"))
        np.testing.assert_allclose(onnx_out.astype(want.dtype), want, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- None under an if
def none_unless_positive(x):
    y = None
    if x.sum() > 0:
        y = x * 2.0
    return x - 1.0 if y is None else y


def none_unless_negative(x):
    kept = None
    if x.sum() < 0:
        kept = x * 2.0
    return kept


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_none_on_one_path_of_a_tensor_if(sign):
    x = paddle.to_tensor(X * sign)
    sf = paddle.jit.to_static(none_unless_positive, full_graph=True)
    np.testing.assert_allclose(sf(x).numpy(), none_unless_positive(x).numpy())
    sg = paddle.jit.to_static(none_unless_negative, full_graph=True)
    if none_unless_negative(x) is not None:
        np.testing.assert_allclose(sg(x).numpy(), none_unless_negative(x).numpy())
        return
    assert sg(x) is None        # as eager returns it


def test_a_dict_gaining_a_new_key_each_turn_is_refused_clearly_in_one_graph():
    def f(x):
        s = x.sum() * 0.1
        dd = {"n": s}
        for r in x:
            dd["m" * len(list(dd))] = r     # the keys the trace holds: a new key per trace
        return x.mean(axis=0) + s
    # list(dd) of the body's second trace, whose 'm' the loop may add, refuses at its line (as
    # `for k in dd` does) before the loop finds the key changing on every turn
    with pytest.raises(TypeError, match="`list\\(\\)` of a dict whose keys depend on a tensor loop") \
            as info:
        paddle.jit.to_static(f, full_graph=True)(paddle.to_tensor(np.ones((2, 3), "float32")))
    check_user_error(info.value, __file__, 'dd["m" * len(list(dd))] = r')


def test_a_key_made_from_the_length_of_a_changing_dict_fails_at_its_line():
    # len(dd) is a Python int only known when the program runs: text made from it is refused
    # at that line (it was the text of a symbolic value, a new key on every trace)
    def f(x):
        s = x.sum() * 0.1
        dd = {"n": s}
        for r in x:
            dd["m" + str(len(dd))] = r
        return x.mean(axis=0) + s
    with pytest.raises(TypeError, match=r"len\(\) of a dict whose keys a tensor loop") as info:
        paddle.jit.to_static(f, full_graph=True)(paddle.to_tensor(np.ones((2, 3), "float32")))
    check_user_error(info.value, __file__, 'dd["m" + str(len(dd))] = r')


def returns_the_dict(x, n):
    d = {"a": x, "inner": {}}
    for i in range(n):
        d["b"] = x * 2.0 + i
        d["inner"]["c"] = x.sum()
    if x.sum() > 100.0:
        d["big"] = x
    return d, x * 3.0


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_returned_dict_has_only_the_keys_eager_gives_it(full_graph):
    """Keys the loop (or a tensor `if`) did not add are left out of the returned dict, as in
    eager code (the call raised KeyError returning it), and the others keep their gradients."""
    sf = paddle.jit.to_static(returns_the_dict, full_graph=full_graph)
    for trips in TRIPS:
        results = []
        for run in (returns_the_dict, sf):
            x = paddle.to_tensor(X)
            x.stop_gradient = False
            d, y = run(x, paddle.to_tensor(trips))
            results.append(d)
            loss = y.sum() + sum(v.sum() for k, v in d.items() if k in ("a", "b"))
            loss.backward()
            results.append(x.grad.numpy())
        (want, got), (want_grad, got_grad) = results[::2], results[1::2]
        assert list(got) == list(want) and list(got["inner"]) == list(want["inner"])
        for k in want:
            if k != "inner":
                np.testing.assert_allclose(got[k].numpy(), want[k].numpy())
        np.testing.assert_allclose(got_grad, want_grad)


def _key_added_before_a_break(x):
    h = x.mean(axis=0)
    g = x.max(axis=0) * 0.5

    def inner(t):       # rebinding g after it moves the statements that follow to the driver
        return t - g * 0.5
    rows = (x[:, 0] > 0.0).astype("int64").tolist()      # a graph break
    d = {"a": h * 1.0}
    for _ in range((x[:, 1] > 0.3).astype("int64").sum()):
        d["b"] = d["a"] * 0.5
    keys = sorted(d)
    g = g + d.get("b", h) + len(rows)
    return h + g, keys


def test_a_key_a_loop_region_did_not_add_is_no_entry_after_the_break():
    # the region running the loop (traced with the batch unknown from the third call on)
    # handed the key the loop did not add back as an unassigned value, so `d.get("b", h)`
    # raised UndefinedVarError where eager gives h (fuzz seeds 63001928 and 63000513)
    static_f = paddle.jit.to_static(_key_added_before_a_break, full_graph=False,
                                    input_spec=[InputSpec([None, 3], "float32")])
    one = np.array([[0.5, 0.6, 0.1]], "float32")
    for xv in (one, one, np.full((2, 3), 0.01, "float32"), np.full((3, 3), 0.5, "float32")):
        want, want_keys = _key_added_before_a_break(paddle.to_tensor(xv))
        got, got_keys = static_f(paddle.to_tensor(xv))
        assert got_keys == want_keys
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def keys_through_builtins(x, n):
    d = {"a": x}
    for i in range(n):
        d["b"] = x
    out = x * len(sorted(d))
    for k in list(d):
        out = out + d[k]
    return out + len(tuple(d)) + len(set(d))


def test_builtins_listing_keys_a_loop_may_add_refuse_or_list_them_with_breaks():
    # sorted(d), list(d), tuple(d), set(d) listed 'b' after a loop that ran no turn (the
    # placeholder entry), with full_graph=False too: a silent wrong value
    with pytest.raises(TypeError) as info:
        _run(keys_through_builtins, 1, True)
    assert "keys depend on a tensor loop" in str(info.value) and "`sorted()`" in str(info.value)
    check_user_error(info.value, __file__, "out = x * len(sorted(d))")
    for trips in TRIPS:
        eager, static = _run(keys_through_builtins, trips, False)
        np.testing.assert_allclose(static.numpy(), eager.numpy())
