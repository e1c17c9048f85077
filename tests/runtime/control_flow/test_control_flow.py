"""static.nn.cond / while_loop: each branch, several trip counts, nesting, arrays, errors, eager."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import static
from dy2st.tensor import array_length, array_read, array_stack, array_write, create_array

cond = static.nn.cond
while_loop = static.nn.while_loop


def build(fn):
    """Build a Program with `fn()` returning (fetch list); return (program, fetch list)."""
    main = static.Program()
    with static.program_guard(main):
        fetch = fn()
    return main, fetch


def run(main, fetch, **feed):
    return static.Executor().run(main, feed=feed, fetch_list=fetch)


def count_ops(program, op_type):
    return sum(op.type == op_type for b in program.blocks for op in b.ops)


# ----------------------------------------------------------------------------- cond
def test_cond_takes_each_branch():
    def fn():
        x = static.data("x", [None, 2], "float32")
        return [cond(x.sum() > 0, lambda: x * 10.0, lambda: x - 1.0)]

    main, fetch = build(fn)
    assert count_ops(main, "cond") == 1
    pos = np.array([[1, 2]], "float32")
    neg = np.array([[-1, -2], [0, -3]], "float32")
    np.testing.assert_allclose(run(main, fetch, x=pos)[0], pos * 10)
    np.testing.assert_allclose(run(main, fetch, x=neg)[0], neg - 1)


def test_cond_output_shape_unifies_differing_dims():
    def fn():
        x = static.data("x", [4], "float32")
        out = cond(x.sum() > 0, lambda: x[:2], lambda: x[:3])
        return [out]

    main, fetch = build(fn)
    assert fetch[0]._shape == (-1,)
    assert run(main, fetch, x=np.ones(4, "float32"))[0].shape == (2,)
    assert run(main, fetch, x=-np.ones(4, "float32"))[0].shape == (3,)


def test_cond_nested_structures_and_python_constants():
    def fn():
        x = static.data("x", [2], "float32")
        out = cond(x.sum() > 0,
                   lambda: {"pair": (x, 1), "scale": 2.0, "tag": "same"},
                   lambda: {"pair": (-x, 1), "scale": 3.0, "tag": "same"})
        assert out["pair"][1] == 1 and out["tag"] == "same"   # equal constants stay Python values
        assert isinstance(out["scale"], static.Variable)       # differing numbers become tensors
        return [out["pair"][0], out["scale"]]

    main, fetch = build(fn)
    a, s = run(main, fetch, x=np.array([1, 2], "float32"))
    assert a.tolist() == [1, 2] and float(s) == 2.0
    a, s = run(main, fetch, x=np.array([-1, -2], "float32"))
    assert a.tolist() == [1, 2] and float(s) == 3.0


def test_cond_number_in_one_branch_takes_tensor_dtype():
    def fn():
        x = static.data("x", [], "int32")
        return [cond(x > 0, lambda: x * 2, lambda: 0)]

    main, fetch = build(fn)
    assert fetch[0].dtype == "int32"
    assert int(run(main, fetch, x=np.array(4, "int32"))[0]) == 8
    assert int(run(main, fetch, x=np.array(-4, "int32"))[0]) == 0


def test_cond_with_no_outputs_still_builds():
    def fn():
        x = static.data("x", [], "float32")
        out = cond(x > 0, lambda: None, lambda: None)
        assert out is None
        return [x + 1.0]

    main, fetch = build(fn)
    assert count_ops(main, "cond") == 1
    assert float(run(main, fetch, x=np.array(1, "float32"))[0]) == 2.0


def test_while_inside_cond():
    def fn():
        n = static.data("n", [], "int64")

        def count_up():
            i, s = while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i),
                              [paddle.zeros([], "int64"), paddle.zeros([], "int64")])
            return s

        return [cond(n > 2, count_up, lambda: n * -1)]

    main, fetch = build(fn)
    assert int(run(main, fetch, n=np.array(5))[0]) == 0 + 1 + 2 + 3 + 4
    assert int(run(main, fetch, n=np.array(2))[0]) == -2


# ----------------------------------------------------------------------------- while_loop
@pytest.mark.parametrize("n, expected", [(0, 1.0), (1, 2.0), (5, 32.0)])
def test_while_trip_counts_including_zero(n, expected):
    def fn():
        limit = static.data("limit", [], "int64")
        i, acc = while_loop(lambda i, acc: i < limit, lambda i, acc: (i + 1, acc * 2.0),
                            [paddle.zeros([], "int64"), paddle.ones([], "float32")])
        return [i, acc]

    main, fetch = build(fn)
    i, acc = run(main, fetch, limit=np.array(n))
    assert int(i) == n
    assert float(acc) == expected


def test_while_with_captured_outer_variable():
    def fn():
        x = static.data("x", [3], "float32")
        step = x.mean()
        (total,) = while_loop(lambda t: t < 10.0, lambda t: [t + step], [paddle.zeros([], "float32")])
        return [total]

    main, fetch = build(fn)
    assert float(run(main, fetch, x=np.full(3, 4.0, "float32"))[0]) == 12.0
    assert float(run(main, fetch, x=np.full(3, 11.0, "float32"))[0]) == 11.0


def test_cond_nested_inside_while():
    def fn():
        n = static.data("n", [], "int64")

        def body(i, evens, odds):
            is_even = (i % 2) == 0
            evens, odds = cond(is_even, lambda: (evens + 1, odds), lambda: (evens, odds + 1))
            return i + 1, evens, odds

        zero = paddle.zeros([], "int64")
        i, evens, odds = while_loop(lambda i, e, o: i < n, body, [zero, zero, zero])
        return [evens, odds]

    main, fetch = build(fn)
    assert count_ops(main, "cond") == 1 and count_ops(main, "while") == 1
    assert [int(v) for v in run(main, fetch, n=np.array(5))] == [3, 2]
    assert [int(v) for v in run(main, fetch, n=np.array(0))] == [0, 0]


def test_while_loop_var_shape_may_grow_to_unknown_dim():
    def fn():
        x = static.data("x", [1], "float32")
        (out,) = while_loop(lambda v: v.sum() < 8.0, lambda v: [paddle.concat([v, v])], [x])
        return [out]

    main, fetch = build(fn)
    assert fetch[0]._shape == (-1,)
    assert run(main, fetch, x=np.array([1], "float32"))[0].tolist() == [1.0] * 8
    assert run(main, fetch, x=np.array([3], "float32"))[0].tolist() == [3.0] * 4


def test_while_nested_loop_vars_and_python_constant():
    def fn():
        n = static.data("n", [], "int64")
        state = {"i": paddle.zeros([], "int64"), "pair": (paddle.ones([2], "float32"), "label")}

        def body(s):
            return [{"i": s["i"] + 1, "pair": (s["pair"][0] * 3.0, s["pair"][1])}]

        (out,) = while_loop(lambda s: s["i"] < n, body, [state])
        assert out["pair"][1] == "label"
        return [out["i"], out["pair"][0]]

    main, fetch = build(fn)
    i, v = run(main, fetch, n=np.array(2))
    assert int(i) == 2 and v.tolist() == [9.0, 9.0]


def test_tensor_array_written_in_loop_and_stacked():
    def fn():
        n = static.data("n", [], "int64")
        x = static.data("x", [2], "float32")

        def body(i, arr):
            return i + 1, array_write(x * paddle.cast(i, "float32"), i, arr)

        i, arr = while_loop(lambda i, arr: i < n, body,
                            [paddle.zeros([], "int64"), create_array("float32")])
        return [array_stack(arr), array_length(arr), array_read(arr, i - 1)]

    main, fetch = build(fn)
    assert fetch[0]._shape == (-1, 2)
    stacked, length, last = run(main, fetch, n=np.array(3), x=np.array([1, 2], "float32"))
    np.testing.assert_allclose(stacked, [[0, 0], [1, 2], [2, 4]])
    assert int(length) == 3
    np.testing.assert_allclose(last, [2, 4])
    stacked, length, _ = run(main, fetch, n=np.array(1), x=np.array([5, 6], "float32"))
    assert stacked.shape == (1, 2) and int(length) == 1


# ----------------------------------------------------------------------------- errors
def expect_build_error(fn, exc, pattern):
    with pytest.raises(exc, match=pattern):
        build(fn)


def test_error_branches_differ_in_structure():
    def fn():
        x = static.data("x", [2], "float32")
        return [cond(x.sum() > 0, lambda: (x, x), lambda: x)]

    expect_build_error(fn, ValueError, r"different structures: \(value, value\) in the true branch "
                                       r"and value in the false branch")


def test_error_branches_differ_in_dtype():
    def fn():
        x = static.data("x", [2], "float32")
        return [cond(x.sum() > 0, lambda: x, lambda: x.astype("int32"))]

    expect_build_error(fn, TypeError, r"dtype float32 in the true branch.*int32 in the false branch")


def test_error_branches_differ_in_rank():
    def fn():
        x = static.data("x", [2], "float32")
        return [cond(x.sum() > 0, lambda: x, lambda: x.reshape([1, 2]))]

    expect_build_error(fn, ValueError, r"shape \[2\] in the true branch.*\[1, 2\] in the false "
                                       r"branch.*ranks must agree")


def test_error_branch_tensor_vs_string():
    def fn():
        x = static.data("x", [2], "float32")
        return [cond(x.sum() > 0, lambda: x, lambda: "text")]

    expect_build_error(fn, TypeError, "a tensor in one branch and str in the other")


def test_error_loop_var_changes_dtype():
    def fn():
        x = static.data("x", [2], "float32")
        return while_loop(lambda v: v.sum() < 10, lambda v: [v.astype("float64")], [x],
                          names=["v"])

    expect_build_error(fn, TypeError, r"loop variable 'v' is float32\[2\] before the loop.*"
                                      r"float64\[2\] after the loop body.*keep its dtype")


def test_error_loop_var_changes_rank_and_names_source_line():
    def fn():
        x = static.data("x", [2], "float32")
        return while_loop(lambda v: v.sum() < 10, lambda v: [v.reshape([1, 2])], [x])

    with pytest.raises(ValueError) as err:
        build(fn)
    msg = str(err.value)
    assert "shape [2] before the loop" in msg and "[1, 2] after the loop body" in msg
    assert "keep its rank" in msg
    assert "v.reshape([1, 2])" in msg      # the user's source line of the new value


def test_error_predicate_with_several_elements():
    def fn():
        x = static.data("x", [2], "float32")
        return [cond(x > 0, lambda: x, lambda: -x)]

    expect_build_error(fn, ValueError, "truth value of a tensor with 2 elements is ambiguous")


def test_error_loop_condition_with_several_elements():
    def fn():
        x = static.data("x", [3], "float32")
        return while_loop(lambda v: v < 10, lambda v: [v + 1.0], [x])

    expect_build_error(fn, ValueError, "3 elements is ambiguous")


def test_error_body_returns_wrong_count():
    def fn():
        i = static.data("i", [], "int64")
        return while_loop(lambda a, b: a < 3, lambda a, b: a + 1, [i, i])

    expect_build_error(fn, ValueError, "body must return 2 values")


# ----------------------------------------------------------------------------- eager mode
def test_cond_eager_runs_python():
    calls = []
    x = paddle.to_tensor([1.0, 2.0])
    out = cond(x.sum() > 0, lambda: calls.append("t") or x * 2, lambda: calls.append("f") or x)
    assert calls == ["t"]
    assert isinstance(out, paddle.Tensor) and out.tolist() == [2.0, 4.0]
    assert cond(False, lambda: 1, lambda: 2) == 2


def test_while_loop_eager_runs_python():
    i, s = while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i),
                      [paddle.to_tensor(0), paddle.to_tensor(0)])
    assert isinstance(i, paddle.Tensor)
    assert int(i) == 4 and int(s) == 6
    (zero_trips,) = while_loop(lambda v: v > 100, lambda v: [v + 1], [paddle.to_tensor(5)])
    assert int(zero_trips) == 5


def test_while_loop_rejects_empty_loop_vars():
    with pytest.raises(TypeError, match="non-empty list or tuple"):
        while_loop(lambda: True, lambda: (), [])


def test_while_nested_in_while_with_outer_capture():
    def fn():
        n = static.data("n", [], "int64")
        scale = n * 10

        def outer_body(i, total):
            _, total = while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + scale),
                                  [paddle.zeros([], "int64"), total])
            return i + 1, total

        zero = paddle.zeros([], "int64")
        return while_loop(lambda i, t: i < n, outer_body, [zero, zero])

    main, fetch = build(fn)
    assert count_ops(main, "while") == 2
    i, total = run(main, fetch, n=np.array(3))
    assert int(i) == 3 and int(total) == (0 + 1 + 2) * 30
    i, total = run(main, fetch, n=np.array(0))
    assert int(i) == 0 and int(total) == 0


def test_cond_nested_in_cond():
    def fn():
        x = static.data("x", [], "float32")
        return [cond(x > 0, lambda: cond(x > 10, lambda: x * 100.0, lambda: x * 10.0),
                     lambda: -x)]

    main, fetch = build(fn)
    assert [float(run(main, fetch, x=np.array(v, "float32"))[0]) for v in (20, 2, -3)] == \
        [2000.0, 20.0, 3.0]


def test_eager_tensor_as_loop_var_and_branch_output():
    w = paddle.to_tensor(np.array(2.0, "float32"))

    def fn():
        x = static.data("x", [], "float32")
        (grown,) = while_loop(lambda v: v < x, lambda v: [v * w], [w])
        picked = cond(x > 5, lambda: w, lambda: x)
        return [grown, picked]

    main, fetch = build(fn)
    assert [float(v) for v in run(main, fetch, x=np.array(10.0, "float32"))] == [16.0, 2.0]
    assert [float(v) for v in run(main, fetch, x=np.array(1.0, "float32"))] == [2.0, 1.0]


def test_python_number_loop_vars_become_tensors():
    def fn():
        x = static.data("x", [], "float32")
        i, s, tag = while_loop(lambda i, s, tag: s < x, lambda i, s, tag: (i + 1, s + 1.5, tag),
                               [0, 0.0, "keep"])
        assert tag == "keep"
        return [i, s]

    main, fetch = build(fn)
    i, s = run(main, fetch, x=np.array(4.0, "float32"))
    assert int(i) == 3 and float(s) == 4.5
    assert i.dtype == np.int64 and s.dtype == np.float32


@pytest.mark.parametrize("n", [0, 1, 4])
def test_a_python_number_loop_var_takes_the_shape_the_loop_computes(n):
    def fn():
        x = static.data("x", [3], "float32")
        k = static.data("k", [], "int64")
        _, acc = while_loop(lambda i, acc: i < k, lambda i, acc: (i + 1, acc + x * 2.0), [0, 0])
        return [acc]

    main, fetch = build(fn)
    x = np.array([1.0, -2.0, 0.5], "float32")
    (acc,) = run(main, fetch, x=x, k=np.array(n))
    assert acc.dtype == np.float32 and acc.shape == (3,)
    np.testing.assert_array_equal(acc, x * np.float32(2.0) * n)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_number_becoming_a_tensor_of_unknown_shape_starts_as_ones_of_its_rank(n):
    # the number is broadcast as the loop's arithmetic would broadcast it: before the first
    # turn it has size 1 where the dim is unknown, so a zero-trip loop leaves a value that
    # broadcasts like the number itself
    def fn():
        x = static.data("x", [None], "float32")
        k = static.data("k", [], "int64")
        return list(while_loop(lambda i, acc: i < k, lambda i, acc: (i + 1, acc + x), [0, 0]))
    main, fetch = build(fn)
    x = np.array([1.0, -2.0, 0.5, 4.0], "float32")
    i, acc = run(main, fetch, x=x, k=np.array(n))
    assert int(i) == n and acc.dtype == np.float32
    np.testing.assert_array_equal(acc + x, x * (n + 1))
    assert acc.shape == ((4,) if n else (1,))
