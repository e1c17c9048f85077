"""Bounded runs of untrusted models: `jit.load(path, max_loop_iterations=N)` lets each while loop
run N turns per call and fails turn N + 1 with a LoopLimitError naming the loop's op and the
user's line, on every code path the executor generates for a while (a counted range loop, a
general loop, a loop inside a sub-block function); unset, loops are unbounded; ONNX export of
the loaded model is unaffected."""
import json
import os
import threading

import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime import executor
from dy2st.runtime.loop_limit import LoopLimitError
from dy2st.static import InputSpec
from tests.support import source_line

HERE = os.path.abspath(__file__)


def counted(x, n):
    for _ in range(n):                               # LOOP counted
        x = x * 0.5 + 1.0
    return x


def general(x, n):
    i = paddle.zeros([], "int64")
    while i * i < n * n:                             # LOOP general
        x = x * 0.5 + 1.0
        i = i + 1
    return x


def nested(x, n):
    for _ in range(2):
        i = paddle.zeros([], "int64")
        while i * i < n * n:                         # LOOP nested
            x = x * 0.5 + 1.0
            i = i + 1
    return x


SPECS = [InputSpec([2], "float32", "x"), InputSpec([], "int64", "n")]
X = np.ones(2, np.float32)


def saved(tmp_path, fn):
    prefix = str(tmp_path / fn.__name__)
    paddle.jit.save(paddle.jit.to_static(fn, input_spec=SPECS), prefix)
    return prefix


def eager(fn, n):
    return fn(paddle.to_tensor(X), paddle.to_tensor(np.array(n))).numpy()


@pytest.mark.parametrize("fn", [counted, general, nested])
def test_the_bound_allows_n_turns_and_refuses_n_plus_one(tmp_path, fn):
    layer = paddle.jit.load(saved(tmp_path, fn), max_loop_iterations=4)
    for n in range(5):
        np.testing.assert_allclose(layer(X, np.array(n)).numpy(), eager(fn, n), rtol=1e-6)
    with pytest.raises(LoopLimitError) as info:
        layer(X, np.array(5))
    text = str(info.value)
    assert "more than 4 iterations" in text and "max_loop_iterations=4" in text, text
    assert "= while(" in text, text                       # the loop's op
    assert f'line {source_line(HERE, f"# LOOP {fn.__name__}")}' in text, text


@pytest.mark.parametrize("fn", [counted, general])
def test_the_xla_backend_leaves_a_bounded_model_to_the_numpy_executor(tmp_path, fn):
    # lax.while_loop has no turn count that can raise: a bound must not be dropped silently
    pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")
    layer = paddle.jit.load(saved(tmp_path, fn), backend="xla", max_loop_iterations=4)
    np.testing.assert_allclose(layer(X, np.array(4)).numpy(), eager(fn, 4), rtol=1e-6)
    with pytest.raises(LoopLimitError, match="max_loop_iterations=4"):
        layer(X, np.array(5))
    unbounded = paddle.jit.load(saved(tmp_path, fn), backend="xla")
    np.testing.assert_allclose(unbounded(X, np.array(9)).numpy(), eager(fn, 9), rtol=1e-6)


def test_sub_block_functions_count_turns_too(tmp_path, monkeypatch):
    """Past MAX_INLINE_DEPTH (or with inlining off) a while calls its blocks as functions."""
    monkeypatch.setattr(executor, "INLINE_WHILE", False)
    layer = paddle.jit.load(saved(tmp_path, general), max_loop_iterations=2)
    np.testing.assert_allclose(layer(X, np.array(2)).numpy(), eager(general, 2), rtol=1e-6)
    with pytest.raises(LoopLimitError, match="more than 2 iterations"):
        layer(X, np.array(3))


def test_unbounded_by_default_and_zero_allows_no_turn(tmp_path):
    prefix = saved(tmp_path, general)
    np.testing.assert_allclose(paddle.jit.load(prefix)(X, np.array(300)).numpy(),
                               eager(general, 300), rtol=1e-6)
    layer = paddle.jit.load(prefix, max_loop_iterations=0)
    np.testing.assert_allclose(layer(X, np.array(0)).numpy(), X)
    with pytest.raises(LoopLimitError):
        layer(X, np.array(1))


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_bad_bounds_are_refused(tmp_path, bad):
    with pytest.raises(ValueError, match="max_loop_iterations"):
        paddle.jit.load(saved(tmp_path, general), max_loop_iterations=bad)


def test_a_counted_loop_of_a_huge_trip_count_fails_before_its_first_turn(tmp_path):
    layer = paddle.jit.load(saved(tmp_path, counted), max_loop_iterations=1000)
    with pytest.raises(LoopLimitError):
        layer(X, np.array(10 ** 15))


def test_an_edited_model_whose_loop_never_ends(tmp_path):
    """The condition block's `i * i < n * n` made `i * i >= 0` (always true): the bound ends the
    loop, within a few seconds at most."""
    prefix = saved(tmp_path, general)
    with open(prefix + ".json", encoding="utf-8") as f:
        doc = json.load(f)
    cond_block = doc["program"]["blocks"][1]
    (compare,) = [op for op in cond_block["ops"] if op["type"] == "less_than"]
    compare["type"] = "greater_equal"
    compare["inputs"] = [compare["inputs"][0], compare["inputs"][0]]
    with open(prefix + ".json", "w", encoding="utf-8") as f:
        json.dump(doc, f)
    layer = paddle.jit.load(prefix, max_loop_iterations=10000)
    caught = []
    thread = threading.Thread(target=lambda: caught.append(_error(layer)), daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the bounded loop did not end"
    assert isinstance(caught[0], LoopLimitError), caught


def _error(layer):
    try:
        layer(X, np.array(3))
    except Exception as e:  # noqa: BLE001 - returned for the assertion
        return e
    return None


def test_onnx_export_of_a_bounded_model_is_unaffected(tmp_path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    layer = paddle.jit.load(saved(tmp_path, general), max_loop_iterations=1)
    out = str(tmp_path / "g")
    paddle.onnx.export(layer, out, opset_version=13)
    sess = ort.InferenceSession(out + ".onnx", providers=["CPUExecutionProvider"])
    feeds = dict(zip([i.name for i in sess.get_inputs()], [X, np.array(7)]))
    np.testing.assert_allclose(sess.run(None, feeds)[0], eager(general, 7), rtol=1e-6)
