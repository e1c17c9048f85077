"""Detection post-processing ops whose output length depends on the data: greedy nms (plain and
per category), matrix_nms and generate_proposals. None carries a
gradient (Paddle's have none either)."""
from __future__ import annotations

from typing import List

import numpy as np

from ..dtype import convert_dtype
from ..registry import Meta, register_op


def box_area(boxes: np.ndarray, offset: float = 0.0) -> np.ndarray:
    """Areas of [.., 4] corner boxes; a box with x2 < x1 or y2 < y1 has area 0."""
    w = boxes[..., 2] - boxes[..., 0] + offset
    h = boxes[..., 3] - boxes[..., 1] + offset
    bad = (boxes[..., 2] < boxes[..., 0]) | (boxes[..., 3] < boxes[..., 1])
    return np.where(bad, 0.0, w * h)


def iou_with(box: np.ndarray, others: np.ndarray, offset: float = 0.0) -> np.ndarray:
    """IoU of one corner box with each of `others` (offset 1: pixel boxes, both ends counted)."""
    w = np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]) + offset
    h = np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]) + offset
    inter = np.maximum(w, 0.0) * np.maximum(h, 0.0)
    union = box_area(box, offset) + box_area(others, offset) - inter
    # boxes apart in real coordinates do not overlap, even when offset would add a pixel
    apart = (others[:, 0] > box[2]) | (others[:, 2] < box[0]) | (others[:, 1] > box[3]) | \
        (others[:, 3] < box[1])
    return np.where((union > 0) & ~apart, inter / np.where(union > 0, union, 1.0), 0.0)


def greedy_nms(boxes: np.ndarray, threshold: float, offset: float = 0.0, eta: float = 1.0,
               limit: int = -1) -> np.ndarray:
    """Indices of the boxes greedy NMS keeps, taking them in the given order (highest priority
    first): a box is dropped when its IoU with a kept one exceeds the threshold. eta < 1 lowers
    an adaptive threshold above 0.5 after each kept box, and each candidate is compared with
    the threshold of its own turn (Paddle's generate_proposals)."""
    boxes = boxes.astype(np.float64)
    keep: List[int] = []
    if eta < 1.0:
        for i in range(boxes.shape[0]):
            if keep and iou_with(boxes[i], boxes[keep], offset).max() > threshold:
                continue
            keep.append(i)
            if len(keep) == limit:
                break
            if threshold > 0.5:
                threshold *= eta
        return np.asarray(keep, dtype=np.int64)
    alive = np.ones(boxes.shape[0], dtype=bool)
    for i in range(boxes.shape[0]):
        if not alive[i]:
            continue
        keep.append(i)
        if len(keep) == limit:
            break
        rest = np.nonzero(alive[i + 1:])[0] + i + 1
        if rest.size:
            alive[rest[iou_with(boxes[i], boxes[rest], offset) > threshold]] = False
    return np.asarray(keep, dtype=np.int64)


def _vector_infer(*_, **__):
    return Meta((-1,), convert_dtype("int64"))


@register_op("nms", infer=_vector_infer)
def _nms_kernel(boxes, iou_threshold):
    """Greedy NMS over boxes [N, 4] in their given order: indices of the kept boxes."""
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"boxes must have shape [N, 4], got {list(boxes.shape)}")
    return greedy_nms(boxes, iou_threshold)


@register_op("category_nms", infer=_vector_infer)
def _category_nms_kernel(boxes, scores, category_idxs, iou_threshold, categories, top_k):
    """NMS within each listed category: the kept boxes by descending score, at most top_k."""
    boxes = boxes.astype(np.float64)
    cats = np.asarray(category_idxs).reshape(-1)
    listed = np.isin(cats, np.asarray(categories, dtype=cats.dtype))
    kept = []
    for cat in categories:
        members = np.nonzero((cats == cat) & listed)[0]
        if members.size == 0:
            continue
        order = members[np.argsort(-scores[members], kind="stable")]
        kept.append(order[greedy_nms(boxes[order], iou_threshold)])
    if not kept:
        return np.zeros(0, dtype=np.int64)
    kept_all = np.sort(np.concatenate(kept))
    ranked = kept_all[np.argsort(-scores[kept_all], kind="stable")]
    return (ranked if top_k < 0 else ranked[:top_k]).astype(np.int64)


def _matrix_decay(iou: np.ndarray, use_gaussian: bool, sigma: float) -> np.ndarray:
    """Matrix NMS's decay factor of each box (sorted by descending score) from the pairwise IoU."""
    n = iou.shape[0]
    upper = np.triu(iou, k=1)                       # iou[j, i] for j ranked above i
    comp = upper.max(axis=0) if n else np.zeros(0)  # each box's own largest overlap above it
    if use_gaussian:
        decay = np.exp((comp[:, None] ** 2 - upper ** 2) * sigma)
    else:
        # a box that duplicates a better one (overlap 1) decays nothing below it
        with np.errstate(divide="ignore", invalid="ignore"):
            decay = (1.0 - upper) / (1.0 - comp[:, None])
        decay = np.where(np.isnan(decay), np.inf, decay)
    decay = np.where(np.triu(np.ones((n, n), dtype=bool), k=1), decay, np.inf)
    return np.minimum(decay.min(axis=0), 1.0) if n else np.zeros(0)


def matrix_nms_image(boxes, scores, score_threshold, post_threshold, nms_top_k, use_gaussian,
                     gaussian_sigma, background_label, normalized):
    """One image: rows (label, score, box index) of the detections matrix NMS keeps."""
    offset = 0.0 if normalized else 1.0
    rows = []
    for label in range(scores.shape[0]):
        if label == background_label:
            continue
        cand = np.nonzero(scores[label] > score_threshold)[0]
        cand = cand[np.argsort(-scores[label][cand], kind="stable")]
        if nms_top_k > -1:
            cand = cand[:nms_top_k]
        if cand.size == 0:
            continue
        b = boxes[cand].astype(np.float64)
        iou = np.stack([iou_with(box, b, offset) for box in b]) if cand.size else b
        decayed = scores[label][cand] * _matrix_decay(iou, use_gaussian, gaussian_sigma)
        ok = decayed > post_threshold
        for i, s in zip(cand[ok], decayed[ok]):
            rows.append((label, s, i))
    return rows


def _matrix_nms_infer(bboxes, scores, *_, **__):
    return (Meta((-1, 6), bboxes.dtype), Meta((-1, 1), convert_dtype("int64")),
            Meta((bboxes._shape[0],), convert_dtype("int32")))


@register_op("matrix_nms", infer=_matrix_nms_infer, n_outputs=3)
def _matrix_nms_kernel(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k,
                       use_gaussian, gaussian_sigma, background_label, normalized):
    """Matrix NMS over a batch: detections [M, 6] (label, score, box), their box indices into
    the flattened batch [M, 1], and the count per image [N]."""
    outs, index, counts = [], [], []
    for n in range(bboxes.shape[0]):
        rows = matrix_nms_image(bboxes[n], scores[n], score_threshold, post_threshold,
                                nms_top_k, use_gaussian, gaussian_sigma, background_label,
                                normalized)
        rows.sort(key=lambda r: -r[1])
        if keep_top_k > -1:
            rows = rows[:keep_top_k]
        counts.append(len(rows))
        for label, s, i in rows:
            outs.append(np.concatenate([[label, s], bboxes[n, i]]))
            index.append(n * bboxes.shape[1] + i)
    out = np.asarray(outs, dtype=bboxes.dtype).reshape(-1, 6)
    return out, np.asarray(index, dtype=np.int64).reshape(-1, 1), np.asarray(counts, np.int32)


# exp of a decoded width or height is capped here (Paddle's kBBoxClipDefault)
_BBOX_CLIP = float(np.log(1000.0 / 16.0))


def decode_anchors(anchors: np.ndarray, deltas: np.ndarray, variances: np.ndarray,
                   offset: float) -> np.ndarray:
    """Boxes from anchors and regression deltas scaled by variances (Paddle's BoxCoder)."""
    aw = anchors[:, 2] - anchors[:, 0] + offset
    ah = anchors[:, 3] - anchors[:, 1] + offset
    cx = anchors[:, 0] + 0.5 * aw
    cy = anchors[:, 1] + 0.5 * ah
    d = deltas * variances
    px, py = d[:, 0] * aw + cx, d[:, 1] * ah + cy
    pw = np.exp(np.minimum(d[:, 2], _BBOX_CLIP)) * aw
    ph = np.exp(np.minimum(d[:, 3], _BBOX_CLIP)) * ah
    return np.stack([px - pw / 2, py - ph / 2, px + pw / 2 - offset, py + ph / 2 - offset], 1)


def _proposals_image(scores, deltas, im_hw, anchors, variances, pre_nms_top_n, post_nms_top_n,
                     nms_thresh, min_size, eta, pixel_offset):
    offset = 1.0 if pixel_offset else 0.0
    order = np.argsort(-scores, kind="stable")
    if 0 < pre_nms_top_n < order.size:
        order = order[:pre_nms_top_n]
    boxes = decode_anchors(anchors[order], deltas[order], variances[order], offset)
    h, w = float(im_hw[0]), float(im_hw[1])
    boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0.0, w - offset)
    boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0.0, h - offset)
    ws = boxes[:, 2] - boxes[:, 0] + offset
    hs = boxes[:, 3] - boxes[:, 1] + offset
    least = max(min_size, 1.0)
    keep = (ws >= least) & (hs >= least)
    if pixel_offset:
        keep &= (boxes[:, 0] + ws / 2 <= w) & (boxes[:, 1] + hs / 2 <= h)
    boxes, probs = boxes[keep], scores[order][keep]
    if boxes.shape[0] == 0:           # Paddle gives one zero box with score 0
        return np.zeros((1, 4)), np.zeros(1)
    kept = greedy_nms(boxes, nms_thresh, offset, eta,
                      post_nms_top_n if post_nms_top_n > 0 else -1)
    return boxes[kept], probs[kept]


def _proposals_infer(scores, deltas, img_size, anchors, variances, **_):
    return (Meta((-1, 4), scores.dtype), Meta((-1, 1), scores.dtype),
            Meta((scores._shape[0],), convert_dtype("int32")))


@register_op("generate_proposals", infer=_proposals_infer, n_outputs=3)
def _generate_proposals_kernel(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n,
                               post_nms_top_n, nms_thresh, min_size, eta, pixel_offset):
    """RPN proposals: per image, the top scored anchors decoded, clipped, filtered by size and
    NMSed; rois [M, 4], their scores [M, 1] and the count per image."""
    n, a = scores.shape[:2]
    flat_scores = scores.transpose(0, 2, 3, 1).reshape(n, -1)
    flat_deltas = bbox_deltas.reshape(n, a, 4, *bbox_deltas.shape[2:]).transpose(0, 3, 4, 1, 2)
    flat_deltas = flat_deltas.reshape(n, -1, 4)
    anchors2 = anchors.reshape(-1, 4).astype(np.float64)
    variances2 = variances.reshape(-1, 4).astype(np.float64)
    rois, probs, counts = [], [], []
    for i in range(n):
        b, p = _proposals_image(flat_scores[i].astype(np.float64),
                                flat_deltas[i].astype(np.float64), img_size[i], anchors2,
                                variances2, pre_nms_top_n, post_nms_top_n, nms_thresh, min_size,
                                eta, pixel_offset)
        rois.append(b)
        probs.append(p)
        counts.append(b.shape[0])
    return (np.concatenate(rois).astype(scores.dtype), np.concatenate(probs)[:, None].astype(
        scores.dtype), np.asarray(counts, dtype=np.int32))
