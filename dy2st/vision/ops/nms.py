"""The NMS family and the two-stage detector's proposal ops: nms (with scores, per category,
top_k), matrix_nms, generate_proposals and distribute_fpn_proposals."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from ...nn.functional.dims import known_dims
from ...runtime import ops
from ...runtime.ops.operands import as_tensor
from ...runtime.registry import apply

__all__ = ["nms", "matrix_nms", "generate_proposals", "distribute_fpn_proposals"]


def nms(boxes: Any, iou_threshold: float = 0.3, scores: Any = None, category_idxs: Any = None,
        categories: Optional[Sequence[int]] = None, top_k: Optional[int] = None) -> Any:
    """Greedy non-maximum suppression of boxes [N, 4] (x1, y1, x2, y2): a box is dropped when
    its IoU with a kept, higher-priority box exceeds iou_threshold. Without scores the boxes'
    order is their priority and the kept indices come in that order; with scores they come by
    descending score; with category_idxs [N] boxes only suppress boxes of their own category
    (one of `categories`), and top_k keeps the best top_k."""
    boxes = as_tensor(boxes)
    attrs = {"iou_threshold": float(iou_threshold)}
    if scores is None:
        return apply("nms", [boxes], attrs)
    scores = as_tensor(scores)
    if category_idxs is None:
        # as Paddle: top_k applies to the per-category form only
        order = ops.argsort(scores, descending=True)
        return ops.gather(order, apply("nms", [ops.gather(boxes, order)], attrs))
    if categories is None:
        raise ValueError("nms: categories (the list of category ids) is required with "
                         "category_idxs")
    n = known_dims(boxes)[0]
    if top_k is not None and n >= 0 and top_k > n:
        raise ValueError(f"nms: top_k ({top_k}) must not exceed the number of boxes ({n})")
    attrs.update(categories=[int(c) for c in categories],
                 top_k=-1 if top_k is None else int(top_k))
    return apply("category_nms", [boxes, scores, as_tensor(category_idxs)], attrs)


def matrix_nms(bboxes: Any, scores: Any, score_threshold: float, post_threshold: float,
               nms_top_k: int, keep_top_k: int, use_gaussian: bool = False,
               gaussian_sigma: float = 2.0, background_label: int = 0, normalized: bool = True,
               return_index: bool = False, return_rois_num: bool = True,
               name: Optional[str] = None) -> Tuple[Any, Optional[Any], Optional[Any]]:
    """Matrix NMS (SOLOv2) over bboxes [N, M, 4] and scores [N, C, M]: per image and class, the
    candidates above score_threshold (best nms_top_k) have their scores decayed by their
    overlap with better ones (linearly or by a Gaussian), those above post_threshold are kept
    (best keep_top_k per image). Returns out [K, 6] (label, score, x1, y1, x2, y2), the count
    per image (when return_rois_num) and index [K, 1] into the flattened boxes (when
    return_index), in Paddle's order."""
    out, index, counts = apply("matrix_nms", [as_tensor(bboxes), as_tensor(scores)], {
        "score_threshold": float(score_threshold), "post_threshold": float(post_threshold),
        "nms_top_k": int(nms_top_k), "keep_top_k": int(keep_top_k),
        "use_gaussian": bool(use_gaussian), "gaussian_sigma": float(gaussian_sigma),
        "background_label": int(background_label), "normalized": bool(normalized)})
    return out, counts if return_rois_num else None, index if return_index else None


def generate_proposals(scores: Any, bbox_deltas: Any, img_size: Any, anchors: Any,
                       variances: Any, pre_nms_top_n: int = 6000, post_nms_top_n: int = 1000,
                       nms_thresh: float = 0.5, min_size: float = 0.1, eta: float = 1.0,
                       pixel_offset: bool = False, return_rois_num: bool = False,
                       name: Optional[str] = None) -> Tuple[Any, Any, Optional[Any]]:
    """RPN proposals from objectness scores [N, A, H, W] and deltas [N, 4A, H, W] over anchors
    and variances [H, W, A, 4]: per image the best pre_nms_top_n anchors are decoded, clipped
    to img_size [N, 2] (height, width), stripped of boxes smaller than min_size, and NMSed
    (threshold nms_thresh, adapted by eta) down to post_nms_top_n. Returns rois [R, 4], their
    scores [R, 1] and (return_rois_num) the count per image."""
    rois, probs, counts = apply("generate_proposals", [
        as_tensor(scores), as_tensor(bbox_deltas), as_tensor(img_size), as_tensor(anchors),
        as_tensor(variances)], {
        "pre_nms_top_n": int(pre_nms_top_n), "post_nms_top_n": int(post_nms_top_n),
        "nms_thresh": float(nms_thresh), "min_size": float(min_size), "eta": float(eta),
        "pixel_offset": bool(pixel_offset)})
    return rois, probs, counts if return_rois_num else None


def distribute_fpn_proposals(fpn_rois: Any, min_level: int, max_level: int, refer_level: int,
                             refer_scale: int, pixel_offset: bool = False, rois_num: Any = None,
                             name: Optional[str] = None
                             ) -> Tuple[List[Any], Any, Optional[List[Any]]]:
    """Spread rois [R, 4] over the FPN levels min_level..max_level by their scale:
    level = floor(log2(sqrt(area) / refer_scale + 1e-8) + refer_level), clipped. Returns the
    rois of each level (in input order), restore_ind [R, 1] (where each input roi went in the
    levels' concatenation), and with rois_num [B] the per-image count of each level."""
    if min_level <= 0 or max_level <= 0 or max_level <= min_level or \
            max_level - min_level + 1 >= 100:
        raise ValueError(f"distribute_fpn_proposals: need 0 < min_level < max_level with fewer "
                         f"than 100 levels, got min_level={min_level}, max_level={max_level}")
    rois = as_tensor(fpn_rois)
    offset = 1.0 if pixel_offset else 0.0
    w = rois[:, 2] - rois[:, 0] + offset
    h = rois[:, 3] - rois[:, 1] + offset
    area = ops.where((rois[:, 2] < rois[:, 0]) | (rois[:, 3] < rois[:, 1]),
                     ops.zeros_like(w), w * h)
    level = ops.floor(ops.log2(ops.sqrt(area) / float(refer_scale) + 1e-8) + float(refer_level))
    level = ops.cast(ops.clip(level, float(min_level), float(max_level)), "int64")
    image = None
    if rois_num is not None:
        counts = ops.cast(as_tensor(rois_num), "int64")
        image = ops.repeat_interleave(ops.arange(counts.shape[0], dtype="int64"), counts)
    multi, per_level, order = [], [], []
    for lvl in range(min_level, max_level + 1):
        members = ops.reshape(ops.nonzero(level == lvl), [-1])
        multi.append(ops.gather(rois, members))
        order.append(members)
        if image is not None:
            per_level.append(ops.cast(ops.bincount(ops.gather(image, members),
                                                   minlength=counts.shape[0]), "int32"))
    restore = ops.cast(ops.reshape(ops.argsort(ops.concat(order)), [-1, 1]), "int32")
    return multi, restore, per_level if image is not None else None
