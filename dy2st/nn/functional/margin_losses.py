"""Multi-class and metric-learning losses composed from differentiable ops (their gradients,
static programs and saved models follow from those ops): multi_margin_loss,
multi_label_margin_loss, multi_label_soft_margin_loss, triplet_margin_with_distance_loss,
npair_loss."""
from __future__ import annotations

from typing import Any, Callable, Optional

from ...runtime import ops
from ...runtime.ops.operands import as_tensor, cast
from .activation_extra import log_sigmoid
from .dims import known_dims
from .distance import pairwise_distance
from .input import one_hot
from .loss import float_loss_input, hinge, reduce_loss

__all__ = ["multi_margin_loss", "multi_label_margin_loss", "multi_label_soft_margin_loss",
           "triplet_margin_with_distance_loss", "npair_loss"]


def _same_shape(a: list, b: list) -> bool:
    """Equal shapes, an unknown (-1) dim matching anything."""
    return len(a) == len(b) and all(u == v or u < 0 or v < 0 for u, v in zip(a, b))


def _class_count(x: Any, op: str) -> int:
    if x.ndim != 2:
        raise ValueError(f"{op}: input must have shape [N, C], got {list(x.shape)}")
    c = known_dims(x)[1]
    if c < 0:
        raise ValueError(f"{op}: the number of classes (input.shape[1]) must be known")
    return c


def multi_label_soft_margin_loss(input: Any, label: Any, weight: Any = None, reduction: str = "mean",
                                 name: Optional[str] = None) -> Any:
    """-(label * log(sigmoid(x)) + (1 - label) * log(sigmoid(-x))), weighted per class and
    averaged over the class axis; label holds 0/1 per class."""
    x = float_loss_input(input, reduction, "multi_label_soft_margin_loss")
    y = cast(as_tensor(label), x.dtype)
    if not _same_shape(known_dims(x), known_dims(y)):
        raise ValueError(f"multi_label_soft_margin_loss: input {list(x.shape)} and label "
                         f"{list(y.shape)} must have the same shape")
    loss = ops.neg(ops.add(ops.multiply(y, log_sigmoid(x)),
                           ops.multiply(ops.subtract(1.0, y), log_sigmoid(ops.neg(x)))))
    if weight is not None:
        loss = ops.multiply(loss, cast(as_tensor(weight), x.dtype))
    return reduce_loss(ops.mean(loss, axis=-1), reduction)


def multi_margin_loss(input: Any, label: Any, p: int = 1, margin: float = 1.0, weight: Any = None,
                      reduction: str = "mean", name: Optional[str] = None) -> Any:
    """sum over classes i != y of max(0, margin - x[y] + x[i]) ** p, divided by C (times
    weight[y] when a per-class weight is given); label holds the class index y per row."""
    x = float_loss_input(input, reduction, "multi_margin_loss")
    c = _class_count(x, "multi_margin_loss")
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: p must be 1 or 2, got {p}")
    y = ops.reshape(cast(as_tensor(label), "int64"), [-1, 1])
    x_y = ops.take_along_axis(x, y, axis=1)                               # [N, 1]
    terms = ops.pow(hinge(ops.add(ops.subtract(x, x_y), float(margin))), float(p))
    # the i == y term is max(0, margin) ** p: take it out of the sum rather than masking it
    loss = ops.subtract(ops.sum(terms, axis=1), float(max(margin, 0.0)) ** p)
    if weight is not None:
        w = ops.gather(cast(as_tensor(weight), x.dtype), ops.reshape(y, [-1]))
        loss = ops.multiply(loss, w)
    return reduce_loss(ops.divide(loss, float(c)), reduction)


def multi_label_margin_loss(input: Any, label: Any, reduction: str = "mean",
                            name: Optional[str] = None) -> Any:
    """sum over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])), divided
    by C. Each label row lists target class indices and ends at the first -1 (or at C entries)."""
    x = float_loss_input(input, reduction, "multi_label_margin_loss")
    c = _class_count(x, "multi_label_margin_loss")
    lab = cast(as_tensor(label), "int64")
    if lab.ndim != 2 or known_dims(lab)[1] not in (c, -1):
        raise ValueError(f"multi_label_margin_loss: label must have shape [N, {c}], got {list(lab.shape)}")
    present = ops.cast(ops.greater_equal(lab, ops.zeros_like(lab)), x.dtype)
    valid = ops.cumprod(present, dim=1)                                   # targets before the first -1
    idx = ops.multiply(lab, ops.cast(valid, "int64"))                     # -1 -> 0, masked below
    chosen = ops.multiply(cast(one_hot(idx, c), x.dtype), ops.unsqueeze(valid, -1))   # [N, j, class]
    is_target = ops.clip(ops.sum(chosen, axis=1), 0.0, 1.0)               # [N, class]
    x_target = ops.take_along_axis(x, idx, axis=1)                        # [N, j]
    margins = hinge(ops.add(ops.subtract(ops.unsqueeze(x, 1), ops.unsqueeze(x_target, 2)), 1.0))
    pair_mask = ops.multiply(ops.unsqueeze(valid, 2), ops.unsqueeze(ops.subtract(1.0, is_target), 1))
    loss = ops.divide(ops.sum(ops.multiply(margins, pair_mask), axis=[1, 2]), float(c))
    return reduce_loss(loss, reduction)


def triplet_margin_with_distance_loss(input: Any, positive: Any, negative: Any,
                                      distance_function: Optional[Callable[[Any, Any], Any]] = None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean",
                                      name: Optional[str] = None) -> Any:
    """max(d(input, positive) - d(input, negative) + margin, 0) with d the given distance
    function (default: the pairwise 2-norm distance); swap=True uses min(d(a, n), d(p, n))."""
    a = float_loss_input(input, reduction, "triplet_margin_with_distance_loss")
    pos = cast(as_tensor(positive), a.dtype)
    neg = cast(as_tensor(negative), a.dtype)
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(a, pos)
    d_neg = dist(a, neg)
    if swap:
        d_neg = ops.minimum(d_neg, dist(pos, neg))
    return reduce_loss(hinge(ops.add(ops.subtract(d_pos, d_neg), float(margin))), reduction)


def npair_loss(anchor: Any, positive: Any, labels: Any, l2_reg: float = 0.002) -> Any:
    """Cross entropy of the anchor-positive similarity rows against the rows of the
    same-label matrix (normalised to sum 1), plus l2_reg / 4 times the mean squared norms."""
    a = as_tensor(anchor)
    if not a.dtype.is_floating:
        raise TypeError(f"npair_loss: anchor must be float, got {a.dtype}")
    pos = cast(as_tensor(positive), a.dtype)
    lab = ops.reshape(as_tensor(labels), [-1, 1])
    same = ops.cast(ops.equal(lab, ops.transpose(lab, [1, 0])), a.dtype)
    targets = ops.divide(same, ops.sum(same, axis=1, keepdim=True))
    l2 = ops.add(ops.mean(ops.sum(ops.square(a), axis=1)), ops.mean(ops.sum(ops.square(pos), axis=1)))
    sim = ops.matmul(a, pos, transpose_y=True)
    log_p = ops.subtract(sim, ops.logsumexp(sim, axis=1, keepdim=True))
    ce = ops.neg(ops.sum(ops.multiply(targets, log_p), axis=1))
    return ops.add(ops.multiply(l2, 0.25 * float(l2_reg)), ops.mean(ce))
