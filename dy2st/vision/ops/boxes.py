"""Box coding and anchors: box_coder (center-size encoding against prior boxes, differentiable
in the boxes) and prior_box (SSD's anchors for a feature map, computed from shapes alone)."""
from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ...nn.functional.dims import known_dims
from ...runtime import ops
from ...runtime.ops.operands import as_tensor, is_tensor

__all__ = ["box_coder", "prior_box"]


def _center_size(boxes: Any, norm: float) -> Tuple[Any, Any, Any, Any]:
    w = boxes[..., 2] - boxes[..., 0] + norm
    h = boxes[..., 3] - boxes[..., 1] + norm
    return boxes[..., 0] + w * 0.5, boxes[..., 1] + h * 0.5, w, h


def _variances(prior_box_var: Any, dtype: Any) -> Optional[List[Any]]:
    """The four variance terms: tensors [M] from a [M, 4] tensor, floats from a list, or None."""
    if prior_box_var is None:
        return None
    if is_tensor(prior_box_var):
        var = prior_box_var.astype(dtype) if prior_box_var.dtype != dtype else prior_box_var
        return [var[:, k] for k in range(4)]
    values = [float(v) for v in prior_box_var]
    if len(values) != 4:
        raise ValueError(f"box_coder: prior_box_var must be a [M, 4] tensor or 4 floats, got "
                         f"{prior_box_var!r}")
    return values


def _along(v: Any, axis: int) -> Any:
    """A per-prior term [M] placed to broadcast against [N, M] (axis 0) or [M, N] (axis 1)."""
    return ops.unsqueeze(v, 0 if axis == 0 else 1) if is_tensor(v) else v


def box_coder(prior_box: Any, prior_box_var: Any, target_box: Any,
              code_type: str = "encode_center_size", box_normalized: bool = True,
              axis: int = 0, name: Optional[str] = None) -> Any:
    """Encode target boxes [N, 4] against prior boxes [M, 4] as center-size offsets [N, M, 4]
    ((dx / pw, dy / ph, log(tw / pw), log(th / ph)) divided by the variances), or decode
    offsets [N, M, 4] back to corner boxes; box_normalized=False counts both end pixels (+1).
    For decoding, axis=0 pairs prior j with target column j, axis=1 prior i with row i."""
    prior_box, target_box = as_tensor(prior_box), as_tensor(target_box)
    if target_box.dtype != prior_box.dtype:
        target_box = target_box.astype(prior_box.dtype)
    norm = 0.0 if box_normalized else 1.0
    var = _variances(prior_box_var, prior_box.dtype)
    pcx, pcy, pw, ph = _center_size(prior_box, norm)
    if code_type == "encode_center_size":
        if len(known_dims(target_box)) != 2:
            raise ValueError(f"box_coder: encoding takes target_box [N, 4], got shape "
                             f"{known_dims(target_box)}")
        # Paddle centres a target box at the mean of its corners, a prior at x1 + w / 2
        _, _, tw, th = _center_size(target_box, norm)
        tcx = (target_box[..., 0] + target_box[..., 2]) * 0.5
        tcy = (target_box[..., 1] + target_box[..., 3]) * 0.5
        tcx, tcy, tw, th = (ops.unsqueeze(t, 1) for t in (tcx, tcy, tw, th))
        pcx, pcy, pw, ph = (ops.unsqueeze(t, 0) for t in (pcx, pcy, pw, ph))
        out = [(tcx - pcx) / pw, (tcy - pcy) / ph, ops.log(ops.abs(tw / pw)),
               ops.log(ops.abs(th / ph))]
        if var is not None:
            out = [o / _along(v, 0) for o, v in zip(out, var)]
        return ops.stack(out, axis=-1)
    if code_type != "decode_center_size":
        raise ValueError(f"box_coder: code_type must be 'encode_center_size' or "
                         f"'decode_center_size', got {code_type!r}")
    if axis not in (0, 1):
        raise ValueError(f"box_coder: axis must be 0 or 1, got {axis!r}")
    if len(known_dims(target_box)) != 3:
        raise ValueError(f"box_coder: decoding takes target_box [N, M, 4], got shape "
                         f"{known_dims(target_box)}")
    pcx, pcy, pw, ph = (_along(t, axis) for t in (pcx, pcy, pw, ph))
    v = [_along(t, axis) for t in var] if var is not None else [1.0] * 4
    cx = v[0] * target_box[..., 0] * pw + pcx
    cy = v[1] * target_box[..., 1] * ph + pcy
    w = ops.exp(v[2] * target_box[..., 2]) * pw
    h = ops.exp(v[3] * target_box[..., 3]) * ph
    return ops.stack([cx - w * 0.5, cy - h * 0.5, cx + w * 0.5 - norm, cy + h * 0.5 - norm],
                     axis=-1)


def _floats(v: Any) -> List[float]:
    return [float(x) for x in (v if isinstance(v, (list, tuple)) else [v])]


def expand_aspect_ratios(aspect_ratios: Sequence[float], flip: bool) -> List[float]:
    """1, then each new ratio (and its inverse when flip), skipping repeats."""
    out = [1.0]
    for ar in aspect_ratios:
        if any(abs(ar - seen) < 1e-6 for seen in out):
            continue
        out.append(ar)
        if flip:
            out.append(1.0 / ar)
    return out


def prior_sizes(min_sizes: List[float], max_sizes: List[float], ratios: List[float],
                min_max_order: bool) -> List[Tuple[float, float]]:
    """The (width, height) of each prior at one location, in Paddle's order."""
    sizes: List[Tuple[float, float]] = []
    for s, lo in enumerate(min_sizes):
        shaped = [(lo * math.sqrt(ar), lo / math.sqrt(ar)) for ar in ratios]
        big = [(math.sqrt(lo * max_sizes[s]),) * 2] if max_sizes else []
        if min_max_order:
            sizes += [(lo, lo)] + big + [wh for wh, ar in zip(shaped, ratios)
                                         if abs(ar - 1.0) >= 1e-6]
        else:
            sizes += shaped + big
    return sizes


def prior_box(input: Any, image: Any, min_sizes: Any, max_sizes: Any = None,
              aspect_ratios: Any = (1.0,), variance: Any = (0.1, 0.1, 0.2, 0.2), flip: bool = False,
              clip: bool = False, steps: Any = (0.0, 0.0), offset: float = 0.5,
              min_max_aspect_ratios_order: bool = False, name: Optional[str] = None
              ) -> Tuple[Any, Any]:
    """SSD prior boxes for feature map `input` [N, C, H, W] over `image` [N, C, IH, IW]:
    boxes [H, W, num_priors, 4] normalised to the image, and their variances. They depend on
    the shapes only (constants of a converted program)."""
    h, w = known_dims(input)[2:]
    ih, iw = known_dims(image)[2:]
    if min(h, w, ih, iw) < 0:
        raise ValueError("prior_box: the feature map's and the image's height and width must be "
                         f"known when the program is built, got {[h, w]} and {[ih, iw]}")
    mins, maxs = _floats(min_sizes), _floats(max_sizes) if max_sizes is not None else []
    if maxs and len(maxs) != len(mins):
        raise ValueError(f"prior_box: max_sizes {maxs} must pair with min_sizes {mins}")
    var = _floats(variance)
    if len(var) != 4:
        raise ValueError(f"prior_box: variance must hold 4 floats, got {variance!r}")
    step = _floats(steps)
    step_w = step[0] if step[0] > 0 else iw / w
    step_h = step[1] if step[1] > 0 else ih / h
    sizes = np.asarray(prior_sizes(mins, maxs, expand_aspect_ratios(_floats(aspect_ratios), flip),
                                   min_max_aspect_ratios_order)) / 2.0         # [P, 2]
    cx = ((np.arange(w) + offset) * step_w)[None, :, None]
    cy = ((np.arange(h) + offset) * step_h)[:, None, None]
    boxes = np.stack(np.broadcast_arrays((cx - sizes[:, 0]) / iw, (cy - sizes[:, 1]) / ih,
                                         (cx + sizes[:, 0]) / iw, (cy + sizes[:, 1]) / ih), -1)
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    dtype = as_tensor(input).dtype
    variances = np.broadcast_to(np.asarray(var), boxes.shape)
    return (ops.to_tensor(boxes.astype(dtype.np)), ops.to_tensor(variances.astype(dtype.np)))
