"""YOLOv3's head: yolo_box decodes a feature map into boxes and class scores, yolo_loss trains
it. Both are built from differentiable ops (yolo_loss over the targets the yolo_loss_targets op
assigns), so they convert, differentiate and export like any other code."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

from ...nn import functional as F
from ...nn.functional.dims import known_dims
from ...runtime import ops
from ...runtime.ops.operands import as_tensor
from ...runtime.registry import apply

__all__ = ["yolo_box", "yolo_loss"]


def _anchor_pairs(anchors: Sequence[int], op: str) -> List[List[float]]:
    values = [float(a) for a in anchors]
    if not values or len(values) % 2:
        raise ValueError(f"{op}: anchors must list (width, height) pairs, got {list(anchors)}")
    return [values[i:i + 2] for i in range(0, len(values), 2)]


def _grid(x: Any, op: str, per_anchor: int, n_anchors: int) -> List[int]:
    dims = known_dims(x)
    if len(dims) != 4:
        raise ValueError(f"{op}: x must be [N, C, H, W], got shape {dims}")
    if min(dims[1:]) < 0:
        raise ValueError(f"{op}: x's channels, height and width must be known when the program "
                         f"is built, got shape {dims}")
    if dims[1] != n_anchors * per_anchor:
        raise ValueError(f"{op}: x has {dims[1]} channels; {n_anchors} anchors with "
                         f"{per_anchor} values each need {n_anchors * per_anchor}")
    return dims


def yolo_box(x: Any, img_size: Any, anchors: Sequence[int], class_num: int,
             conf_thresh: float, downsample_ratio: int, clip_bbox: bool = True,
             name: Optional[str] = None, scale_x_y: float = 1.0, iou_aware: bool = False,
             iou_aware_factor: float = 0.5) -> Any:
    """Boxes [N, S*H*W, 4] (corners in image pixels) and scores [N, S*H*W, class_num] from a
    YOLOv3 output x [N, S * (5 + class_num), H, W] (S anchors; with iou_aware the S IoU
    channels come first). A prediction whose objectness is below conf_thresh gets zeros."""
    x = as_tensor(x)
    pairs = _anchor_pairs(anchors, "yolo_box")
    s = len(pairs)
    n, _, h, w = _grid(x, "yolo_box", 5 + class_num + (1 if iou_aware else 0), s)
    if iou_aware:
        iou = F.sigmoid(x[:, :s])
        x = x[:, s:]
    p = ops.reshape(x, [-1, s, 5 + class_num, h, w])
    bias = -0.5 * (scale_x_y - 1.0)
    size = ops.cast(as_tensor(img_size), x.dtype)
    img_h = ops.reshape(size[:, 0], [-1, 1, 1, 1])
    img_w = ops.reshape(size[:, 1], [-1, 1, 1, 1])
    cols = ops.reshape(ops.arange(w, dtype=x.dtype), [1, 1, 1, w])
    rows = ops.reshape(ops.arange(h, dtype=x.dtype), [1, 1, h, 1])
    anchor = ops.to_tensor([[a] for a in pairs], dtype=x.dtype)            # [S, 1, 2]
    aw = ops.reshape(anchor[:, :, 0], [1, s, 1, 1])
    ah = ops.reshape(anchor[:, :, 1], [1, s, 1, 1])
    cx = (cols + F.sigmoid(p[:, :, 0]) * scale_x_y + bias) * img_w / w
    cy = (rows + F.sigmoid(p[:, :, 1]) * scale_x_y + bias) * img_h / h
    bw = ops.exp(p[:, :, 2]) * aw * img_w / (downsample_ratio * w)
    bh = ops.exp(p[:, :, 3]) * ah * img_h / (downsample_ratio * h)
    conf = F.sigmoid(p[:, :, 4])
    if iou_aware:
        conf = ops.pow(conf, 1.0 - iou_aware_factor) * ops.pow(iou, iou_aware_factor)
    keep = ops.cast(conf >= conf_thresh, x.dtype)
    x1, y1, x2, y2 = cx - bw * 0.5, cy - bh * 0.5, cx + bw * 0.5, cy + bh * 0.5
    if clip_bbox:
        x1, y1 = ops.maximum(x1, ops.zeros_like(x1)), ops.maximum(y1, ops.zeros_like(y1))
        x2, y2 = ops.minimum(x2, img_w - 1.0), ops.minimum(y2, img_h - 1.0)
    boxes = ops.stack([x1, y1, x2, y2], axis=-1) * ops.unsqueeze(keep, -1)
    scores = F.sigmoid(p[:, :, 5:]) * ops.unsqueeze(conf * keep, 2)   # [N, S, C, H, W]
    return (ops.reshape(boxes, [-1, s * h * w, 4]),
            ops.reshape(ops.transpose(scores, [0, 1, 3, 4, 2]), [-1, s * h * w, class_num]))


def _sce(logit: Any, target: Any) -> Any:
    """Sigmoid cross entropy per element: max(x, 0) - x z + log(1 + exp(-|x|))."""
    return F.relu(logit) - logit * target + ops.log1p(ops.exp(-ops.abs(logit)))


def yolo_loss(x: Any, gt_box: Any, gt_label: Any, anchors: Sequence[int],
              anchor_mask: Sequence[int], class_num: int, ignore_thresh: float,
              downsample_ratio: int, gt_score: Any = None, use_label_smooth: bool = True,
              name: Optional[str] = None, scale_x_y: float = 1.0) -> Any:
    """YOLOv3's loss per image [N] for the head x [N, len(anchor_mask) * (5 + class_num), H, W]
    against ground-truth boxes gt_box [N, B, 4] (centre x, centre y, w, h relative to the
    image; w or h 0 marks padding), labels gt_label [N, B] and optional scores gt_score
    [N, B] (mixup weights, default 1). Each box trains the anchor (of all) whose shape fits it
    best, when that anchor is in anchor_mask: sigmoid cross entropy on x, y, L1 on log w, h
    (weighted by 2 - w h), objectness and per-class terms; predictions that overlap a box by
    more than ignore_thresh are left out of the no-object term."""
    x, gt_box = as_tensor(x), as_tensor(gt_box)
    mask = [int(m) for m in anchor_mask]
    pairs = _anchor_pairs(anchors, "yolo_loss")
    if not mask or min(mask) < 0 or max(mask) >= len(pairs):
        raise ValueError(f"yolo_loss: anchor_mask {mask} must index the {len(pairs)} anchors")
    s = len(mask)
    _, _, h, w = _grid(x, "yolo_loss", 5 + class_num, s)
    if gt_box.dtype != x.dtype:
        gt_box = gt_box.astype(x.dtype)
    score = ops.ones_like(gt_box[:, :, 0]) if gt_score is None else \
        ops.cast(as_tensor(gt_score), x.dtype)
    attrs = {"anchors": [int(a) for a in anchors], "anchor_mask": mask,
             "class_num": int(class_num), "ignore_thresh": float(ignore_thresh),
             "downsample_ratio": int(downsample_ratio),
             "use_label_smooth": bool(use_label_smooth), "scale_x_y": float(scale_x_y)}
    index, loc, loc_w, cls, cls_w, obj = apply(
        "yolo_loss_targets", [x, gt_box, ops.cast(as_tensor(gt_label), "int64"), score], attrs)
    # predictions as rows [N, S*H*W, 5 + class_num]
    p = ops.reshape(ops.transpose(ops.reshape(x, [-1, s, 5 + class_num, h * w]), [0, 1, 3, 2]),
                    [-1, s * h * w, 5 + class_num])
    picked = ops.take_along_axis(p, ops.unsqueeze(index, -1), axis=1, broadcast=True)
    loc_loss = (_sce(picked[:, :, 0], loc[:, :, 0]) + _sce(picked[:, :, 1], loc[:, :, 1])
                + ops.abs(picked[:, :, 2] - loc[:, :, 2])
                + ops.abs(picked[:, :, 3] - loc[:, :, 3])) * loc_w
    cls_loss = ops.sum(_sce(picked[:, :, 5:], cls), axis=-1) * cls_w
    conf = p[:, :, 4]
    positive = ops.cast(obj > 1e-5, x.dtype)
    negative = ops.cast((obj > -0.5) & (obj <= 1e-5), x.dtype)
    obj_loss = _sce(conf, ops.ones_like(conf)) * obj * positive + \
        _sce(conf, ops.zeros_like(conf)) * negative
    return ops.sum(loc_loss + cls_loss, axis=1) + ops.sum(obj_loss, axis=1)
