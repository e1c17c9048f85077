"""paddle.vision.models through ONNX: the families whose ops are the least common here
(ShuffleNetV2's split / 5-D channel shuffle / swish, MobileNetV3's hardswish and
squeeze-excitation with hardsigmoid) exported with a None batch dim and run in onnxruntime
at two batch sizes against eager mode."""
import pytest

import dy2st as paddle
from dy2st.vision import models
from tests.onnx.checks import check
from tests.support import randn


@pytest.mark.parametrize("build", [
    lambda: models.shufflenet_v2_swish(num_classes=5),
    lambda: models.mobilenet_v3_small(scale=0.5, num_classes=5),
], ids=["shufflenet_v2_swish", "mobilenet_v3_small"])
def test_model_exports_and_runs_in_onnxruntime(build, tmp_path):
    paddle.seed(12)
    net = build()
    net.eval()
    inputs = [(randn(0, 1, 3, 32, 32),), (randn(1, 3, 3, 32, 32),)]
    check(tmp_path, net, *inputs, dynamic_first=True, rtol=1e-4, atol=1e-5)
    assert net(paddle.to_tensor(inputs[1][0])).shape == [3, 5]
