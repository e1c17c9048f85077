"""The issue-13 tensor functions (compositions of lowered ops) and the det lowering, exported to
ONNX with an unknown batch dim and run in onnxruntime against eager mode."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import flat_results, onnx_outputs

X = np.random.default_rng(2).standard_normal((3, 4)).astype("float32")
SQ = (np.random.default_rng(3).standard_normal((2, 3, 3)) + 2 * np.eye(3)).astype("float32")


def _functions(x):
    values, idx = paddle.cummax(x, axis=1)
    return (values, idx, paddle.median(x, axis=1), paddle.masked_scatter(x, x > 0, x * 3.0),
            paddle.searchsorted(paddle.to_tensor([-0.5, 0.0, 0.5]), x), paddle.atan2(x, x + 0.5),
            paddle.kron(x, paddle.ones([2, 1])), paddle.diff(x, axis=1), paddle.nansum(x, axis=0))


@pytest.mark.parametrize("fn,arrays", [(_functions, [X]), (paddle.linalg.det, [SQ])],
                         ids=["compositions", "det"])
def test_export_matches_eager(tmp_path, fn, arrays):
    path = str(tmp_path / "m")
    spec = [paddle.static.InputSpec([None] + list(a.shape[1:]), str(a.dtype)) for a in arrays]
    paddle.onnx.export(fn, path, input_spec=spec)
    want = flat_results(fn(*[paddle.to_tensor(a) for a in arrays]))
    got = onnx_outputs(path + ".onnx", *arrays)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
