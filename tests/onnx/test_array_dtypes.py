"""Tensor arrays of every dtype built in tensor loops and under tensor ifs export with sequences
of that element type (issue 32): each model passes check_model(full_check=True) and matches
eager in onnxruntime at opsets 13, 18 and 21."""
import os

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

DTYPES = ["int32", "int64", "bool", "float16", "float32", "float64"]
OPSETS = [13, 18, 21]


def for_range(n):
    vals = []
    for i in range(n):
        vals.append(paddle.cast(paddle.to_tensor(i) * 3 + 1, DTYPE))
    return paddle.cast(vals[2], "float64")


def while_loop(n):
    vals = []
    i = paddle.zeros([], "int64")
    while i < n:
        vals.append(paddle.cast(i * 2 + 1, DTYPE))
        i = i + 1
    return paddle.cast(vals[1], "float64")


def under_if(n):
    vals = [paddle.cast(n, DTYPE)]
    if n > 2:
        vals.append(paddle.cast(n * 5, DTYPE))
    else:
        vals.append(paddle.cast(n - 1, DTYPE))
    return paddle.cast(vals[1], "float64")


DTYPE = "float32"


@pytest.mark.parametrize("fn", [for_range, while_loop, under_if], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", DTYPES)
def test_array_of_dtype_exports_and_matches_eager(tmp_path, fn, dtype, monkeypatch):
    monkeypatch.setitem(globals(), "DTYPE", dtype)
    n = np.array(4, dtype=np.int64)
    want = fn(paddle.to_tensor(n)).numpy()
    for opset in OPSETS:
        st = paddle.jit.to_static(fn, input_spec=[InputSpec([], "int64", "n")])
        path = str(tmp_path / f"{fn.__name__}_{dtype}_{opset}")
        paddle.onnx.export(st, path, input_spec=[InputSpec([], "int64", "n")],
                           opset_version=opset)
        model = onnx.load(path + ".onnx")
        onnx.checker.check_model(model, full_check=True)
        sess = ort.InferenceSession(path + ".onnx", providers=["CPUExecutionProvider"])
        (got,) = sess.run(None, {sess.get_inputs()[0].name: n})
        np.testing.assert_allclose(got, want, rtol=1e-3, err_msg=f"{dtype} opset {opset}")
        assert os.path.getsize(path + ".onnx") > 0
