"""Separable linear maps along spatial axes: average pooling (fixed and adaptive) and
interpolation (nearest, linear, cubic) are each a matrix per axis, so one op (`resample`) and
its transpose (`resample_grad`) serve all of them.

A map is a dict `spec` with a `kind`:
  pool      k, s, lo, hi, ceil, exclusive   (windows [i*s - lo, i*s - lo + k))
  adaptive  out                             (windows [floor(i*L/out), ceil((i+1)*L/out)))
  nearest / linear / cubic  out (or scale), align_corners, align_mode
An interpolation `out` may instead come from an int tensor input of the op: `out_input` = its index
among the op's size inputs (sizes known only when the program runs).
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from ...runtime.registry import Meta, register_op

Spec = Dict[str, Any]


def out_len(spec: Spec, size: int, dims: Sequence[Any] = ()) -> int:
    """The output length of one axis of `size` (-1 when it depends on an unknown size); `dims`
    are the op's size inputs (arrays when running, Variables while inferring)."""
    kind = spec["kind"]
    if spec.get("out_input") is not None:
        d = dims[spec["out_input"]] if dims else None
        return int(np.asarray(d).reshape(-1)[0]) if isinstance(d, (np.ndarray, np.generic, int)) else -1
    if kind == "pool":
        if size < 0:
            return -1
        span = size + spec["lo"] + spec["hi"] - spec["k"] + (spec["s"] - 1 if spec["ceil"] else 0)
        return span // spec["s"] + 1
    if spec.get("out") is not None:
        return int(spec["out"])
    return -1 if size < 0 else int(math.floor(size * spec["scale"]))


def windows(spec: Spec, size: int) -> List[Tuple[int, int, float]]:  # pooling specs only
    """(start, end, divisor) of every output position of a pooling axis, clipped to [0, size)."""
    n = out_len(spec, size)
    if spec["kind"] == "adaptive":
        return [(i * size // n, -(-(i + 1) * size // n), float(-(-(i + 1) * size // n) - i * size // n))
                for i in range(n)]
    out = []
    for i in range(n):
        start = i * spec["s"] - spec["lo"]
        end = start + spec["k"]
        lo, hi = max(start, 0), min(end, size)
        out.append((lo, hi, float(hi - lo) if spec["exclusive"] else float(spec["k"])))
    return out


def _ratio(spec: Spec, size: int, n: int) -> float:
    if n <= 1:
        return 0.0
    if spec["align_corners"]:
        return (size - 1) / (n - 1)
    scale = spec.get("scale")
    return 1.0 / scale if scale else size / n


def _cubic_weights(t: float, a: float = -0.75) -> List[float]:
    def near(x):   # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):    # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def matrix(spec: Spec, size: int, n: int = -1) -> np.ndarray:
    """The [n, size] float64 matrix of one axis (n: the output length, from the spec if -1)."""
    n = out_len(spec, size) if n < 0 else n
    m = np.zeros((n, size))
    kind = spec["kind"]
    if kind in ("pool", "adaptive"):
        for i, (lo, hi, div) in enumerate(windows(spec, size)):
            if hi > lo:
                m[i, lo:hi] = 1.0 / div
        return m
    ratio = _ratio(spec, size, n)
    for i in range(n):
        if kind == "nearest":
            src = int(ratio * i + 0.5) if spec["align_corners"] else int(ratio * i)
            m[i, min(src, size - 1)] = 1.0
        elif kind == "linear":
            centred = spec.get("align_mode", 0) == 0 and not spec["align_corners"]
            src = max(ratio * (i + 0.5) - 0.5 if centred else ratio * i, 0.0)
            i0 = int(src)
            i1 = i0 + 1 if i0 < size - 1 else i0
            lam = src - i0
            m[i, i0] += 1.0 - lam
            m[i, i1] += lam
        elif kind == "cubic":
            src = ratio * i if spec["align_corners"] else ratio * (i + 0.5) - 0.5
            base = math.floor(src)
            for j, wgt in enumerate(_cubic_weights(src - base)):
                m[i, min(max(base - 1 + j, 0), size - 1)] += wgt
        else:
            raise ValueError(f"resample: unknown map kind {kind!r}")
    return m


def _apply(x: np.ndarray, axes: Sequence[int], mats: Sequence[np.ndarray]) -> np.ndarray:
    for axis, m in zip(axes, mats):
        x = np.moveaxis(np.tensordot(x, m.astype(x.dtype, copy=False), axes=([axis], [1])), -1, axis)
    return x


def _resample_infer(x, *dims, axes, specs):
    shape = list(x._shape)
    for axis, spec in zip(axes, specs):
        shape[axis] = out_len(spec, shape[axis])
    return Meta(tuple(shape), x.dtype)


@register_op("resample", infer=_resample_infer)
def _resample_kernel(x, *dims, axes, specs):
    """x with each axis in `axes` mapped by the matrix of its spec (dims: run-time output sizes)."""
    mats = []
    for a, s in zip(axes, specs):
        n = out_len(s, x.shape[a], dims)
        if n < 1:
            raise ValueError(f"resample: the output size of axis {a} must be positive, got {n}")
        mats.append(matrix(s, x.shape[a], n))
    return np.ascontiguousarray(_apply(x, axes, mats))


@register_op("resample_grad", infer=lambda g, x, *dims, axes, specs: Meta(x._shape, g.dtype))
def _resample_grad_kernel(g, x, *dims, axes, specs):
    """The transpose of resample (x gives the input sizes, g the output sizes)."""
    mats = [matrix(s, x.shape[a], g.shape[a]).T for a, s in zip(axes, specs)]
    return np.ascontiguousarray(_apply(g, axes, mats))
