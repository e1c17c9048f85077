"""YOLOv3's target assignment (Paddle's yolo_loss): which anchor and cell each ground-truth box
trains, its regression and class targets, and which predictions the objectness loss ignores.
The loss itself is built from differentiable ops over these targets (vision.ops.yolo_loss)."""
from __future__ import annotations

import numpy as np

from ..dtype import convert_dtype
from ..registry import Meta, register_op


def center_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of (cx, cy, w, h) boxes, broadcasting a [..., 4] against b [..., 4]."""
    x1 = np.maximum(a[..., 0] - a[..., 2] / 2, b[..., 0] - b[..., 2] / 2)
    x2 = np.minimum(a[..., 0] + a[..., 2] / 2, b[..., 0] + b[..., 2] / 2)
    y1 = np.maximum(a[..., 1] - a[..., 3] / 2, b[..., 1] - b[..., 3] / 2)
    y2 = np.minimum(a[..., 1] + a[..., 3] / 2, b[..., 1] + b[..., 3] / 2)
    inter = np.maximum(x2 - x1, 0.0) * np.maximum(y2 - y1, 0.0)
    union = a[..., 2] * a[..., 3] + b[..., 2] * b[..., 3] - inter
    return inter / np.where(union > 0, union, 1.0)


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-v))


def _predicted_boxes(x, anchors, anchor_mask, class_num, downsample_ratio, scale_x_y):
    """The decoded (cx, cy, w, h) of every prediction, relative to the image: [N, A*H*W, 4]."""
    n, _, h, w = x.shape
    a = len(anchor_mask)
    xr = x.astype(np.float64).reshape(n, a, 5 + class_num, h, w)
    bias = -0.5 * (scale_x_y - 1.0)
    input_size = downsample_ratio * h
    an = np.asarray(anchors, dtype=np.float64).reshape(-1, 2)[list(anchor_mask)]
    cx = (np.arange(w) + _sigmoid(xr[:, :, 0]) * scale_x_y + bias) / w
    cy = (np.arange(h)[:, None] + _sigmoid(xr[:, :, 1]) * scale_x_y + bias) / h
    bw = np.exp(xr[:, :, 2]) * an[:, 0, None, None] / input_size
    bh = np.exp(xr[:, :, 3]) * an[:, 1, None, None] / input_size
    return np.stack([cx, cy, bw, bh], axis=-1).reshape(n, -1, 4)


def _infer(x, gt_box, gt_label, gt_score, anchor_mask, class_num, **_):
    n, b = gt_box._shape[0], gt_box._shape[1]
    a = len(anchor_mask)
    cells = a * x._shape[2] * x._shape[3] if min(x._shape[2:]) >= 0 else -1
    f = x.dtype
    return (Meta((n, b), convert_dtype("int64")), Meta((n, b, 4), f), Meta((n, b), f),
            Meta((n, b, class_num), f), Meta((n, b), f), Meta((n, cells), f))


@register_op("yolo_loss_targets", infer=_infer, n_outputs=6)
def _yolo_targets_kernel(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
                         ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y):
    """Per ground-truth box: the flat index (anchor, row, col) of the prediction it trains, its
    (tx, ty, tw, th) targets and their weight, its class targets and their weight; per
    prediction: the objectness mask (the box's score where it trains, -1 ignored, else 0)."""
    n, _, h, w = x.shape
    a = len(anchor_mask)
    gt = gt_box.astype(np.float64)
    score = gt_score.astype(np.float64)
    valid = (gt[..., 2] >= 1e-6) & (gt[..., 3] >= 1e-6)                  # [N, B]
    input_size = downsample_ratio * h
    all_anchors = np.asarray(anchors, dtype=np.float64).reshape(-1, 2)
    # the ignore mask: a prediction overlapping some real box by more than ignore_thresh
    pred = _predicted_boxes(x, anchors, anchor_mask, class_num, downsample_ratio, scale_x_y)
    iou = center_iou(pred[:, :, None, :], gt[:, None, :, :])               # [N, AHW, B]
    best = np.where(valid[:, None, :], iou, 0.0).max(axis=2, initial=0.0)
    obj = np.where(best > ignore_thresh, -1.0, 0.0)
    # each real box trains the best-shaped anchor of all, if that anchor is in this layer's mask
    shapes = np.zeros(all_anchors.shape[:1] + (4,))
    shapes[:, 2:] = all_anchors / input_size
    gt_shape = np.concatenate([np.zeros(gt.shape[:-1] + (2,)), gt[..., 2:]], axis=-1)
    anchor_iou = center_iou(gt_shape[:, :, None, :], shapes[None, None])   # [N, B, all]
    best_anchor = np.argmax(anchor_iou, axis=2)
    mask_of = np.full(all_anchors.shape[0], -1)
    mask_of[list(anchor_mask)] = np.arange(a)
    slot = mask_of[best_anchor]
    trains = valid & (slot >= 0)
    gi = np.clip((gt[..., 0] * w).astype(np.int64), 0, w - 1)
    gj = np.clip((gt[..., 1] * h).astype(np.int64), 0, h - 1)
    index = np.where(trains, (np.maximum(slot, 0) * h + gj) * w + gi, 0)
    chosen = all_anchors[best_anchor]
    with np.errstate(divide="ignore", invalid="ignore"):
        loc = np.stack([gt[..., 0] * w - gi, gt[..., 1] * h - gj,
                        np.log(gt[..., 2] * input_size / chosen[..., 0]),
                        np.log(gt[..., 3] * input_size / chosen[..., 1])], axis=-1)
    loc = np.where(trains[..., None], loc, 0.0)
    loc_weight = np.where(trains, (2.0 - gt[..., 2] * gt[..., 3]) * score, 0.0)
    smooth = min(1.0 / class_num, 1.0 / 40) if use_label_smooth else 0.0
    labels = np.asarray(gt_label, dtype=np.int64)
    cls = np.where(np.arange(class_num) == labels[..., None], 1.0 - smooth, smooth)
    cls_weight = np.where(trains, score, 0.0)
    rows = np.nonzero(trains)
    obj[rows[0], index[rows]] = score[rows]       # later boxes of one cell win, as in Paddle
    dt = x.dtype
    return (index, loc.astype(dt), loc_weight.astype(dt), cls.astype(dt), cls_weight.astype(dt),
            obj.astype(dt))
