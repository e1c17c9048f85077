"""paddle.vision.ops kernels against straightforward per-box numpy loops doing the same work,
measured in one run (not a test): roi_align (separable interpolation matrices vs a loop over
boxes and bins), roi_pool (one gathered window per bin vs a loop over boxes and bins), nms
(vectorised IoU rows vs a pairwise loop) and deform_conv2d (gathered bilinear corners vs a loop
over kernel taps).

Run with `PYTHONPATH=. python benchmarks/vision_ops.py` from the repository root; prints times
and ratios (dy2st / baseline: below 1 is faster)."""
from __future__ import annotations

import math
import timeit
from typing import Callable, List

import numpy as np

import dy2st as paddle
from dy2st.vision import ops as vops

REPEAT = 3
RNG = np.random.default_rng(0)


def best_time(fn: Callable[[], object], number: int = 1) -> float:
    return min(timeit.repeat(fn, number=number, repeat=REPEAT)) / number


def boxes(n: int, span: float) -> np.ndarray:
    lo = RNG.uniform(0, span * 0.7, (n, 2))
    return np.concatenate([lo, lo + RNG.uniform(span * 0.05, span * 0.3, (n, 2))], 1)


def loop_roi_align(x: np.ndarray, rois: np.ndarray, out: int, ratio: int) -> np.ndarray:
    """Per box and bin: ratio x ratio bilinear samples averaged (aligned=True, scale 1)."""
    h, w = x.shape[2:]
    res = np.zeros((len(rois), x.shape[1], out, out))
    for r, (x0, y0, x1, y1) in enumerate(rois - 0.5):
        bh, bw = (y1 - y0) / out, (x1 - x0) / out
        for i in range(out):
            for j in range(out):
                for iy in range(ratio):
                    for ix in range(ratio):
                        y = min(max(y0 + i * bh + (iy + 0.5) * bh / ratio, 0), h - 1)
                        xx = min(max(x0 + j * bw + (ix + 0.5) * bw / ratio, 0), w - 1)
                        ya, xa = int(y), int(xx)
                        yb, xb = min(ya + 1, h - 1), min(xa + 1, w - 1)
                        ly, lx = y - ya, xx - xa
                        res[r, :, i, j] += ((1 - ly) * (1 - lx) * x[0, :, ya, xa]
                                            + (1 - ly) * lx * x[0, :, ya, xb]
                                            + ly * (1 - lx) * x[0, :, yb, xa]
                                            + ly * lx * x[0, :, yb, xb])
        res[r] /= ratio * ratio
    return res


def loop_roi_pool(x: np.ndarray, rois: np.ndarray, out: int) -> np.ndarray:
    h, w = x.shape[2:]
    res = np.zeros((len(rois), x.shape[1], out, out))
    for r, box in enumerate(np.round(rois).astype(int)):
        rh, rw = max(box[3] - box[1] + 1, 1), max(box[2] - box[0] + 1, 1)
        for i in range(out):
            for j in range(out):
                hs = min(max(math.floor(i * rh / out) + box[1], 0), h)
                he = min(max(math.ceil((i + 1) * rh / out) + box[1], 0), h)
                ws = min(max(math.floor(j * rw / out) + box[0], 0), w)
                we = min(max(math.ceil((j + 1) * rw / out) + box[0], 0), w)
                if he > hs and we > ws:
                    res[r, :, i, j] = x[0, :, hs:he, ws:we].max(axis=(1, 2))
    return res


def loop_nms(b: np.ndarray, threshold: float) -> List[int]:
    kept: List[int] = []
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    for i in range(len(b)):
        ok = True
        for k in kept:
            iw = max(min(b[i, 2], b[k, 2]) - max(b[i, 0], b[k, 0]), 0)
            ih = max(min(b[i, 3], b[k, 3]) - max(b[i, 1], b[k, 1]), 0)
            if iw * ih / (area[i] + area[k] - iw * ih) > threshold:
                ok = False
                break
        if ok:
            kept.append(i)
    return kept


def report(name: str, ours: float, base: float) -> None:
    print(f"{name:<34} dy2st {ours * 1e3:9.2f} ms   loop {base * 1e3:9.2f} ms   "
          f"ratio {ours / base:6.3f}")


def main() -> None:
    x = RNG.standard_normal((1, 64, 50, 50))
    rois = boxes(128, 50.0)
    tx, tb, tn = paddle.to_tensor(x), paddle.to_tensor(rois), paddle.to_tensor([128], "int32")
    np.testing.assert_allclose(vops.roi_align(tx, tb, tn, 7, sampling_ratio=2).numpy(),
                               loop_roi_align(x, rois, 7, 2), rtol=1e-8, atol=1e-10)
    report("roi_align 128 boxes, C=64, 7x7", best_time(
        lambda: vops.roi_align(tx, tb, tn, 7, sampling_ratio=2)),
        best_time(lambda: loop_roi_align(x, rois, 7, 2)))
    report("roi_pool 128 boxes, C=64, 7x7", best_time(lambda: vops.roi_pool(tx, tb, tn, 7)),
           best_time(lambda: loop_roi_pool(x, rois, 7)))
    many = boxes(2000, 200.0)
    order = np.argsort(-RNG.uniform(0, 1, len(many)))
    ranked = many[order]
    assert vops.nms(paddle.to_tensor(ranked), 0.5).numpy().tolist() == loop_nms(ranked, 0.5)
    report("nms 2000 boxes", best_time(lambda: vops.nms(paddle.to_tensor(ranked), 0.5)),
           best_time(lambda: loop_nms(ranked, 0.5)))
    xd = paddle.randn([2, 32, 24, 24])
    offset = paddle.randn([2, 18, 24, 24])
    w = paddle.randn([32, 32, 3, 3])
    conv = paddle.nn.functional.conv2d
    report("deform_conv2d 32->32 3x3 (vs conv2d)",
           best_time(lambda: vops.deform_conv2d(xd, offset, w, padding=1)),
           best_time(lambda: conv(xd, w, padding=1)))


if __name__ == "__main__":
    main()
