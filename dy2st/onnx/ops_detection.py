"""The vision ops: roi_align as RoiAlign and greedy nms as NonMaxSuppression; the pooling and
detection ops ONNX has no operator for, and paddle.static's host-side ops (py_func, auc), are
listed with why."""
from __future__ import annotations

from typing import List

import numpy as np

from .builder import OpContext
from .table import lowers, not_exportable

not_exportable("ONNX has no position-sensitive or Paddle-style max RoI pooling with the "
               "argmax output dy2st's roi_pool gives (MaxRoiPool has no index output)",
               "roi_pool", "psroi_pool")
not_exportable("ONNX has no deformable convolution (DeformConv is opset 19 and onnxruntime "
               "does not run it)", "deform_sample")
not_exportable("ONNX has no matrix NMS or RPN proposal operator (a data-dependent pipeline "
               "of decode, clip, filter and NMS)", "matrix_nms", "generate_proposals")
not_exportable("training-only: YOLO's target assignment feeds a loss, computed in training "
               "and not in exported inference graphs", "yolo_loss_targets")
not_exportable("it calls a Python function of this process (paddle.static.py_func)", "py_func")
not_exportable("a training metric: histograms kept across runs (paddle.static.auc)", "auc")
not_exportable("training-only: the gradient of a vision op", "roi_align_grad",
               "psroi_pool_grad", "roi_pool_grad", "deform_sample_grad")


def _batch_indices(cx: OpContext, rois: str, boxes_num: str) -> str:
    """The image index of each roi from the per-image counts: #{n : cumsum[n] <= r}."""
    ends = cx.node("CumSum", [cx.cast(boxes_num, cx.dtype(2), "int64"), cx.const(0, "int64")])
    count = cx.node("Gather", [cx.node("Shape", [rois]), cx.const(0, "int64")])
    r = cx.node("Range", [cx.const(0, "int64"), count, cx.const(1, "int64")])
    past = cx.node("LessOrEqual", [cx.node("Unsqueeze", [ends, cx.ints([0])]),
                                   cx.node("Unsqueeze", [r, cx.ints([1])])])
    return cx.node("ReduceSum", [cx.cast(past, "bool", "int64"), cx.ints([1])], keepdims=0)


@lowers("roi_align", min_opset=16)
def roi_align(cx: OpContext) -> List[str]:
    ph, pw = cx.attrs["output_size"]
    ratio = int(cx.attrs["sampling_ratio"])
    rois = cx.input_as(1, cx.dtype(0))
    return [cx.node("RoiAlign", [cx.input(0), rois, _batch_indices(cx, rois, cx.input(2))],
                    mode="avg", output_height=int(ph), output_width=int(pw),
                    sampling_ratio=max(ratio, 0), spatial_scale=float(cx.attrs["spatial_scale"]),
                    coordinate_transformation_mode="half_pixel" if cx.attrs["aligned"]
                    else "output_half_pixel")]


def _selected_boxes(cx: OpContext, boxes: str, scores: str) -> str:
    """NonMaxSuppression over boxes [N, 4] and per-class scores [C, N]: the kept box indices,
    class by class, each by descending score."""
    count = cx.node("Shape", [boxes])
    n = cx.node("Slice", [count, cx.ints([0]), cx.ints([1])])
    picked = cx.node("NonMaxSuppression",
                     [cx.node("Unsqueeze", [boxes, cx.ints([0])]),
                      cx.node("Unsqueeze", [scores, cx.ints([0])]), n,
                      cx.const(np.asarray([cx.attrs["iou_threshold"]], np.float32)),
                      cx.const(np.asarray([np.finfo(np.float32).min / 2], np.float32))])
    return cx.node("Gather", [picked, cx.const(2, "int64")], axis=1)


@lowers("nms", fold=False)
def nms(cx: OpContext) -> List[str]:
    # the boxes' order is their priority: scores n, n-1, ..., 1 keep it
    boxes = cx.input_as(0, "float32")
    n = cx.node("Gather", [cx.node("Shape", [boxes]), cx.const(0, "int64")])
    rank = cx.node("Range", [cx.cast(n, "int64", "float32"), cx.const(0.0, "float32"),
                             cx.const(-1.0, "float32")])
    return [_selected_boxes(cx, boxes, cx.node("Unsqueeze", [rank, cx.ints([0])]))]


@lowers("category_nms", fold=False)
def category_nms(cx: OpContext) -> List[str]:
    # one ONNX class per listed category: a box scores only in its own (elsewhere far below
    # the score threshold, so it neither survives nor suppresses there)
    boxes = cx.input_as(0, "float32")
    scores = cx.input_as(1, "float32")
    cats = cx.const(np.asarray(cx.attrs["categories"], dtype=np.int64).reshape(-1, 1))
    member = cx.node("Equal", [cx.node("Unsqueeze", [cx.input_as(2, "int64"), cx.ints([0])]),
                               cats])
    lowest = cx.const(np.asarray(np.finfo(np.float32).min, np.float32))
    per_class = cx.node("Where", [member, cx.node("Unsqueeze", [scores, cx.ints([0])]), lowest])
    kept = _selected_boxes(cx, boxes, per_class)
    kept_scores = cx.node("Gather", [scores, kept])
    k = cx.node("Shape", [kept])
    if cx.attrs["top_k"] >= 0:
        k = cx.node("Min", [k, cx.ints([cx.attrs["top_k"]])])
    _, order = cx.node("TopK", [kept_scores, k], n_out=2, axis=0, largest=1, sorted=1)
    return [cx.node("Gather", [kept, order])]
