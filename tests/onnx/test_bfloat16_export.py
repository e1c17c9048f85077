"""bfloat16 programs through ONNX: BFLOAT16 tensors in the graph, each op computed in float32
between Casts as dy2st's kernels compute it, so onnxruntime's CPU gives dy2st's values bit for
bit; tensor arrays of bfloat16 values are refused naming the op and the line."""
import ctypes

import numpy as np
import pytest

import dy2st as paddle

pytest.importorskip("ml_dtypes", reason='bfloat16 needs ml_dtypes: pip install "dy2st[bf16]"')
onnx = pytest.importorskip("onnx", reason="onnx is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")


def _to_ort(a):
    if a.dtype.name != "bfloat16":
        return ort.OrtValue.ortvalue_from_numpy(a)
    # onnxruntime's Python API takes no ml_dtypes array: copy the bits into a bfloat16 OrtValue
    v = ort.OrtValue.ortvalue_from_shape_and_type(list(a.shape), onnx.TensorProto.BFLOAT16)
    bits = np.ascontiguousarray(a).view(np.uint16)
    ctypes.memmove(v.data_ptr(), bits.ctypes.data, bits.nbytes)
    return v


def _from_ort(v, bf16):
    if v.data_type() != "tensor(bfloat16)":
        return v.numpy()
    bits = np.empty(v.shape(), np.uint16)
    ctypes.memmove(bits.ctypes.data, v.data_ptr(), bits.nbytes)
    return bits.view(bf16)


def _feeds_bfloat16():
    """Whether this onnxruntime makes a bfloat16 OrtValue from Python: 1.19 (the newest on
    Python 3.9) takes numpy types only in ortvalue_from_shape_and_type, and numpy has none."""
    try:
        ort.OrtValue.ortvalue_from_shape_and_type([1], onnx.TensorProto.BFLOAT16)
    except RuntimeError:
        return False
    return True


def run_onnx(path, *arrays):
    sess = ort.InferenceSession(path)
    feeds = {i.name: _to_ort(a) for i, a in zip(sess.get_inputs(), arrays)}
    outs = sess.run_with_ort_values([o.name for o in sess.get_outputs()], feeds)
    return [_from_ort(o, paddle.bfloat16.np) for o in outs]


class Mixed(paddle.nn.Layer):
    """float32 in and out, bfloat16 inside, a branch on a bfloat16 value."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        h = x.astype("bfloat16")
        y = paddle.exp(h) * 2.0 + h
        if y.sum() > 0:
            y = y * 0.5
        return y.astype("float32"), self.fc(h.astype("float32"))


class Bf16Params(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        h = self.fc(x)
        return paddle.tanh(h) + paddle.nn.functional.relu(h), paddle.concat([h, h]).reshape([-1])


@pytest.mark.parametrize("model, in_dtype", [(Mixed, "float32"), (Bf16Params, "bfloat16")])
def test_bfloat16_programs_export_and_match_dy2st_bit_for_bit(tmp_path, model, in_dtype):
    paddle.seed(0)
    m = model()
    if in_dtype == "bfloat16":
        m.to(dtype="bfloat16")
    spec = [paddle.static.InputSpec([None, 4], in_dtype, "x")]
    path = str(tmp_path / "m")
    paddle.onnx.export(m, path, input_spec=spec)
    proto = onnx.load(path + ".onnx")
    bf16_type = onnx.TensorProto.BFLOAT16
    assert any(n.op_type == "Cast" and n.attribute[0].i == bf16_type for n in proto.graph.node)
    if in_dtype == "bfloat16":
        assert proto.graph.input[0].type.tensor_type.elem_type == bf16_type
        # the weight and the bias are stored as BFLOAT16, not widened
        assert sum(i.data_type == bf16_type for i in proto.graph.initializer) == 2
    if in_dtype == "bfloat16" and not _feeds_bfloat16():
        pytest.skip(f"onnxruntime {ort.__version__} cannot be fed a bfloat16 input from Python "
                    "(the export was checked above; 1.23 runs it)")
    static = paddle.jit.to_static(m, input_spec=spec)
    for sign in (1.0, -1.0):         # both branches of Mixed's if
        x = (paddle.randn([2, 4]) * sign).astype(in_dtype)
        want = [t.numpy() for t in static(x)]
        got = run_onnx(path + ".onnx", x.numpy())
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g.astype("float32"), w.astype("float32"))


def test_tensor_arrays_of_bfloat16_values_are_refused(tmp_path):
    def f(x):
        h = x.astype("bfloat16")
        outs = []
        for i in range(x.shape[0]):
            outs.append(h[i] * 2.0)
        return paddle.stack(outs).astype("float32")

    spec = [paddle.static.InputSpec([None, 3], "float32")]
    with pytest.raises(paddle.onnx.NotExportableError, match="bfloat16") as info:
        paddle.onnx.export(paddle.jit.to_static(f), str(tmp_path / "m"), input_spec=spec)
    assert "test_bfloat16_export.py" in str(info.value)
