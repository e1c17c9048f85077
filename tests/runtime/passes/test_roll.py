"""Rolling unrolled Python loops back into while ops keeps every result identical, and rolls only
iterations that repeat (same ops, inputs from the same places, indices stepping evenly)."""
import random

import numpy as np
import pytest
from random_programs import SHAPE, _chain, assert_identical, run

import dy2st as paddle
from dy2st import static
from dy2st.runtime.control_flow.unrolled import unrolled_loop
from dy2st.runtime.passes import optimize, roll
from dy2st.runtime.passes.roll import roll_loops

T = 12                      # time steps of the x feed
FEEDS = ["x", "y"]


def loop_program(body, trips=T, carried=1, after=None):
    """A Program over x: float32[T, 3, 4] and y: float32[3, 4] running `body(t, x, y, *carried)`
    in a Python loop recorded as tracing records it; fetches the carried values (or after())."""
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [T] + SHAPE, "float32")
        y = static.data("y", SHAPE, "float32")
        values = [y * float(i + 1) for i in range(carried)]
        seen = []
        loop = unrolled_loop()
        for t in range(trips):
            loop.mark()
            values = list(body(t, x, y, *values))
            seen.append(values)
        loop.mark()
        outs = after(seen) if after is not None else values
    main.feed_names = list(FEEDS)
    main.fetch_names = list(dict.fromkeys(v.name for v in outs))
    return main


def arrays(seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal([T] + SHAPE).astype("float32"),
            rng.standard_normal(SHAPE).astype("float32")]


def check(make, seeds=(0, 1)):
    """make() twice: one program run as traced, one rolled; returns how many loops rolled."""
    ref, opt = make(), make()
    rolled = roll_loops(opt)
    for seed in seeds:
        a = arrays(seed)
        assert_identical(run(ref, FEEDS, ref.fetch_names, a), run(opt, FEEDS, opt.fetch_names, a))
    return rolled, opt


def op_types(program, block=0):
    return [op.type for op in program.blocks[block].ops]


def rnn_body(t, x, y, h):
    return [paddle.tanh(paddle.matmul(x[t], paddle.transpose(y, [1, 0])) @ h + h * 0.5)]


def test_an_rnn_loop_becomes_one_while_op_with_the_same_results():
    rolled, opt = check(lambda: loop_program(rnn_body))
    assert rolled == 1
    assert op_types(opt).count("while") == 1
    body = opt.blocks[opt.blocks[0].ops[-1].attrs["body_block"]]
    # one turn of the body (the transpose of y is the same every turn: computed once, before)
    assert [op.type for op in body.ops].count("matmul") == 2
    assert "transpose" in op_types(opt) and "transpose" not in [op.type for op in body.ops]


def test_random_loop_bodies_give_identical_results():
    rolled = 0
    for seed in range(40):
        def make(seed=seed):
            def body(t, x, y, *carried):
                r = random.Random(seed)        # the same ops every turn, as a Python loop traces
                index = [t, T - 1 - t, t // 1][seed % 3]
                pool = list(carried) + [x[index], y]
                outs = [_chain(r, pool, 1) for _ in carried]
                return [o + c * 0.0 for o, c in zip(outs, carried)]
            return loop_program(body, trips=4 + seed % 9, carried=1 + seed % 2)
        n, _ = check(make, seeds=(seed,))
        rolled += n
    assert rolled >= 25


@pytest.mark.parametrize("index,expect", [
    (lambda t: t, 1), (lambda t: t + 1, 1), (lambda t: T - 1 - t, 1), (lambda t: -1 - t, 1),
    (lambda t: 2 * t - 5, 1), (lambda t: t * t % T, 0), (lambda t: 3, 1)])
def test_indices_that_step_evenly_read_a_counter(index, expect):
    def body(t, x, y, h):
        return [paddle.tanh(x[index(t) if index(t) < T else 0] * h + y) * 2.0 - h]
    rolled, _ = check(lambda: loop_program(body, trips=6 if expect else 10))
    assert rolled == expect


def test_two_indices_stepping_differently_get_a_counter_each():
    def body(t, x, y, h):
        return [paddle.tanh(x[t] * h + x[T - 1 - t]) * 2.0 - y * h]
    rolled, opt = check(lambda: loop_program(body))
    assert rolled == 1
    assert opt.blocks[0].ops[-1].attrs["n_loop_vars"] == 3   # two counters and h


def test_a_first_turn_that_differs_stays_unrolled_before_the_loop():
    def body(t, x, y, h):
        if t == 0:
            return [x[0] * 3.0]
        return [paddle.tanh(x[t] * h + y) * 2.0 - h]
    rolled, opt = check(lambda: loop_program(body))
    assert rolled == 1
    assert op_types(opt)[-1] == "while"
    assert "getitem" in op_types(opt)[:-1]         # turn 0's x[0] * 3.0


def test_values_of_every_turn_read_after_the_loop_keep_it_unrolled():
    rolled, opt = check(lambda: loop_program(rnn_body, after=lambda seen: [
        paddle.stack([v[0] for v in seen])]))
    assert rolled == 0
    assert "while" not in op_types(opt)


def test_short_loops_and_small_bodies_stay_unrolled():
    small = lambda t, x, y, h: [h + x[t]]                       # noqa: E731
    assert check(lambda: loop_program(small))[0] == 0          # 11 ops saved: not worth a loop
    assert check(lambda: loop_program(rnn_body, trips=roll.MIN_TRIPS - 1))[0] == 0


def test_a_tensor_if_in_the_body_keeps_it_unrolled():
    def body(t, x, y, h):
        return [static.nn.cond(paddle.mean(h) > 0, lambda: h * 2.0 + x[t], lambda: h - x[t])
                * 0.5 + paddle.tanh(h) * y * y * y]
    rolled, _ = check(lambda: loop_program(body))
    assert rolled == 0


def test_a_carried_value_that_changes_shape_keeps_it_unrolled():
    def body(t, x, y, h):
        return [paddle.concat([paddle.tanh(h), h * 2.0 + 1.0, h - 1.0], axis=0)[:3] * y]
    rolled, _ = check(lambda: loop_program(body))
    assert rolled == 1          # [3, 4] every turn: rolled

    def grow(t, x, y, h):
        return [paddle.concat([paddle.tanh(h) * 2.0 - 1.0, h[:1] * 3.0], axis=0) + 0.5]
    rolled, _ = check(lambda: loop_program(grow, trips=8))
    assert rolled == 0          # one row longer each turn


def test_random_ops_in_the_body_draw_in_the_same_order():
    def body(t, x, y, h):
        return [paddle.tanh(h + paddle.rand(SHAPE)) * x[t] + paddle.rand(SHAPE) * y - h * 0.5]
    rolled, _ = check(lambda: loop_program(body))
    assert rolled == 1


def test_nested_loops_roll_the_inner_ones():
    def make():
        main = static.Program()
        with static.program_guard(main):
            x = static.data("x", [T] + SHAPE, "float32")
            y = static.data("y", SHAPE, "float32")
            h = y
            outer = unrolled_loop()
            for i in range(3):
                outer.mark()
                h = h * float(i + 2)
                inner = unrolled_loop()
                for t in range(T):
                    inner.mark()
                    h = paddle.tanh(x[t] * h + y) * 0.5 + paddle.sin(h) * y
                inner.mark()
            outer.mark()
        main.feed_names, main.fetch_names = list(FEEDS), [h.name]
        return main
    rolled, opt = check(make)
    assert rolled == 3
    assert op_types(opt).count("while") == 3


def test_a_while_loop_with_a_python_condition_is_recorded_and_rolled():
    @paddle.jit.to_static
    def fn(x, y):
        h = y
        t = 0
        while t < 10:
            h = paddle.tanh(x[t] * h + y) * 0.5 + paddle.sin(h) * y - h
            t += 1
        return h
    x, y = arrays(3)
    out = fn(paddle.to_tensor(x), paddle.to_tensor(y))
    np.testing.assert_allclose(out.numpy(), fn.dygraph_function(paddle.to_tensor(x), paddle.to_tensor(y)).numpy(),
                               rtol=1e-6)
    program = fn.concrete_program.main_program
    assert op_types(program).count("while") == 1


def test_the_whole_pipeline_after_rolling_keeps_results():
    def make():
        return loop_program(rnn_body, carried=1)
    ref, opt = make(), make()
    optimize(opt)
    assert "while" in op_types(opt)
    for seed in (0, 1):
        a = arrays(seed)
        assert_identical(run(ref, FEEDS, ref.fetch_names, a), run(opt, FEEDS, opt.fetch_names, a))


def test_body_ops_keep_their_user_lines():
    @paddle.jit.to_static
    def fn(x, h):
        for t in range(8):
            h = paddle.tanh(x[t] * h) * 0.5 + paddle.sin(h) * h - h * 2.0     # the line
        return h
    x, y = arrays(0)
    fn(paddle.to_tensor(x), paddle.to_tensor(y))
    program = fn.concrete_program.main_program
    (loop,) = [op for op in program.blocks[0].ops if op.type == "while"]
    body = program.blocks[loop.attrs["body_block"]]
    lines = {op.origin.source for op in body.ops if op.origin is not None}
    # the counter's ops are the loop header's
    assert lines == {"h = paddle.tanh(x[t] * h) * 0.5 + paddle.sin(h) * h - h * 2.0     # the line",
                     "for t in range(8):"}
    assert loop.origin.source == "for t in range(8):"


def _rnn(x, h, w, n):
    for t in range(n):
        h = paddle.tanh(paddle.matmul(x[:, t], w) + h * 0.5) - h * 0.25
    return h


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 16])
def test_converted_loops_match_eager_for_every_trip_count(n):
    rng = np.random.default_rng(n)
    x, h, w = (paddle.to_tensor(rng.standard_normal(s).astype("float32"))
               for s in ([2, 16, 4], [2, 4], [4, 4]))
    fn = paddle.jit.to_static(_rnn)
    np.testing.assert_allclose(fn(x, h, w, n).numpy(), _rnn(x, h, w, n).numpy(), rtol=1e-5, atol=1e-6)
    whiles = op_types(fn.get_concrete_program(x, h, w, n).main_program).count("while")
    assert whiles == (1 if n >= 7 else 0)     # 2 turns: too few; 3 turns of 7 ops: too small


def test_a_python_break_ends_the_rolled_turns():
    def fn(x, h, w):
        for t in range(16):
            if t == 11:
                break
            h = paddle.tanh(paddle.matmul(x[:, t], w) + h * 0.5) - h * 0.25
        return h
    rng = np.random.default_rng(5)
    args = [paddle.to_tensor(rng.standard_normal(s).astype("float32"))
            for s in ([2, 16, 4], [2, 4], [4, 4])]
    static_fn = paddle.jit.to_static(fn)
    np.testing.assert_allclose(static_fn(*args).numpy(), fn(*args).numpy(), rtol=1e-5, atol=1e-6)
    program = static_fn.concrete_program.main_program
    (loop,) = [op for op in program.blocks[0].ops if op.type == "while"]
    stop = program.blocks[loop.attrs["cond_block"]].ops[0]
    assert stop.type == "full" and stop.attrs["value"] == 11


def test_rolling_can_be_turned_off_by_its_thresholds(monkeypatch):
    monkeypatch.setattr(roll, "MIN_SAVED_OPS", 10 ** 9)
    rolled, opt = check(lambda: loop_program(rnn_body))
    assert rolled == 0 and "while" not in op_types(opt)


def test_setitem_at_the_turn_index_rolls():
    def body(t, x, y, h):
        g = paddle.tanh(h * 0.5 + y) * 2.0 - h * paddle.cos(y)
        g[:, t] = paddle.sin(x[t][:, t]) + 1.0
        return [g * 0.75 + paddle.exp(h * 0.1)]
    rolled, opt = check(lambda: loop_program(body, trips=4))
    assert rolled == 1
    body_block = opt.blocks[opt.blocks[0].ops[-1].attrs["body_block"]]
    (setitem,) = [op for op in body_block.ops if op.type == "setitem"]
    assert setitem.attrs["items"][1] == {"k": "tensor", "t": 0}


@pytest.mark.parametrize("values", [(0.0, -0.0), (1, 1.0), (2.0, 2)])
def test_attributes_equal_only_by_python_equality_keep_turns_apart(values):
    from dy2st.runtime.registry import apply

    def body(t, x, y, h):
        c = apply("full", [], {"shape": SHAPE, "value": values[t % 2], "dtype": "float32"})
        return [paddle.tanh(h * 0.5 + y) * 2.0 - h * paddle.cos(y) + c * paddle.tanh(h) + x[t]]
    rolled, _ = check(lambda: loop_program(body, trips=6))
    assert rolled == 0


def test_the_same_attribute_values_roll():
    from dy2st.runtime.registry import apply

    def body(t, x, y, h):
        c = apply("full", [], {"shape": SHAPE, "value": -0.0, "dtype": "float32"})
        return [paddle.tanh(h * 0.5 + y) * 2.0 - h * paddle.cos(y) + c * paddle.tanh(h) + x[t]]
    rolled, _ = check(lambda: loop_program(body, trips=6))
    assert rolled == 1


def _t(*shape, seed=0):
    return paddle.to_tensor(np.random.default_rng(seed).standard_normal(shape).astype("float32"))


def _static_and_eager(fn, *args):
    sf = paddle.jit.to_static(fn)
    out, want = sf(*args), fn(*args)
    outs, wants = (out, want) if isinstance(out, tuple) else ((out,), (want,))
    for o, w in zip(outs, wants):
        np.testing.assert_allclose(o.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)
    return op_types(sf.concrete_program.main_program).count("while")


def test_a_loop_variable_whose_shape_alternates_stays_unrolled():
    def flip(h, col, acc):
        for t in range(12):
            r = paddle.reshape(h * 1.0, [1, 3])        # a real reshape every other turn
            acc = acc + (r * col).sum()
            h = paddle.transpose(h, [1, 0])             # [3, 1] <-> [1, 3]
        return acc

    def swap(h, p, acc):
        for t in range(12):
            v = h * p
            u = paddle.transpose(h, [1, 0]) * 1.0
            acc = acc + (v + u).sum()
            h = u
        return acc
    assert _static_and_eager(flip, _t(3, 1), _t(3, 1, seed=1), _t(seed=2)) == 0
    assert _static_and_eager(swap, _t(3, 1), _t(3, 1, seed=1), _t(seed=2)) == 0


def test_an_assert_in_the_body_still_fails_before_what_it_guards():
    def guard(x, h, k):
        for t in range(6):
            assert k < 6, "k out of range"
            h = paddle.tanh(h + x[t] * x[k]) * 2.0 - h * 0.5 + paddle.sin(h)
        return h
    args = (_t(6, 3), _t(3), paddle.to_tensor(np.array(7)))
    with pytest.raises(AssertionError, match="k out of range"):
        paddle.jit.to_static(guard)(*args)
    ok = (_t(6, 3), _t(3), paddle.to_tensor(np.array(2)))
    assert _static_and_eager(guard, *ok) == 1


def test_two_turns_never_roll_whatever_the_thresholds(monkeypatch):
    monkeypatch.setattr(roll, "MIN_TRIPS", 2)
    monkeypatch.setattr(roll, "MIN_SAVED_OPS", 1)

    def two(x, h):
        for t in range(2):
            h = paddle.tanh(h + x[t]) * 2.0
        return h
    assert _static_and_eager(two, _t(2, 3), _t(3)) == 0


def test_a_value_of_the_last_turn_returned_beside_the_state_is_carried_too():
    def rnn_out(x, h, v):
        for t in range(20):
            h = paddle.tanh(h + x[t]) * 2.0 - h * 0.5
            o = paddle.matmul(h, v)
        return o, h
    assert _static_and_eager(rnn_out, _t(20, 2, 3), _t(2, 3, seed=1), _t(3, 3, seed=2)) == 1


def test_a_first_turn_that_broadcasts_and_a_last_turn_that_differs():
    def bcast(x, h):                    # turn 0 makes h [2, 3] from [3]
        for t in range(20):
            h = paddle.tanh(h + x[t]) * 2.0 - h * 0.5
        return h

    def last_differs(x, h):
        for t in range(20):
            a = x[0] if t < 19 else x[1]
            h = paddle.tanh(h + a) * (2.0 if t < 19 else 3.0) - h * 0.5
        return h
    assert _static_and_eager(bcast, _t(20, 2, 3), _t(3, seed=1)) == 1
    assert _static_and_eager(last_differs, _t(20, 3), _t(3, seed=1)) == 1
