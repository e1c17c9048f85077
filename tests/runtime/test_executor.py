"""The compiled executor: caching, run-time parameters, error re-raising, generated source,
and static shape inference with unknown dims."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import static
from dy2st.runtime.executor import compile_program
from dy2st.runtime.passes.inplace import reuse_buffers
from dy2st.tensor import array_read, array_write, create_array


def build(fn):
    main = static.Program()
    with static.program_guard(main):
        fetch = fn()
    return main, fetch


def test_compiled_callable_is_cached_on_the_program():
    def fn():
        x = static.data("x", [2], "float32")
        return [x * 2.0]

    main, fetch = build(fn)
    exe = static.Executor()
    exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=fetch)
    first = compile_program(main, ["x"], [fetch[0].name])
    out = exe.run(main, feed={"x": np.full(2, 3.0, "float32")}, fetch_list=fetch)
    assert compile_program(main, ["x"], [fetch[0].name]) is first
    assert len(main._compiled) == 1
    np.testing.assert_allclose(out[0], [6.0, 6.0])


def test_cache_is_invalidated_when_the_program_grows():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [2], "float32")
        y = x + 1.0
    first = compile_program(main, ["x"], [y.name])
    with static.program_guard(main):
        z = y * 3.0
    assert compile_program(main, ["x"], [y.name]) is not first
    out = static.Executor().run(main, feed={"x": np.zeros(2, "float32")}, fetch_list=[z])
    np.testing.assert_allclose(out[0], [3.0, 3.0])


def test_parameters_are_read_at_run_time():
    w = paddle.to_tensor(np.ones((2, 2), "float32"))

    def fn():
        x = static.data("x", [None, 2], "float32")
        return [paddle.matmul(x, w)]

    main, fetch = build(fn)
    exe = static.Executor()
    feed = {"x": np.ones((1, 2), "float32")}
    np.testing.assert_allclose(exe.run(main, feed=feed, fetch_list=fetch)[0], [[2, 2]])
    w.set_value(np.full((2, 2), 3.0, "float32"))
    np.testing.assert_allclose(exe.run(main, feed=feed, fetch_list=fetch)[0], [[6, 6]])
    w._value = np.full((2, 2), 5.0, "float32")
    np.testing.assert_allclose(exe.run(main, feed=feed, fetch_list=fetch)[0], [[10, 10]])
    assert "T" in compile_program(main, ["x"], [fetch[0].name]).source   # read, not a constant


def test_parameter_captured_inside_a_sub_block_is_read_at_run_time():
    w = paddle.to_tensor(np.array(2.0, "float32"))

    def fn():
        x = static.data("x", [], "float32")
        return [static.nn.cond(x > 0, lambda: x * w, lambda: x)]

    main, fetch = build(fn)
    exe = static.Executor()
    assert float(exe.run(main, feed={"x": np.array(3.0)}, fetch_list=fetch)[0]) == 6.0
    w.set_value(np.array(10.0, "float32"))
    assert float(exe.run(main, feed={"x": np.array(3.0)}, fetch_list=fetch)[0]) == 30.0


def test_runtime_failure_names_op_and_user_line():
    def fn():
        x = static.data("x", [None, 2], "float32")
        return [x.reshape([3, -1])]    # impossible when the batch is 4

    main, fetch = build(fn)
    exe = static.Executor()
    ok = exe.run(main, feed={"x": np.ones((3, 2), "float32")}, fetch_list=fetch)
    assert ok[0].shape == (3, 2)
    with pytest.raises(ValueError) as err:
        exe.run(main, feed={"x": np.ones((4, 2), "float32")}, fetch_list=fetch)
    msg = str(err.value)
    assert "reshape(" in msg                          # the op as printed
    assert "x.reshape([3, -1])" in msg                # the user's source line
    assert "test_executor.py" in msg
    assert err.value.dy2st_origin.function == "fn"


def test_runtime_failure_keeps_exception_type_inside_a_loop():
    def fn():
        n = static.data("n", [], "int64")
        arr = array_write(paddle.ones([2], "float32"), paddle.zeros([], "int64"), create_array())
        return [array_read(arr, n)]

    main, fetch = build(fn)
    exe = static.Executor()
    assert exe.run(main, feed={"n": np.array(0)}, fetch_list=fetch)[0].tolist() == [1.0, 1.0]
    with pytest.raises(IndexError) as err:
        exe.run(main, feed={"n": np.array(5)}, fetch_list=fetch)
    assert "array_read(" in str(err.value)
    assert "array_read(arr, n)" in str(err.value)


def test_generated_source_deletes_dead_values():
    def fn():
        x = static.data("x", [4], "float32")
        a = x + 1.0
        b = a * 2.0
        c = b - 3.0
        return [c]

    main, fetch = build(fn)
    source = compile_program(main, ["x"], [fetch[0].name]).source
    # each value dies at the op making the next one, whose result overwrites it (freeing it
    # as a `del` would); the constants are read from globals, never held in locals
    assert _locals(source) == {"v0"} and "del " not in source
    assert source.startswith("def run(")
    assert "K_add(" in source and "K_multiply(" in source
    out = static.Executor().run(main, feed={"x": np.zeros(4, "float32")}, fetch_list=fetch)
    np.testing.assert_allclose(out[0], [-1.0] * 4)


def test_generated_source_deletes_values_that_are_never_read():
    def fn():
        x = static.data("x", [4], "float32")
        unused = x * 5.0
        return [x + 1.0]

    main, fetch = build(fn)
    source = compile_program(main, ["x"], [fetch[0].name]).source
    lines = source.splitlines()
    k = next(i for i, l in enumerate(lines) if "K_multiply(" in l)
    unused_name = lines[k].split("=")[0].strip()
    assert lines[k + 1].strip().startswith("del ")
    assert unused_name in lines[k + 1].replace(",", " ").split()


def _locals(source):
    import re
    return set(re.findall(r"\bv\d+\b", source))


def test_a_dying_input_lends_its_local_to_the_op_output():
    def fn():
        x = static.data("x", [4], "float32")
        h = x
        for _ in range(30):
            h = paddle.tanh(h) * paddle.sin(h)
        return [h]

    main, fetch = build(fn)
    source = compile_program(main, ["x"], [fetch[0].name]).source
    # 90 ops, but each value overwrites a value dying at the op that makes it: a few locals,
    # and a `del` only where an op has two dying inputs and one output
    assert len(_locals(source)) <= 4
    assert source.count("del ") <= 31 and len(source.splitlines()) < 140
    x = np.linspace(-1, 1, 4).astype("float32")
    want = x
    for _ in range(30):
        want = np.tanh(want) * np.sin(want)
    out = static.Executor().run(main, feed={"x": x}, fetch_list=fetch)[0]
    np.testing.assert_array_equal(out, want)


def test_each_kernel_is_bound_to_one_global_name():
    def fn():
        x = static.data("x", [4, 4], "float32")
        w = static.data("w", [4, 4], "float32")
        for _ in range(5):
            x = paddle.matmul(x, w)
        return [x]

    main, fetch = build(fn)
    compiled = compile_program(main, ["x", "w"], [fetch[0].name])
    names = [k for k, v in compiled._run.__globals__.items() if v is np.matmul]
    assert len(names) == 1 and compiled.source.count(f"{names[0]}(") == 5


def test_values_are_freed_when_they_die():
    import tracemalloc
    n = 1 << 18                       # 1 MiB of float32 per value

    def fn():
        x = static.data("x", [n], "float32")
        h = x * 2.0
        for _ in range(12):
            h = paddle.sqrt(paddle.abs(h)) + paddle.exp(-h)
        return [h]

    main, fetch = build(fn)
    compiled = compile_program(main, ["x"], [fetch[0].name])
    x = np.full(n, 0.5, "float32")
    compiled([x])
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        out = compiled([x])
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    # at most a few values live at once (48 ops: without freeing it would be ~48 MiB)
    assert peak < 5 * 4 * n
    assert out[0].shape == (n,)


def test_blocks_nested_deeper_than_inlining_become_functions():
    from dy2st.runtime import executor

    depth = executor.MAX_INLINE_DEPTH + 3

    # one branch recurses and the other stops, so the nesting is deep but the program stays
    # linear in the depth (recursing on both sides would trace 2**depth blocks)
    def nest(x, left):
        if left == 0:
            return x * 2.0
        return static.nn.cond(paddle.mean(x) > 0.0, lambda: nest(x - 0.25, left - 1),
                              lambda: x + 1.0)

    def fn():
        x = static.data("x", [3], "float32")
        return [nest(x, depth)]

    def eager(x):
        for _ in range(depth):
            if x.mean() <= 0:
                return x + np.float32(1.0)
            x = x - np.float32(0.25)
        return x * np.float32(2.0)

    main, fetch = build(fn)
    source = compile_program(main, ["x"], [fetch[0].name]).source
    assert "def B" in source
    # stops at once, stops part way down, and runs to the innermost block
    for start in (-2.0, 0.1, 1.2, 3.0):
        x = np.array([start, start + 0.5, start - 0.5], "float32")
        out = static.Executor().run(main, feed={"x": x}, fetch_list=fetch)[0]
        np.testing.assert_array_equal(out, eager(x))


def test_sub_blocks_are_compiled_into_the_one_generated_function():
    def fn():
        i = static.data("i", [], "int64")
        (out,) = static.nn.while_loop(lambda v: v < 10, lambda v: [v * 2], [i])
        return [out]

    main, fetch = build(fn)
    source = compile_program(main, ["i"], [fetch[0].name]).source
    # the loop's condition and body are written inline: a Python while, no call per iteration
    assert "while True:" in source and "break" in source and "def B" not in source
    assert int(static.Executor().run(main, feed={"i": np.array(1)}, fetch_list=fetch)[0]) == 16


def test_branch_and_loop_results_are_written_straight_into_their_locals():
    import re

    def fn():
        x = static.data("x", [3], "float32")
        i = static.data("i", [], "int64")

        def body(i, x):
            y = static.nn.cond(paddle.mean(x) > 0.0, lambda: paddle.tanh(x) - 1.0,
                               lambda: paddle.exp(x) * 0.5)
            return [i + 1, y]
        return static.nn.while_loop(lambda i, x: i < 6, body, [i, x])

    main, fetch = build(fn)
    source = compile_program(main, ["x", "i"], [f.name for f in fetch]).source
    moves = re.findall(r"^\s*(v\d+(?:, v\d+)*),? = (v\d+(?:, v\d+)*),?$", source, re.M)
    # the loop's initial values, and y: a cond result, while the cond reads x inside it, so y
    # cannot be made in x's local; branch results are made in place, the counter by a for loop
    assert len(moves) == 2, source
    assert re.search(r"^\s*for (v\d+) in v\d+:$", source, re.M), source
    for start in (-1.0, 0.5):
        x = np.array([start, 0.2, -0.3], "float32")
        want = x
        for _ in range(6):
            want = np.tanh(want) - np.float32(1) if want.mean() > 0 else np.exp(want) * np.float32(0.5)
        outs = static.Executor().run(main, feed={"x": x, "i": np.array(0)}, fetch_list=fetch)
        assert int(outs[0]) == 6
        np.testing.assert_array_equal(outs[1], want)


def test_run_time_error_names_its_op_when_a_constant_op_follows():
    def fn():
        x = static.data("x", [None, None], "float32")
        w = static.data("w", [None, None], "float32")
        y = paddle.matmul(x, w)                        # no input dies here: no `del` line after
        return [y + paddle.full([], 1.0, "float32"), x, w]   # full is hoisted: no line of its own

    main, fetch = build(fn)
    with pytest.raises(ValueError) as err:
        static.Executor().run(main, feed={"x": np.ones((2, 3), "float32"), "w": np.ones((2, 3), "float32")},
                              fetch_list=fetch)
    assert "= matmul(" in str(err.value) and "= full(" not in str(err.value)


def test_feed_shape_and_name_are_checked():
    def fn():
        x = static.data("x", [None, 3], "float32")
        return [x + 1.0]

    main, fetch = build(fn)
    exe = static.Executor()
    with pytest.raises(ValueError, match=r"feed 'x' has shape \[2, 4\].*\[-1, 3\]"):
        exe.run(main, feed={"x": np.ones((2, 4), "float32")}, fetch_list=fetch)
    with pytest.raises(KeyError, match="'nope'"):
        exe.run(main, feed={"nope": np.ones(3)}, fetch_list=fetch)
    out = exe.run(main, feed={"x": np.ones((2, 3), "float64")}, fetch_list=fetch)
    assert out[0].dtype == np.float32                    # feeds are cast to the declared dtype


def test_return_numpy_false_gives_tensors():
    main, fetch = build(lambda: [static.data("x", [2], "int64") * 2])
    out = static.Executor().run(main, feed={"x": np.array([1, 2])}, fetch_list=fetch,
                                return_numpy=False)
    assert isinstance(out[0], paddle.Tensor) and out[0].tolist() == [2, 4]


# ----------------------------------------------------------------------------- shape inference
def test_shape_inference_propagates_unknown_dims():
    def fn():
        x = static.data("x", [None, 4], "float32")
        w = paddle.ones([4, 5], "float32")
        y = paddle.matmul(x, w)
        s = y.sum(axis=1)
        t = paddle.concat([x, x], axis=0)
        return [y, s, t]

    main, (y, s, t) = build(fn)
    assert y._shape == (-1, 5) and y.dtype == "float32"
    assert s._shape == (-1,)
    assert t._shape == (-1, 4)
    outs = static.Executor().run(main, feed={"x": np.ones((3, 4), "float32")}, fetch_list=[y, s, t])
    assert [o.shape for o in outs] == [(3, 5), (3,), (6, 4)]


def test_definite_shape_mismatch_raises_at_build_time():
    def fn():
        return [paddle.matmul(static.data("a", [3, 4]), static.data("b", [5, 6]))]

    with pytest.raises(ValueError, match=r"matmul.*\[3, 4\].*\[5, 6\]"):
        build(fn)


def test_variable_shape_gives_ints_and_int64_variables():
    seen = {}

    def fn():
        x = static.data("x", [None, 3], "float32")
        shape = x.shape
        seen["shape"] = shape
        seen["full"] = paddle.shape(x)
        return [shape[0] * 10, seen["full"]]

    main, fetch = build(fn)
    shape = seen["shape"]
    assert isinstance(shape, list) and shape[1] == 3 and type(shape[1]) is int
    assert isinstance(shape[0], static.Variable)
    assert shape[0].dtype == "int64" and shape[0]._shape == ()
    assert seen["full"].dtype == "int64" and seen["full"]._shape == (2,)
    first, full = static.Executor().run(main, feed={"x": np.zeros((7, 3), "float32")},
                                        fetch_list=fetch)
    assert int(first) == 70
    assert full.tolist() == [7, 3]


def test_known_shape_is_a_plain_list_of_ints():
    def fn():
        x = static.data("x", [2, 3], "float32")
        assert x.shape == [2, 3]
        assert x.ndim == 2 and x.size == 6
        return [x]

    main, _ = build(fn)
    assert main.num_ops() == 0


def test_a_value_read_only_by_the_next_op_is_computed_in_its_line():
    def fn():
        x = static.data("x", [4, 3], "float32")
        w = static.data("w", [3, 3], "float32")
        h = paddle.tanh(paddle.matmul(x[1:3], w) + 1.0)    # one line: getitem -> matmul -> ...
        return [h]

    main, fetch = build(fn)
    source = compile_program(main, ["x", "w"], [fetch[0].name]).source
    body = source.splitlines()[2:-1]
    assert any("[1:3," in line and "(" in line.split("[1:3")[0] for line in body)  # inside a call
    assert len(body) < len(main.global_block().ops)
    x = np.arange(12, dtype="float32").reshape(4, 3) / 10
    w = np.eye(3, dtype="float32")
    out = static.Executor().run(main, feed={"x": x, "w": w}, fetch_list=fetch)
    np.testing.assert_array_equal(out[0], np.tanh(x[1:3] @ w + np.float32(1.0)))


def test_values_of_different_user_lines_keep_their_own_statements():
    def fn():
        x = static.data("x", [4], "float32")
        a = paddle.exp(x)
        b = paddle.tanh(a)
        return [b]

    main, fetch = build(fn)
    source = compile_program(main, ["x"], [fetch[0].name]).source
    assert not any("K_exp(" in line and "tanh" in line.lower() for line in source.splitlines())


@pytest.mark.skipif(not hasattr((lambda: 0).__code__, "co_positions"),
                    reason="naming the inner op of a line needs instruction positions (3.11+)")
def test_a_failing_op_computed_inside_another_ops_line_is_the_one_named():
    def fn():
        x = static.data("x", [None, 3], "float32")
        w = static.data("w", [None, 2], "float32")
        return [paddle.tanh(paddle.matmul(x, w))]    # matmul is computed in tanh's line

    main, fetch = build(fn)
    source = compile_program(main, ["x", "w"], [fetch[0].name]).source
    assert sum("(" in line for line in source.splitlines()[2:-1]) == 1   # one fused line
    exe = static.Executor()
    with pytest.raises(ValueError) as err:
        exe.run(main, feed={"x": np.ones((2, 3), "float32"), "w": np.ones((4, 2), "float32")},
                fetch_list=fetch)
    msg = str(err.value)
    operator = msg.split("[operator ")[1].split("\n")[0]
    assert "= matmul(" in operator and "tanh" not in operator
    assert "paddle.tanh(paddle.matmul(x, w))" in msg


def test_in_place_ops_of_one_line_chain_in_one_statement():
    def fn():
        x = static.data("x", [4], "float32")
        y = static.data("y", [4], "float32")
        return [paddle.tanh(paddle.exp(x) + y)]     # exp, then add and tanh in its buffer

    main, fetch = build(fn)
    main.fetch_names = [fetch[0].name]
    reuse_buffers(main)                # plans add and tanh to write into exp's result
    source = compile_program(main, ["x", "y"], [fetch[0].name]).source
    chained = [line for line in source.splitlines() if line.count("out=") == 2]
    assert len(chained) == 1
    local = chained[0].split("=")[0].strip()
    assert chained[0].endswith(f"out={local}), out={local})")   # both write the same buffer
    x = np.array([0.0, 0.5, -1.0, 2.0], "float32")
    y = np.array([1.0, -2.0, 0.25, 0.0], "float32")
    out = static.Executor().run(main, feed={"x": x, "y": y}, fetch_list=fetch)
    np.testing.assert_array_equal(out[0], np.tanh(np.exp(x) + y))


def test_transpose_reshape_and_transposed_matmul_are_ndarray_method_calls():
    def fn():
        x = static.data("x", [2, 3, 4], "float32")
        y = static.data("y", [2, 5, 4], "float32")
        t = paddle.reshape(paddle.transpose(x, [0, 2, 1]), [2, 4, 3])
        m = paddle.matmul(x, y, transpose_y=True)                   # [2, 3, 5]
        n = paddle.matmul(m, x, transpose_x=True)                   # [2, 5, 4]
        p = paddle.matmul(y, m, transpose_x=True, transpose_y=True)  # [2, 4, 3]
        return [t, m, n, p + t]

    main, fetch = build(fn)
    source = compile_program(main, ["x", "y"], [v.name for v in fetch]).source
    assert ".transpose((0, 2, 1))" in source and ".reshape((2, 4, 3))" in source
    assert source.count(".swapaxes(-1, -2)") == 4
    assert "K_transpose" not in source and "K_reshape" not in source and "K_matmul" not in source
    rng = np.random.default_rng(0)
    x = rng.standard_normal([2, 3, 4]).astype("float32")
    y = rng.standard_normal([2, 5, 4]).astype("float32")
    t, m, n, pt = static.Executor().run(main, feed={"x": x, "y": y}, fetch_list=fetch)
    np.testing.assert_array_equal(t, np.transpose(x, [0, 2, 1]).reshape(2, 4, 3))
    np.testing.assert_array_equal(m, x @ np.swapaxes(y, -1, -2))
    np.testing.assert_array_equal(n, np.swapaxes(m, -1, -2) @ x)
    np.testing.assert_array_equal(pt, np.swapaxes(y, -1, -2) @ np.swapaxes(m, -1, -2) + t)


def test_shapes_unknown_when_compiling_keep_the_checking_kernels():
    def fn():
        x = static.data("x", [None, 6], "float32")
        return [paddle.reshape(x, [-1, 2, 3]), paddle.transpose(x, [1, 0]),
                paddle.matmul(x, x, transpose_y=True)]

    main, fetch = build(fn)
    source = compile_program(main, ["x"], [v.name for v in fetch]).source
    assert "K_reshape" in source and "K_transpose" in source and "K_matmul" in source
    x = np.arange(12, dtype="float32").reshape(2, 6)
    r, t, m = static.Executor().run(main, feed={"x": x}, fetch_list=fetch)
    np.testing.assert_array_equal(r, x.reshape(-1, 2, 3))
    np.testing.assert_array_equal(t, x.T)
    np.testing.assert_array_equal(m, x @ x.T)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shape", [[3, 4], [0, 2], [1], []])
def test_a_float_total_runs_without_the_sum_kernel_and_gives_the_kernels_result(dtype, shape):
    from dy2st.runtime.registry import OPS

    def fn():
        x = static.data("x", shape, dtype)
        return [paddle.sum(x), paddle.sum(x, axis=[]) * 2.0]

    main, fetch = build(fn)
    compiled = compile_program(main, ["x"], [f.name for f in fetch])
    assert "K_sum" not in compiled.source
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    total, doubled = compiled([x])
    want = OPS["sum"].kernel(x, axis=None, keepdim=False, dtype=None)
    assert type(total) is np.ndarray and total.shape == () and total.dtype == want.dtype
    np.testing.assert_array_equal(total, want)
    np.testing.assert_array_equal(doubled, want * want.dtype.type(2))


def test_equal_split_pieces_are_slices_and_later_in_place_writes_never_reach_them():
    def fn():
        x = static.data("x", [3, 8], "float32")
        y = paddle.tanh(x)                     # fresh: the reuse pass may write into it
        a, b = paddle.split(y, 2, axis=-1)
        c, d = paddle.split(y, [1, 2], axis=0)
        e = paddle.tanh(y) * 2.0               # y dies here while a, b still read it
        return [a + b, e, c, d]

    main, fetch = build(fn)
    reuse_buffers(main)
    compiled = compile_program(main, ["x"], [f.name for f in fetch])
    assert "[:, 0:4]" in compiled.source and "[:, 4:8]" in compiled.source
    assert "K_split" in compiled.source         # sections: the kernel
    x = np.random.default_rng(1).standard_normal((3, 8)).astype("float32")
    out = compiled([x])
    y = np.tanh(x)
    np.testing.assert_array_equal(out[0], y[:, :4] + y[:, 4:])
    np.testing.assert_array_equal(out[1], np.tanh(y) * np.float32(2))
    np.testing.assert_array_equal(out[2], y[:1])
    np.testing.assert_array_equal(out[3], y[1:])
