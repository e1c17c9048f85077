"""paddle.vision.ops exported to ONNX and run in onnxruntime: roi_align (RoiAlign), nms in its
three forms (NonMaxSuppression), the ops built from other ops (yolo_box, box_coder), and a
clear refusal for the ones ONNX has no operator for."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.onnx import NotExportableError
from dy2st.vision import ops as vops
from tests.onnx.checks import check

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 9, 11)).astype("float32")
BOXES = np.array([[1, 1, 6, 7], [0.3, 2.2, 10.5, 8.9], [-2, -1, 3, 4], [2, 3, 8, 8]], "float32")


def sub(tmp_path, name):
    path = tmp_path / name
    path.mkdir()
    return path


def boxes_scores(n, seed):
    rng = np.random.default_rng(seed)
    lo = rng.uniform(0, 10, (n, 2))
    boxes = np.concatenate([lo, lo + rng.uniform(1, 5, (n, 2))], 1).astype("float32")
    return boxes, rng.permutation(n).astype("float32") / n      # distinct scores


@pytest.mark.parametrize("ratio,aligned", [(-1, True), (2, False)])
def test_roi_align(tmp_path, ratio, aligned):
    def f(x, boxes, num):
        return vops.roi_align(x, boxes, num, (3, 2), 0.5, ratio, aligned)
    check(tmp_path, f, (X, BOXES, np.array([3, 1], "int32")),
          (X, BOXES[:2], np.array([1, 1], "int32")), dynamic_first=True, rtol=1e-4, atol=1e-5)


def test_nms_plain_scored_and_per_category(tmp_path):
    sets = [boxes_scores(20, 1), boxes_scores(9, 2)]
    check(sub(tmp_path, "plain"), lambda b: vops.nms(b, 0.3), *[(b,) for b, _ in sets],
          dynamic_first=True)
    check(sub(tmp_path, "scored"), lambda b, s: vops.nms(b, 0.3, s), *sets, dynamic_first=True)
    cats = [np.random.default_rng(3).integers(0, 3, len(s)).astype("int64") for _, s in sets]

    def per_category(b, s, c):
        return vops.nms(b, 0.2, s, c, [0, 2], top_k=5)
    check(sub(tmp_path, "cats"), per_category, *[(b, s, c) for (b, s), c in zip(sets, cats)],
          dynamic_first=True)


def test_ops_built_from_ops_export(tmp_path):
    x = RNG.standard_normal((1, 2 * 7, 3, 4)).astype("float32")

    def head(x, img):
        return vops.yolo_box(x, img, [10, 13, 16, 30], 2, 0.3, 8)
    check(sub(tmp_path, "yolo"), head, (x, np.array([[60, 80]], "int32")), rtol=1e-4, atol=1e-4)

    def decode(prior, deltas):
        return vops.box_coder(prior, [0.1, 0.1, 0.2, 0.2], deltas, "decode_center_size")
    check(sub(tmp_path, "coder"), decode, (BOXES, RNG.standard_normal((2, 4, 4)).astype("float32")),
          rtol=1e-5, atol=1e-5)


def test_ops_without_an_onnx_operator_are_refused_by_name(tmp_path):
    def pool(x, boxes, num):
        return vops.roi_pool(x, boxes, num, 2)
    spec = [paddle.static.InputSpec([2, 3, 9, 11], "float32"),
            paddle.static.InputSpec([4, 4], "float32"), paddle.static.InputSpec([2], "int32")]
    with pytest.raises(NotExportableError, match="roi_pool"):
        paddle.onnx.export(pool, str(tmp_path / "m"), input_spec=spec)
