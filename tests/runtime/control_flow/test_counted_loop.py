"""While ops counting an int scalar by a constant step to a fixed bound run as Python `for`
loops over a range: same results (counter included) as the general loop, other loops untouched."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import static
from dy2st.runtime.control_flow import counted_loop as C
from dy2st.runtime.executor import compile_program


def build(make_loop, feeds):
    main = static.Program()
    with static.program_guard(main):
        inputs = [static.data(name, shape, dtype) for name, shape, dtype in feeds]
        outs = make_loop(*inputs)
    names = [v.name for v in outs]
    main.feed_names, main.fetch_names = [f[0] for f in feeds], names
    return main, names


def run_both(main, names, arrays, monkeypatch):
    """(source, outputs) compiled as it is, and outputs with counting turned off."""
    feeds = main.feed_names
    compiled = compile_program(main, feeds, names)
    got = [np.array(o) for o in compiled(list(arrays))]
    with monkeypatch.context() as m:
        m.setattr("dy2st.runtime.executor.counted_loop", lambda *a: None)
        main.version += 1
        plain = compile_program(main, feeds, names)
        assert "for " not in plain.source
        want = [np.array(o) for o in plain(list(arrays))]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    return compiled.source, got


X = ("x", [10, 3], "float32")
I = ("i", [], "int64")
N = ("n", [], "int64")


@pytest.mark.parametrize("compare,step,start,stop", [
    ("<", 1, 0, 10), ("<", 3, 1, 10), ("<=", 2, 0, 9), (">", -1, 9, -1), (">=", -4, 9, 0),
    ("<", 1, 5, 5), ("<", 2, 7, 3), (">", -1, 0, 3)])      # the last two: no turn at all
def test_counters_count_like_the_general_loop(monkeypatch, compare, step, start, stop):
    tests = {"<": paddle.less_than, "<=": paddle.less_equal, ">": paddle.greater_than,
             ">=": paddle.greater_equal}

    def loop(x, i, n):
        def body(i, acc):
            return [i + step, acc + x[i] * 2.0]
        return static.nn.while_loop(lambda i, acc: tests[compare](i, n), body,
                                    [i, paddle.zeros([3], "float32")])
    main, names = build(loop, [X, I, N])
    x = np.arange(30, dtype="float32").reshape(10, 3)
    source, (count, acc) = run_both(main, names, [x, np.array(start), np.array(stop)], monkeypatch)
    # a bound known only at run time: counted when the step towards it is 1 (never passes it)
    assert ("= range(" in source) == (abs(step) == 1 and compare in "<>")
    turns = list(range(start, stop + (1 if compare == "<=" else -1 if compare == ">=" else 0), step))
    assert count.dtype == np.int64 and int(count) == start + len(turns) * step
    np.testing.assert_array_equal(acc, sum((x[t] * 2 for t in turns), np.zeros(3, "float32")))


def test_a_constant_bound_and_an_unread_counter():
    def loop(x):
        _, out = static.nn.while_loop(lambda i, v: i < 4, lambda i, v: [i + 1, paddle.tanh(v)],
                                      [paddle.zeros([], "int64"), x])
        return [out]
    main, names = build(loop, [X])
    source = compile_program(main, ["x"], names).source
    assert ", 4, 1)\n" in source and "N" not in source.split("for ")[1]   # no final counter made
    x = np.linspace(-2, 2, 30, dtype="float32").reshape(10, 3)
    out = static.Executor().run(main, feed={"x": x}, fetch_list=names)[0]
    np.testing.assert_array_equal(out, np.tanh(np.tanh(np.tanh(np.tanh(x)))))


@pytest.mark.parametrize("body", [
    lambda i, v: [i + 1, v * paddle.cast(i, "float32")],    # the counter read as a value
    lambda i, v: [i * 2, v + 1.0],                          # not a constant step
    lambda i, v: [i - 1, v + 1.0],                          # a step away from the bound
    lambda i, v: [i + 1, v + paddle.cast(i + 1, "float32")],  # the next value read in the body
])
def test_other_loops_stay_general(body):
    def loop(x, i):
        return static.nn.while_loop(lambda i, v: i < 6, body, [i, x])
    main, names = build(loop, [X, I])
    assert C.counted_loop(main, {n: main.find_var(n) for b in main.blocks for n in b.vars},
                          main.global_block().ops[-1], lambda op, name: False) is None
    assert "while True" in compile_program(main, ["x", "i"], names).source


def test_a_bound_that_changes_in_the_loop_stays_general():
    def loop(x, i, n):
        return static.nn.while_loop(lambda i, n, v: i < n, lambda i, n, v: [i + 1, n - 1, v + 1.0],
                                    [i, n, x])
    main, names = build(loop, [X, I, N])
    source = compile_program(main, ["x", "i", "n"], names).source
    assert "while True" in source
    out = static.Executor().run(main, feed={"x": np.zeros((10, 3), "float32"), "i": np.array(0),
                                            "n": np.array(9)}, fetch_list=names)
    assert int(out[0]) == 5 and int(out[1]) == 4 and out[2][0, 0] == 5.0


def test_converted_tensor_loops_and_rolled_python_loops_count():
    @paddle.jit.to_static
    def fn(x, steps):
        h = x[0]
        t = paddle.zeros([], "int64")
        while t < steps:
            h = paddle.tanh(h + x[t])
            t = t + 1
        for k in range(8):
            h = paddle.sin(h * x[k]) + paddle.cos(h) * 0.5 - h * 0.25 + paddle.exp(h * 0.1)
        return h, t

    x = paddle.to_tensor(np.linspace(-1, 1, 30, dtype="float32").reshape(10, 3))
    steps = paddle.to_tensor(np.array(6))
    h, t = fn(x, steps)
    eh, et = fn.dygraph_function(x, steps)
    np.testing.assert_allclose(h.numpy(), eh.numpy(), rtol=1e-6)
    assert int(t) == int(et) == 6 and t.numpy().dtype == et.numpy().dtype
    program = fn.concrete_program.main_program
    source = compile_program(program, program.feed_names, program.fetch_names).source
    assert source.count("= range(") == 2 and "while True" not in source


def _int_loop(dtype, compare, step, bound_feed):
    tests = {"<": paddle.less_than, "<=": paddle.less_equal}

    def loop(x, i, n):
        bound = (lambda: n) if bound_feed else (lambda: paddle.full([], 120, dtype))
        return static.nn.while_loop(lambda i, s: tests[compare](i, bound()),
                                    lambda i, s: [i + paddle.full([], step, dtype), s + 1.0],
                                    [i, paddle.zeros([], "float32")])
    return build(loop, [X, ("i", [], dtype), ("n", [], dtype)])


@pytest.mark.parametrize("dtype,compare,step,bound_feed,counted", [
    ("int8", "<", 3, False, True),       # 120 + 3 - 1 fits int8: never wraps
    ("int8", "<", 9, False, False),      # may step past 127: wraps around like the general loop
    ("int8", "<=", 8, False, False),
    ("int32", "<", 1, True, True),       # a run-time bound, stepped to by 1: never passes it
    ("int32", "<", 2, True, False),
    ("int32", "<=", 1, True, False),
])
def test_counters_that_could_wrap_around_stay_general(monkeypatch, dtype, compare, step,
                                                     bound_feed, counted):
    main, names = _int_loop(dtype, compare, step, bound_feed)
    source, (i, s) = run_both(main, names, [np.zeros((10, 3), "float32"), np.array(100, dtype),
                                            np.array(120, dtype)], monkeypatch)
    assert ("= range(" in source) == counted
    assert i.dtype == np.dtype(dtype)


def test_bounds_and_steps_that_do_not_fit_the_counter_are_not_counted_on():
    from dy2st.runtime.program import Operator

    def full(value, dtype):
        return Operator("full", [], ["c"], {"shape": [], "value": value, "dtype": dtype})
    int8 = np.dtype("int8")
    assert C._int_constant(full(120, "int8"), int8) == 120
    assert C._int_constant(full(200, "int8"), int8) is None       # fails when built, as in eager
    assert C._int_constant(full(5, "int64"), int8) is None        # another dtype
    assert C._int_constant(full(5.0, "int8"), int8) is None
    # one number of shape [1] (Paddle's `paddle.full([1], 5)`) counts too; more numbers do not
    assert C._int_constant(Operator("full", [], ["c"], {"shape": [1], "value": 5, "dtype": "int8"}),
                           int8) == 5
    assert C._int_constant(Operator("full", [], ["c"], {"shape": [2], "value": 5, "dtype": "int8"}),
                           int8) is None


# ------------------------------------------------------------------ counters written the Paddle way
def tensor_counter(shape):
    """`while i < n` over a counter of shape (Paddle's `paddle.zeros([1])`, or 0-d)."""
    def loop(x, n):
        i = paddle.zeros(shape, dtype="int64")
        s = x
        while i < n:
            s = s * 0.5 + x
            i = i + 1
        return s, i
    return loop


def counter_stepped_by(step):
    """`while i < n` over a shape-[1] counter stepped by `i += 1`, `paddle.increment(i)` (in
    place, its result unused) or `i = paddle.increment(i)`."""
    def loop(x, n):
        i = paddle.zeros([1], dtype="int64")
        s = x
        while i < n:
            s = s * 0.5 + x
            if step == "+=":
                i += 1
            elif step == "increment":
                paddle.increment(i)
            else:
                i = paddle.increment(i)
        return s, i
    return loop


def range_of_a_tensor(x, n):
    s = x
    for i in range(n):
        s = s * 0.5 + x
    return s


def counter_read_as_an_index(x, n):
    i = paddle.zeros([1], dtype="int64")
    s = x[0]
    while i < n:
        s = s + x[i][0]                   # x[i] with a shape-[1] i keeps its dim: not an int
        i = i + 1
    return s, i


def static_source(sf) -> str:
    program = sf.concrete_program.main_program
    return compile_program(program, program.feed_names, program.fetch_names).source


@pytest.mark.parametrize("fn,counted", [(tensor_counter([1]), True), (tensor_counter([]), True),
                                        (counter_stepped_by("+="), True),
                                        (counter_stepped_by("increment"), True),
                                        (counter_stepped_by("= increment"), True),
                                        (range_of_a_tensor, True),
                                        (counter_read_as_an_index, False)])
# a 0-d int32 bound next to an int64 counter compares as int64 (Paddle takes a 0-d tensor as a
# scalar; an int32 one of shape [1] it would refuse)
@pytest.mark.parametrize("bound_shape,bound_dtype", [([1], "int64"), ([], "int64"),
                                                     ([], "int32")])
def test_counters_and_bounds_of_one_number_count(fn, counted, bound_shape, bound_dtype):
    x = paddle.to_tensor(np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3))
    sf = paddle.jit.to_static(fn)
    for trips in (0, 1, 3, 4):
        n = paddle.to_tensor(np.full(bound_shape, trips, bound_dtype))
        got, want = sf(x, n), fn(x, n)
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
        for g, w in zip(got, want):
            assert g.numpy().dtype == w.numpy().dtype and g.shape == w.shape
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)
    source = static_source(sf)
    assert ("= range(" in source) == counted and ("while True" in source) == (not counted)


def test_a_bound_wider_than_the_counter_stays_general():
    """An int64 bound beyond an int32 counter's range: eager would wrap around, a range not
    (0-d both, which Paddle promotes to int64 to compare)."""
    def loop(x, n):
        i = paddle.zeros([], dtype="int32")
        while i < n:
            x = x + 1.0
            i = i + 1
        return x, i
    sf = paddle.jit.to_static(loop)
    x, n = paddle.to_tensor(np.zeros(2, "float32")), paddle.to_tensor(np.array(3, "int64"))
    out, i = sf(x, n)
    assert out.numpy().tolist() == [3.0, 3.0] and i.numpy().tolist() == 3
    assert "while True" in static_source(sf)


def test_a_shape_one_counter_left_at_its_end_value(monkeypatch):
    def loop(x, i, n):
        return static.nn.while_loop(lambda i, v: paddle.less_than(i, n),
                                    lambda i, v: [i + paddle.full([1], 2, "int64"), v * 2.0],
                                    [i, x])
    main, names = build(loop, [X, ("i", [1], "int64"), ("n", [1], "int64")])
    x = np.ones((10, 3), "float32")
    for start, stop in [(0, 1), (1, 8), (5, 5), (9, 2)]:
        main.version += 1
        source, (count, v) = run_both(main, names, [x, np.array([start]), np.array([stop])],
                                      monkeypatch)
        assert count.shape == (1,) and "= range(" not in source    # step 2 to a run-time bound
    def unit_loop(x, i, n):
        return static.nn.while_loop(lambda i, v: paddle.less_than(i, n),
                                    lambda i, v: [i + 1, v * 2.0], [i, x])
    main, names = build(unit_loop, [X, ("i", [1], "int64"), ("n", [1], "int64")])
    for start, stop in [(0, 1), (1, 8), (5, 5), (9, 2)]:
        main.version += 1
        source, (count, v) = run_both(main, names, [x, np.array([start]), np.array([stop])],
                                      monkeypatch)
        assert "= range(" in source
        assert count.shape == (1,) and count.dtype == np.int64 and int(count[0]) == max(start, stop)
        np.testing.assert_array_equal(v, x * 2.0 ** max(0, stop - start))
