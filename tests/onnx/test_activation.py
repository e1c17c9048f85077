"""The activations added after the first export, exported to ONNX and compared with eager mode
over large, small, negative and threshold-edge values, float32 and float64."""
import numpy as np
import pytest

import dy2st.nn.functional as F
from tests.onnx.checks import check
from tests.support import randn

ACTIVATIONS = {
    "softsign": F.softsign,
    "log_sigmoid": F.log_sigmoid,
    "hardshrink": lambda x: (F.hardshrink(x), F.hardshrink(x, threshold=1.5)),
    "softshrink": lambda x: (F.softshrink(x), F.softshrink(x, threshold=2.0)),
    "tanhshrink": F.tanhshrink,
    "thresholded_relu": lambda x: (F.thresholded_relu(x), F.thresholded_relu(x, 0.5, -2.0)),
    "selu": lambda x: (F.selu(x), F.selu(x, scale=1.5, alpha=0.5)),
    "celu": lambda x: (F.celu(x), F.celu(x, alpha=2.5), F.celu(x, alpha=-0.5)),
    "glu": lambda x: (F.glu(x), F.glu(x, axis=1)),
}
# thresholds themselves, either side of them, and values where exp overflows
EDGES = np.array([0.5, -0.5, 1.5, -1.5, 2.0, -2.0, 1.0, 0.0, 90.0, -90.0, 1e-4, -1e-4])


# float32: eager's glu (a tanh formula) loses ~3e-4 relative accuracy where sigmoid is tiny
TOLERANCE = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-9, atol=1e-12)}


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")   # eager celu(-90)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation(tmp_path, name, dtype):
    edges = np.resize(EDGES, (2, 4, 6)).astype(dtype)
    check(tmp_path, ACTIVATIONS[name], (randn(1, 2, 4, 6, scale=3.0, dtype=dtype),), (edges,),
          (randn(2, 2, 4, 6, scale=40.0, dtype=dtype),), **TOLERANCE[dtype])
