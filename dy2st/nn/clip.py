"""Gradient clipping (paddle.nn.ClipGradByValue / ClipGradByNorm / ClipGradByGlobalNorm).

A clip object maps a list of (parameter, gradient) pairs to clipped pairs. It is written with
dy2st ops, so the same code clips eager gradients and, while a train step is traced, symbolic
ones. Parameters with `need_clip = False` keep their gradient."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from ..runtime import ops

__all__ = ["GradientClipBase", "ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm"]

ParamsGrads = List[Tuple[Any, Any]]


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a float, got {type(value).__name__}")
    return float(value)


def _clipped(param: Any) -> bool:
    return getattr(param, "need_clip", True) is not False


def _square_sum(g: Any) -> Any:
    """sum(g * g), computed in float32 at least (float16 gradients would overflow)."""
    if g.dtype == "float16":
        g = ops.cast(g, "float32")
    return ops.sum(ops.multiply(g, g))


class GradientClipBase:
    """Base class: `clip(params_grads)` returns the pairs with clipped gradients."""

    def __call__(self, params_grads: Sequence[Tuple[Any, Any]]) -> ParamsGrads:
        return self._clip(list(params_grads))

    def _clip(self, params_grads: ParamsGrads) -> ParamsGrads:
        raise NotImplementedError

    def __repr__(self) -> str:
        return str(self)


class ClipGradByValue(GradientClipBase):
    """Each gradient element is limited to [min, max] (min defaults to -max)."""

    def __init__(self, max: float, min: Optional[float] = None) -> None:
        max = _number(max, "ClipGradByValue: max")
        min = -max if min is None else _number(min, "ClipGradByValue: min")
        if max <= min:
            raise ValueError(f"ClipGradByValue: max ({max}) must be greater than min ({min})")
        self.max, self.min = max, min

    def __str__(self) -> str:
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def _clip(self, params_grads: ParamsGrads) -> ParamsGrads:
        return [(p, g if g is None or not _clipped(p) else ops.clip(g, self.min, self.max))
                for p, g in params_grads]


class ClipGradByNorm(GradientClipBase):
    """Each gradient whose L2 norm exceeds clip_norm is scaled down to norm clip_norm."""

    def __init__(self, clip_norm: float) -> None:
        self.clip_norm = _number(clip_norm, "ClipGradByNorm: clip_norm")

    def __str__(self) -> str:
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def _clip(self, params_grads: ParamsGrads) -> ParamsGrads:
        out = []
        for p, g in params_grads:
            if g is None or not _clipped(p):
                out.append((p, g))
                continue
            norm = ops.sqrt(_square_sum(g))
            # clip_norm / max(norm, clip_norm) is exactly 1 when the norm is within the limit
            scale = ops.divide(ops.full_like(norm, self.clip_norm),
                               ops.maximum(norm, ops.full_like(norm, self.clip_norm)))
            out.append((p, ops.multiply(g, ops.cast(scale, g.dtype))))
        return out


class ClipGradByGlobalNorm(GradientClipBase):
    """All gradients are scaled by clip_norm / max(global_norm, clip_norm), where global_norm is
    the L2 norm of every gradient together."""

    def __init__(self, clip_norm: float, group_name: str = "default_group",
                 auto_skip_clip: bool = False) -> None:
        self.clip_norm = _number(clip_norm, "ClipGradByGlobalNorm: clip_norm")
        self.group_name = group_name
        # Scaling by clip_norm / max(norm, clip_norm) multiplies by exactly 1 below the limit, so
        # skipping the multiplication there (auto_skip_clip) gives the same numbers.
        self.auto_skip_clip = bool(auto_skip_clip)

    def __str__(self) -> str:
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def _clip(self, params_grads: ParamsGrads) -> ParamsGrads:
        squares = [_square_sum(g) for p, g in params_grads if g is not None and _clipped(p)]
        if not squares:
            return list(params_grads)
        wide = "float64" if any(s.dtype == "float64" for s in squares) else "float32"
        total = None
        for s in squares:
            s = s if s.dtype == wide else ops.cast(s, wide)
            total = s if total is None else ops.add(total, s)
        norm = ops.sqrt(total)
        limit = ops.full_like(norm, self.clip_norm)
        scale = ops.divide(limit, ops.maximum(norm, limit))
        out = []
        for p, g in params_grads:
            if g is None or not _clipped(p):
                out.append((p, g))
            else:
                s = scale if scale.dtype == g.dtype else ops.cast(scale, g.dtype)
                out.append((p, ops.multiply(g, s)))
        return out
