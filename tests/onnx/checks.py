"""The check every ONNX lowering test makes: export a function, run the model in onnxruntime on
several input sets and compare with eager mode (same shapes, dtypes and values)."""
import numpy as np

import dy2st as paddle
from tests.support import flat_results, onnx_outputs


def spec(a, dynamic_first=False):
    shape = list(a.shape)
    if dynamic_first and shape:
        shape[0] = None
    return paddle.static.InputSpec(shape, str(a.dtype))


def check(tmp_path, fn, *input_sets, dynamic_first=False, rtol=1e-5, atol=1e-6, opset_version=None):
    path = str(tmp_path / "m")
    paddle.onnx.export(fn, path, input_spec=[spec(a, dynamic_first) for a in input_sets[0]],
                       opset_version=opset_version)
    for arrays in input_sets:
        want = flat_results(fn(*[paddle.to_tensor(a) for a in arrays]))
        got = onnx_outputs(path + ".onnx", *arrays)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, (g.dtype, w.dtype, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
