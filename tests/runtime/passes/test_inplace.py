"""Buffer reuse (numpy out=) keeps results identical: it never writes a feed, a parameter, a
hoisted constant, a view's base while the view lives, or a value read later."""
import numpy as np
from random_programs import check_pass

import dy2st as paddle
from dy2st import static
from dy2st.runtime.executor import CompiledProgram
from dy2st.runtime.passes.dce import eliminate_dead_code
from dy2st.runtime.passes.inplace import reuse_buffers


def test_random_programs_identical_with_buffer_reuse():
    assert check_pass(reuse_buffers, range(80), prepare=eliminate_dead_code) >= 20


def _build(fn, shape=(2, 3)):
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", list(shape), "float32")
        outs = fn(x)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    main.feed_names, main.fetch_names = ["x"], [o.name for o in outs]
    return main


def _reused(main):
    reuse_buffers(main)
    return {op.outputs[0]: op.inputs[k] for op, k, _ in main.buffer_reuse["ops"].values()}


def test_a_chain_writes_into_dying_temporaries():
    main = _build(lambda x: paddle.tanh(paddle.tanh(x) + 1.0) * 2.0)
    plan = _reused(main)
    assert len(plan) == 3          # add, tanh, multiply; the first tanh must not write into x
    src = CompiledProgram(main, ["x"], main.fetch_names).source
    assert src.count("out=") == 3
    x = np.full((2, 3), 0.5, "float32")
    out = CompiledProgram(main, ["x"], main.fetch_names)([x])[0]
    np.testing.assert_array_equal(out, np.tanh(np.tanh(x) + np.float32(1)) * np.float32(2))
    np.testing.assert_array_equal(x, np.full((2, 3), 0.5, "float32"))


def test_a_live_view_blocks_reuse_of_its_base():
    def fn(x):
        t = paddle.tanh(x)
        view = t[::-1]
        u = t + 1.0          # t dies here, but its view is read below
        return view * u
    main = _build(fn)
    plan = _reused(main)
    add_out = next(op.outputs[0] for op in main.global_block().ops if op.type == "add")
    assert add_out not in plan
    x = np.arange(6, dtype="float32").reshape(2, 3) / 6
    out = CompiledProgram(main, ["x"], main.fetch_names)([x])[0]
    t = np.tanh(x)
    np.testing.assert_array_equal(out, t[::-1] * (t + np.float32(1)))


def test_fetched_values_and_parameters_are_never_written():
    w = paddle.to_tensor(np.ones((2, 3), "float32"))

    def fn(x):
        a = paddle.tanh(x)
        b = a + w
        return [a, b * 2.0]
    main = _build(fn)
    plan = _reused(main)
    assert all(src not in main.fetch_names and src not in main.persistables for src in plan.values())
    before = w.numpy().copy()
    CompiledProgram(main, ["x"], main.fetch_names)([np.zeros((2, 3), "float32")])
    np.testing.assert_array_equal(w.numpy(), before)


def test_plan_ignored_for_other_fetch_lists():
    main = _build(lambda x: paddle.tanh(paddle.tanh(x) + 1.0))
    reuse_buffers(main)
    inner = next(op.outputs[0] for op in main.global_block().ops if op.type == "tanh")
    src = CompiledProgram(main, ["x"], [inner] + main.fetch_names).source
    assert "out=" not in src


def test_a_float64_comparison_never_writes_its_bool_result_into_a_float_buffer():
    # numpy holds `None == np.dtype("float64")` true: a bool output once passed the dtype check
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [3], "float64")
        y = static.data("y", [3], "float64")
        c = paddle.tanh(x) > y
    main.feed_names, main.fetch_names = ["x", "y"], [c.name]
    assert _reused(main) == {}
    out = CompiledProgram(main, ["x", "y"], [c.name])([np.ones(3), np.zeros(3)])[0]
    assert out.dtype == np.bool_ and out.tolist() == [True] * 3


def test_float64_chains_still_write_in_place():
    main = _build(lambda x: paddle.tanh(paddle.tanh(paddle.cast(x, "float64"))) + 1.0)
    assert len(_reused(main)) == 2          # the second tanh into the first one's, the add too


# Ops with a registered into-kernel (registry.INTO: relu, gelu) join the plan like ufuncs.
def _gelu_relu_chain(x, approximate=False):
    h = paddle.tanh(x)                                   # fresh: gelu may write into it
    g = paddle.nn.functional.gelu(h, approximate=approximate)
    return paddle.nn.functional.relu(g - 0.1)


def test_into_kernels_write_into_dying_inputs():
    import scipy.special as sp
    for approximate in (False, True):
        main = _build(lambda x: _gelu_relu_chain(x, approximate), shape=(3, 40000))
        plan = _reused(main)
        types = {op.type for op in main.global_block().ops if op.outputs[0] in plan}
        assert {"gelu", "relu"} <= types
        x = np.random.default_rng(0).standard_normal((3, 40000)).astype("float32")
        x_before = x.copy()
        out = CompiledProgram(main, ["x"], main.fetch_names)([x])[0]
        np.testing.assert_array_equal(x, x_before)
        t = np.tanh(x.astype(np.float64))
        if approximate:
            g = 0.5 * t * (1 + np.tanh(np.sqrt(2 / np.pi) * (t + 0.044715 * t ** 3)))
        else:
            g = 0.5 * t * (1 + sp.erf(t / np.sqrt(2)))
        np.testing.assert_allclose(out, np.maximum(g - 0.1, 0), rtol=1e-5, atol=1e-6)


def test_into_kernels_never_write_a_feed_or_a_value_read_later():
    def fn(x):
        g = paddle.nn.functional.gelu(x)                 # x is a feed: never written
        h = paddle.tanh(x)
        r = paddle.nn.functional.relu(h)                 # h is read again below
        return g + r * h
    main = _build(fn)
    plan = _reused(main)
    assert not {op.type for op in main.global_block().ops if op.outputs[0] in plan} & {"gelu", "relu"}
    x = np.linspace(-2, 2, 6).astype("float32").reshape(2, 3)
    x_before = x.copy()
    out = CompiledProgram(main, ["x"], main.fetch_names)([x])[0]
    np.testing.assert_array_equal(x, x_before)
    eager = fn(paddle.to_tensor(x)).numpy()
    np.testing.assert_array_equal(out, eager)


def test_linear_and_conv_results_are_fresh_buffers_for_their_activations():
    w = paddle.to_tensor(np.random.default_rng(1).standard_normal((6, 6)).astype("float32"))
    k = paddle.to_tensor(np.random.default_rng(2).standard_normal((2, 1, 3, 3)).astype("float32"))

    def fn(x):
        h = paddle.nn.functional.gelu(paddle.nn.functional.linear(x, w))
        img = paddle.reshape(h, [1, 1, 6, 6])
        return paddle.nn.functional.relu(paddle.nn.functional.conv2d(img, k, padding=1))
    main = _build(fn, shape=(6, 6))
    plan = _reused(main)
    types = {op.type for op in main.global_block().ops if op.outputs[0] in plan}
    assert {"gelu", "relu"} <= types
    x = np.random.default_rng(0).standard_normal((6, 6)).astype("float32")
    x_before = x.copy()
    out = CompiledProgram(main, ["x"], main.fetch_names)([x])[0]
    np.testing.assert_array_equal(x, x_before)
    np.testing.assert_allclose(out, fn(paddle.to_tensor(x)).numpy(), rtol=1e-6, atol=1e-6)


def test_softmax_and_layer_norm_write_into_their_dying_inputs():
    rng = np.random.default_rng(3)
    w, b = (paddle.to_tensor(rng.standard_normal(8).astype("float32")) for _ in range(2))

    def fn(x):
        s = paddle.nn.functional.softmax(paddle.matmul(x, x, transpose_y=True) * 0.5, axis=-1)
        h = paddle.matmul(s, x) + x                        # fresh, dies at layer_norm
        return paddle.nn.functional.layer_norm(h, 8, w, b)
    main = _build(fn, shape=(2, 64, 8))
    plan = _reused(main)
    types = {op.type for op in main.global_block().ops if op.outputs[0] in plan}
    assert {"softmax", "layer_norm"} <= types
    for scale in (1.0, 40.0):             # 40: scores past exp's range take the shifted softmax
        x = (rng.standard_normal((2, 64, 8)) * scale).astype("float32")
        x_before = x.copy()
        out = CompiledProgram(main, ["x"], main.fetch_names)([x])[0]
        np.testing.assert_array_equal(x, x_before)
        np.testing.assert_allclose(out, fn(paddle.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-5)
