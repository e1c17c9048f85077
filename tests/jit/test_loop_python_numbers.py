"""A Python int, float or bool carried through a tensor loop (`i = 0; while i < n: i = i + 1`, a
counter, a float sum, a flag set in the body; issue 24, item 10) stays a Python number: the
loop carries it as a tensor, the call hands it out as eager's number on every trip count, in
both full_graph settings and from a loaded model. Python logic that needs its value after the
loop is a graph break with full_graph=False and an error at the user's line in one graph."""
import inspect

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.autograd import gradcheck
from tests.support import check_user_error

TRIPS = (0, 1, 3)
# rows 0 and 1 have a negative sum: a branch on the row's sign first runs on the third turn
X = np.array([[-1.0, -2.0, 0.5], [0.5, -1.5, -1.0], [2.0, 0.25, 1.0]], "float32")


# ----------------------------------------------------------------------------- returned numbers
def while_counter(x, n):
    i = 0
    while i < n:
        i = i + 1
    return i


def range_count(x, n):
    count = 0
    for _ in range(n):
        count += 1
    return count


def float_sum(x, n):
    k = 0.0
    for _ in range(n):
        k += 0.1            # a Python float: 0.1 * 3 is 0.30000000000000004, as in eager code
    return k


def flag_set_in_the_body(x, n):
    found = False
    for j in range(n):
        if x[j].sum() > 0:
            found = True
    return found


def numbers_beside_a_tensor(x, n):
    s = x[0] * 0.0
    i, k = 0, 1.0
    for r in x[:n]:
        s = s + r
        i += 2
        k = k * 0.5
    return {"s": s, "i": i, "k": k}


def int_becomes_float(x, n):
    i = 0
    for _ in range(n):
        i = i + 0.5
    return i


def number_becomes_a_tensor(x, n):
    acc = 0.0
    for r in x[:n]:
        acc = acc + r.sum()         # a float32 tensor after a turn; 0.0 when none runs
    return acc


def number_used_in_the_graph_after(x, n):
    i = 0
    while i < n:
        i = i + 1
    k = 0.0
    for _ in range(i):
        k += 0.25
    y = x * i + k
    if i > 2:
        y = y * 2.0
    return y, isinstance(i, int), isinstance(k, float), i * 2


def numbers_used_as_numbers(x, n):
    i, k, found = 0, 0.0, False
    for j in range(n):
        i += 1
        k += 0.5
        if x[j].sum() > 0:
            found = True
    logic = (not found, found and i > 1, found or i == 0)
    builtins = (float(i), int(k), bool(i), abs(-k), max(i, 2), round(k), round(k + 1.0))
    made = (paddle.full([2], k), paddle.to_tensor(k), paddle.zeros([i + 1]))
    return logic, builtins, made, (i ** 2, i / 2, i // 2, i % 2, k // 1)


def best_so_far(x, n):
    best, at = 0.0, 0
    for j in range(n):          # j is a Python int in eager code
        if x[j].sum() > best:
            best = x[j].sum()   # a tensor on this path: `best` is a tensor after such a turn
            at = j
    return best, at


def numbers_in_a_tuple(x, n):
    state = (0, 0.0)
    while state[0] < n:
        state = (state[0] + 1, state[1] + 0.5)
    return state


def numbers_in_a_list_and_a_dict(x, n):
    pair, d = [0, False], {"i": 0, "k": 1.0}
    for j in range(n):
        pair = [pair[0] + j, not pair[1]]
        d["i"] = d["i"] + 2
        d["k"] = d["k"] * 0.5
    return pair, d


def number_first_set_in_the_body(x, n):
    last = -1
    for t in range(n):
        k = t * 2
        g = 1.5
        last = k
    return last, g if n > 0 else 0.0


def number_only_set_in_the_body(x, n):
    for t in range(n):
        j = t * 2           # eager: the last turn's int; UnboundLocalError when no turn ran
    return j


def number_read_by_item_in_the_body(x, n):
    v = x[0, 0].item()      # a Python float: carried in double precision from here
    for t in range(n):
        v = v + x[t, 2].item() + 0.1
    return v


def length_of_a_grown_list(x, n):
    acc = [x[0]]
    for t in range(n):
        acc.append(x[t] * 2.0)
    return paddle.stack(acc), len(acc)


def length_used_after_the_loop(x, n):
    acc = []
    for t in range(n):
        acc.append(x[t])
    m = len(acc)
    s = x[0] * 0.0
    for j in range(m):
        s = s + acc[j]
    y = x * 2.0 if m > 1 else x * 3.0
    return s, y, m * 2, m / 2, isinstance(m, int), type(m) is int, paddle.zeros([m + 1])


def types_of_carried_numbers(x, n):
    i, k, f = 0, 0.0, False
    for _ in range(n):
        i += 1
        k += 0.5
        f = not f
    return (type(i) is int, type(k) is float, type(f) is bool, type(i) == float,  # noqa: E721
            type(x) is paddle.Tensor)


def python_arithmetic(x, n):
    i, k = 7, 7.5
    for _ in range(n):
        i += 3
        k -= 2.25
    return (divmod(i, 4), divmod(k, 2), i // 4, i % 4, -i // 4, -i % 4, k // 2, k % 2,
            i ** 2, 2 ** i, k ** 2, i / 2, abs(-i), abs(k), bool(i), bool(k), not i, not k,
            int(k), float(i), int(-k))


def python_rounding(x, n):
    k, i = 0.125, 15
    for _ in range(n):
        k += 1.0
        i += 10
    return (round(k), round(k, 2), round(k, 0), round(-k, 2), round(k * 10, -1), round(i, -1),
            round(i, 1), max(i, 2), min(k, 0.5, 9.0))


RETURNED = [best_so_far, while_counter, range_count, float_sum, flag_set_in_the_body,
            numbers_beside_a_tensor, int_becomes_float, number_becomes_a_tensor,
            number_used_in_the_graph_after, numbers_used_as_numbers, numbers_in_a_tuple,
            numbers_in_a_list_and_a_dict, number_first_set_in_the_body,
            number_read_by_item_in_the_body,
            length_of_a_grown_list, length_used_after_the_loop, types_of_carried_numbers,
            python_arithmetic, python_rounding]


def _call(fn, trips):
    return fn(paddle.to_tensor(X), paddle.to_tensor(trips))


def _same(got, want):
    """Equal values and types: Tensors of one dtype, Python numbers of one type."""
    if isinstance(want, dict):
        assert type(got) is dict and got.keys() == want.keys()
        for k in want:
            _same(got[k], want[k])
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, paddle.Tensor):
        assert isinstance(got, paddle.Tensor) and got.dtype == want.dtype, (got, want)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    else:
        assert type(got) is type(want) and got == want, (got, want)


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", RETURNED, ids=lambda f: f.__name__)
def test_returned_numbers_are_eagers_across_calls(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    for trips in (0, 3, 1, 0):          # one compiled program, every trip count
        _same(_call(sf, trips), _call(fn, trips))
    assert sf.num_programs == 1 and not sf.graph_breaks


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_number_only_set_in_the_body_is_eagers_or_unbound(full_graph):
    sf = paddle.jit.to_static(number_only_set_in_the_body, full_graph=full_graph)
    for trips in (3, 1):
        _same(_call(sf, trips), _call(number_only_set_in_the_body, trips))
    with pytest.raises(UnboundLocalError, match="'j'") as info:     # as in eager code
        _call(sf, 0)
    check_user_error(info.value, __file__, "    return j")


def test_a_float_is_carried_in_double_precision():
    sf = paddle.jit.to_static(float_sum, full_graph=True)
    got = _call(sf, 3)
    assert got == 0.1 + 0.1 + 0.1 and got != float(np.float32(0.1) * 3)     # not float32 sums


def test_a_number_meets_a_tensor_in_the_tensors_dtype():
    # a Python float (carried as float64) times a float32 tensor is float32, as in eager code
    def f(x, n):
        k = 0.0
        for _ in range(n):
            k += 0.5
        return x * k, k + x.sum(), x.astype("float16") - k, (x > 0).astype("int32") * 2
    sf = paddle.jit.to_static(f, full_graph=True)
    for trips in TRIPS:
        _same(_call(sf, trips), _call(f, trips))


def test_loops_without_python_numbers_compile_as_before():
    def f(x, n):
        s = paddle.zeros([3], "float32")
        i = paddle.zeros([], "int64")
        while i < n:
            s = s + x[0]
            i = i + 1
        return s, i
    sf = paddle.jit.to_static(f, full_graph=True)
    _same(_call(sf, 2), f(paddle.to_tensor(X), paddle.to_tensor(2)))
    program = sf.concrete_program.main_program
    assert not program.number_sources and not program.widened_before
    assert all(v.dtype != "float64" for b in program.blocks for v in b.vars.values())


# ----------------------------------------------------------------------------- Python logic after
def indexes_a_list(x, n):
    i = 0
    while i < n:
        i = i + 1
    rows = [x * 1.0, x * 2.0, x * 3.0, x * 4.0]
    return rows[i]


def formats_text(x, n):
    count = 0
    for _ in range(n):
        count += 1
    return x * 1.0, f"{count} turns"


def keys_a_dict(x, n):
    i = 0
    while i < n:
        i = i + 1
    seen = {i: x * 2.0}
    return seen[i], len(seen)


def formats_with_a_spec(x, n):
    k = 0.0
    for _ in range(n):
        k += 0.1
    return x * 1.0, f"{k:.3f}", repr(k)


def picks_an_int_or_a_float(x, n):
    i, k = 0, 0.75
    for _ in range(n):
        i += 1
    return x * 1.0, max(i, k)       # eager: 0.75 (a float) or the int i, by the values


PYTHON_LOGIC = [(indexes_a_list, "return rows[i]", "'i'", "while i < n:"),
                (formats_text, 'return x * 1.0, f"{count} turns"', "'count'",
                 "for _ in range(n):"),
                (keys_a_dict, "seen = {i: x * 2.0}", "'i'", "while i < n:"),
                (formats_with_a_spec, 'return x * 1.0, f"{k:.3f}", repr(k)', "'k'",
                 "for _ in range(n):"),
                (picks_an_int_or_a_float, "return x * 1.0, max(i, k)", "'i'",
                 "for _ in range(n):")]


@pytest.mark.parametrize("fn", [c[0] for c in PYTHON_LOGIC], ids=lambda f: f.__name__)
def test_python_logic_after_the_loop_is_a_graph_break(fn):
    sf = paddle.jit.to_static(fn)
    for trips in (0, 3, 1):
        _same(_call(sf, trips), _call(fn, trips))
    assert sf.graph_breaks


@pytest.mark.parametrize("fn, line, name, loop", PYTHON_LOGIC,
                         ids=lambda v: getattr(v, "__name__", ""))
def test_python_logic_after_the_loop_fails_at_its_line_in_one_graph(fn, line, name, loop):
    sf = paddle.jit.to_static(fn, full_graph=True)
    with pytest.raises(TypeError, match="carried by the tensor loop") as info:
        _call(sf, 1)
    check_user_error(info.value, __file__, line)
    assert f"a Python number ({name}, carried by the tensor loop at line " in str(info.value)
    lines, first = inspect.getsourcelines(fn)
    loop_line = first + next(k for k, text in enumerate(lines) if loop in text)
    assert f"at line {loop_line})" in str(info.value)


def text_of_a_length(x, n):
    acc = []
    for t in range(n):
        acc.append(x[t])
    return x * 1.0, f"{len(acc)} rows"


def test_text_of_a_grown_lists_length_is_a_break_or_fails_at_its_line():
    sf = paddle.jit.to_static(text_of_a_length)
    for trips in (0, 3):
        _same(_call(sf, trips), _call(text_of_a_length, trips))
    assert sf.graph_breaks
    sf = paddle.jit.to_static(text_of_a_length, full_graph=True)
    with pytest.raises(TypeError, match=r"a Python number \(len\(\) of a list grown by a "
                                        r"tensor loop, at line \d+\) is formatted as text") as info:
        _call(sf, 1)
    check_user_error(info.value, __file__, 'return x * 1.0, f"{len(acc)} rows"')


# ----------------------------------------------------------------------------- gradients
def grad_scaled(x, n):
    k = 1.0
    for _ in range(n):
        k = k * 1.5
    return x.sin() * k


@pytest.mark.parametrize("trips", [0, 2])
def test_gradients_through_a_carried_number_match_finite_differences(trips):
    n = paddle.to_tensor(trips)
    sf = paddle.jit.to_static(grad_scaled, full_graph=True)
    gradcheck.check(lambda x: grad_scaled(x, n), [np.array([0.5, -1.5, 2.0])],
                    static_fn=lambda x: sf(x, n))


# ----------------------------------------------------------------------------- saved models
class Counting(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x, n):
        h = self.fc(x)
        i, k, found = 0, 0.0, False
        for j in range(n):
            i += 1
            k += 0.1
            if h[j].sum() > 0:
                found = True
        return h * 2.0, i, k, found


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_loaded_model_returns_the_numbers(full_graph, tmp_path):
    paddle.seed(3)
    net = Counting()
    st = paddle.jit.to_static(net, input_spec=[InputSpec([None, 3], "float32"),
                                               InputSpec([], "int64")], full_graph=full_graph)
    path = str(tmp_path / "m")
    paddle.jit.save(st, path)
    loaded = paddle.jit.load(path)
    for trips in TRIPS:
        x, n = paddle.to_tensor(X), paddle.to_tensor(trips)
        want = net(x, n)
        for got in (st(x, n), loaded(x, n)):
            assert [type(v) for v in got[1:]] == [int, float, bool]
            assert got[1:] == want[1:]
            np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-6)


@pytest.mark.parametrize("fn", [numbers_in_a_tuple, numbers_in_a_list_and_a_dict,
                                length_of_a_grown_list], ids=lambda f: f.__name__)
def test_a_loaded_model_returns_numbers_in_containers_and_lengths(fn, tmp_path):
    st = paddle.jit.to_static(fn, input_spec=[InputSpec([None, 3], "float32"),
                                              InputSpec([], "int64")])
    path = str(tmp_path / "m")
    paddle.jit.save(st, path)
    loaded = paddle.jit.load(path)
    for trips in TRIPS:
        _same(_call(loaded, trips), _call(fn, trips))


def test_a_number_that_becomes_a_tensor_of_its_dtype_is_read_unchecked(tmp_path):
    # `acc = 0.0` summing float32 values: where no turn runs only the Python type differs, so
    # reads after the loop stay in one graph and a saved model returns the 0-d tensor there
    def f(x, n):
        acc = 0.0
        for r in x[:n]:
            acc = acc + r.sum()
        return acc, acc * 2
    sf = paddle.jit.to_static(f, full_graph=True,
                              input_spec=[InputSpec([None, 3], "float32"), InputSpec([], "int64")])
    assert _call(sf, 0)[0] == 0.0 and type(_call(sf, 0)[0]) is float
    program = sf.concrete_program.main_program
    assert "check_defined" not in [op.type for b in program.blocks for op in b.ops]
    path = str(tmp_path / "m")
    paddle.jit.save(sf, path)
    loaded = paddle.jit.load(path)
    for trips in TRIPS:
        got, want = _call(loaded, trips), _call(f, trips)
        np.testing.assert_allclose([float(g) for g in got], [float(w) for w in want], rtol=1e-6)


def printing(x, n):
    i = 0
    while i < n:
        print("turn", i, [i * 0.5])
        i = i + 1
    return i


def test_printing_a_carried_number_prints_the_number(capfd, tmp_path):
    sf = paddle.jit.to_static(printing, full_graph=True,
                              input_spec=[InputSpec([None, 3], "float32"), InputSpec([], "int64")])
    path = str(tmp_path / "m")
    paddle.jit.save(sf, path)
    loaded = paddle.jit.load(path)
    capfd.readouterr()
    for run in (printing, sf, loaded):
        assert run(paddle.to_tensor(X), paddle.to_tensor(2)) == 2
        printed = [ln for ln in capfd.readouterr().out.splitlines() if "[dy2st build]" not in ln]
        assert printed == ["turn 0 [0.0]", "turn 1 [0.5]"]


# ----------------------------------------------------------------------------- one path widens
def widens_on_one_path(x, n):
    s = paddle.zeros([3], "int64")
    for i in range(n):
        if x[i].sum() > 0:
            s = s + x[i, 0]         # int64 [3] + 0-d float32 is float32 [3], as in Paddle
    return s


def number_widens_on_one_path(x, n):
    s = 0
    for i in range(n):
        if x[i].sum() > 0:
            s = s + x[i].sum()
    return s


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [widens_on_one_path, number_widens_on_one_path],
                         ids=lambda f: f.__name__)
def test_a_dtype_widened_on_one_path_is_eagers_on_every_trip_count(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    # trips 1: a turn ran, the widening path did not (eager keeps int64, or the number 0)
    for trips in (0, 3, 1, 2):
        _same(_call(sf, trips), _call(fn, trips))
    assert sf.num_programs == 1 and not sf.graph_breaks


def test_a_loaded_model_fails_where_the_widening_path_never_ran(tmp_path):
    st = paddle.jit.to_static(widens_on_one_path, full_graph=True,
                              input_spec=[InputSpec([None, 3], "float32"),
                                          InputSpec([], "int64")])
    path = str(tmp_path / "m")
    paddle.jit.save(st, path)
    loaded = paddle.jit.load(path)
    _same(_call(loaded, 3), _call(widens_on_one_path, 3))
    with pytest.raises(TypeError, match="'s' is int64 before the tensor loop") as info:
        _call(loaded, 1)
    assert "for i in range(n):" in str(info.value)


def test_a_dtype_changed_on_one_path_by_new_code_is_refused_at_its_line():
    def f(x, n):
        s = paddle.zeros([3], "int64")
        for i in range(n):
            if x[i].mean() > 0:
                s = s + x[i, 0]
            else:
                s = s * 2           # eager keeps int64 here: one output cannot hold both
        return s
    sf = paddle.jit.to_static(f, full_graph=True)
    with pytest.raises(TypeError, match="'s' has dtype float32 in the true branch") as info:
        _call(sf, 3)
    check_user_error(info.value, __file__, "if x[i].mean() > 0:")


def returns_a_turn(x, n):
    for t in range(n):
        if x[t].sum() > 0:
            return t, 0.5       # eager: Python numbers, from the turn that returned
    return -1, 1.5


@pytest.mark.parametrize("full_graph", [True, False])
def test_numbers_returned_from_a_tensor_loop_are_eagers(full_graph):
    sf = paddle.jit.to_static(returns_a_turn, full_graph=full_graph)
    for trips in (0, 3, 1):     # row 2 is the first with a positive sum
        _same(_call(sf, trips), _call(returns_a_turn, trips))
    assert sf.num_programs == 1 and not sf.graph_breaks
