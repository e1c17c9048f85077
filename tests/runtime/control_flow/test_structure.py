"""The one reading of a cond / while op (runtime/control_flow/structure.py) that the numpy
executor, the ONNX exporter and the XLA backend share: its parts match the op, and the three
consumers agree with eager execution on nested cond / while programs, on every path and on
zero, one and several turns."""
import importlib.util

import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.control_flow.structure import (
    BLOCK_ATTRS,
    cond_parts,
    is_control_flow,
    sub_blocks,
    while_parts,
)
from tests.onnx.checks import spec
from tests.support import flat_results, onnx_outputs

HAS_JAX = importlib.util.find_spec("jax") is not None
HAS_ORT = importlib.util.find_spec("onnxruntime") is not None and \
    importlib.util.find_spec("onnx") is not None


def cond_in_while(x, n):
    i = paddle.zeros([], "int64")
    while i < n:                      # trip count from the data: 0, 1 or more turns
        if x.sum() > 0:
            x = x - 1.5
        else:
            x = x * 2.0 + 1.0
        i = i + 1
    return x, i


def while_in_cond(x, n):
    if x.mean() > 0:
        i = paddle.zeros([], "int64")
        while i < n:
            x = x * 0.5
            i = i + 1
    else:
        x = x - n.astype("float32")
    return x


def nested_whiles(x, n):
    i = paddle.zeros([], "int64")
    total = paddle.zeros([], "float32")
    while i < n:
        j = paddle.zeros([], "int64")
        while j < i:
            total = total + x[0]
            j = j + 1
        i = i + 1
    return total + x.sum()


PROGRAMS = [cond_in_while, while_in_cond, nested_whiles]
INPUTS = [(np.array([1.0, 2.0], "float32"), 0), (np.array([1.0, 2.0], "float32"), 1),
          (np.array([-1.0, 0.5], "float32"), 3), (np.array([0.25, -2.0], "float32"), 2)]


def args_of(x, n):
    return paddle.to_tensor(x), paddle.to_tensor(np.array(n, "int64"))


def traced_program(fn):
    static = paddle.jit.to_static(fn, input_spec=[paddle.static.InputSpec([2], "float32"),
                                                  paddle.static.InputSpec([], "int64")])
    return static.concrete_program.program


def control_ops(program):
    return [op for block in program.blocks for op in block.ops if is_control_flow(op)]


@pytest.mark.parametrize("fn", PROGRAMS)
def test_parts_read_the_op(fn):
    program = traced_program(fn)
    ops = control_ops(program)
    assert {op.type for op in ops} >= {"while"}
    for op in ops:
        blocks = sub_blocks(program, op)
        assert [b.idx for b in blocks] == [op.attrs[k] for k in BLOCK_ATTRS[op.type]]
        assert sorted(b.idx for b in blocks) == sorted(op.sub_blocks())
        if op.type == "cond":
            parts = cond_parts(program, op)
            assert parts.pred == op.inputs[0] and list(parts.operands) == op.inputs[1:]
            for branch in parts.branches:
                assert len(branch.params) == len(parts.operands)
                assert len(branch.results) == len(parts.outputs)
        else:
            parts = while_parts(program, op)
            carried, invariant = parts.split(op.inputs)
            assert (tuple(carried), tuple(invariant)) == (parts.inits, parts.invariants)
            assert len(parts.outputs) == parts.n_carried == len(parts.body_block.results)
            assert len(parts.cond_block.params) == len(op.inputs)
            assert len(parts.body_block.params) == len(op.inputs)


def test_parts_refuse_other_ops():
    program = traced_program(cond_in_while)
    op = next(op for op in program.global_block().ops if not is_control_flow(op))
    assert sub_blocks(program, op) == []
    with pytest.raises(ValueError, match="is not a cond op"):
        cond_parts(program, op)
    with pytest.raises(ValueError, match="is not a while op"):
        while_parts(program, op)


def expected(fn, x, n):
    return flat_results(fn(*args_of(x, n)))


@pytest.mark.parametrize("fn", PROGRAMS)
def test_numpy_executor_agrees_with_eager(fn):
    static = paddle.jit.to_static(fn)
    for x, n in INPUTS:
        got = flat_results(static(*args_of(x, n)))
        for g, w in zip(got, expected(fn, x, n)):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=1e-6)


@pytest.mark.skipif(not HAS_JAX, reason="jax is not installed (pip install 'dy2st[xla]')")
@pytest.mark.parametrize("fn", PROGRAMS)
def test_xla_backend_agrees_with_eager(fn):
    static = paddle.jit.to_static(fn, backend="xla")
    for x, n in INPUTS:
        got = flat_results(static(*args_of(x, n)))
        for g, w in zip(got, expected(fn, x, n)):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=1e-6)
    assert static._last.compiled.fallback is None     # ran on XLA, not the numpy fallback


@pytest.mark.skipif(not HAS_ORT, reason="onnx and onnxruntime are not installed")
@pytest.mark.parametrize("fn", PROGRAMS)
def test_onnx_export_agrees_with_eager(fn, tmp_path):
    path = str(tmp_path / "m")
    x0, n0 = INPUTS[0]
    paddle.onnx.export(fn, path, input_spec=[spec(x0), spec(np.array(n0, "int64"))])
    for x, n in INPUTS:
        got = onnx_outputs(path + ".onnx", x, np.array(n, "int64"))
        want = expected(fn, x, n)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-6)
