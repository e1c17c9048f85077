"""paddle.vision.transforms' geometric warps (rotate, affine, perspective, resize) on a 224x224
RGB numpy image, measured in one run (not a test) against two baselines doing the same work:
Pillow's C implementation on the same image (when Pillow is installed), and a per-pixel Python
loop over the output (timed on a 32x32 crop and scaled to 224x224).

Run with `PYTHONPATH=. python benchmarks/vision_transforms.py` from the repository root; prints
times and ratios (dy2st / baseline: below 1 is faster)."""
from __future__ import annotations

import math
import timeit
from typing import Callable

import numpy as np

from dy2st.vision.transforms import functional as F

REPEAT = 3
IMG = np.random.default_rng(0).integers(0, 256, (224, 224, 3)).astype(np.uint8)
START = [[0, 0], [223, 0], [223, 223], [0, 223]]
END = [[10, 5], [210, 12], [220, 215], [3, 200]]


def best_time(fn: Callable[[], object], number: int = 1) -> float:
    return min(timeit.repeat(fn, number=number, repeat=REPEAT)) / number


def loop_rotate(img: np.ndarray, angle: float) -> np.ndarray:
    """Nearest-neighbour rotation about the centre, one output pixel at a time."""
    h, w = img.shape[:2]
    out = np.zeros_like(img)
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    for i in range(h):
        for j in range(w):
            x, y = j + 0.5 - w / 2, i + 0.5 - h / 2
            u, v = cos * x - sin * y + w / 2, sin * x + cos * y + h / 2
            if 0 <= u < w and 0 <= v < h:
                out[i, j] = img[int(v), int(u)]
    return out


def main() -> None:
    cases = {
        "rotate nearest": lambda a: F.rotate(a, 33),
        "rotate bilinear": lambda a: F.rotate(a, 33, "bilinear"),
        "rotate bicubic expand": lambda a: F.rotate(a, 33, "bicubic", expand=True),
        "affine bilinear": lambda a: F.affine(a, 20, [5, -3], 1.1, [8, 2], "bilinear"),
        "perspective bilinear": lambda a: F.perspective(a, START, END, "bilinear"),
        "resize bilinear 160": lambda a: F.resize(a, (160, 160)),
        "resize bicubic 160": lambda a: F.resize(a, (160, 160), "bicubic"),
    }
    try:
        from PIL import Image  # optional: the Pillow baseline runs only when it is installed
    except ImportError:
        Image = None
    print(f"{'224x224x3 uint8':24s} {'dy2st ms':>9s} {'Pillow ms':>10s} {'ratio':>7s}")
    for name, fn in cases.items():
        ours = best_time(lambda fn=fn: fn(IMG), number=5)
        if Image is None:
            print(f"{name:24s} {ours * 1e3:9.2f}")
            continue
        pil = Image.fromarray(IMG)
        theirs = best_time(lambda fn=fn, pil=pil: np.asarray(fn(pil)), number=5)
        print(f"{name:24s} {ours * 1e3:9.2f} {theirs * 1e3:10.2f} {ours / theirs:7.2f}")
    crop = IMG[:32, :32]
    loop = best_time(lambda: loop_rotate(crop, 33)) * (224 * 224) / (32 * 32)
    ours = best_time(lambda: F.rotate(IMG, 33), number=5)
    print(f"rotate nearest vs a per-pixel Python loop (scaled to 224x224): "
          f"{ours * 1e3:.2f} ms vs {loop * 1e3:.0f} ms, ratio {ours / loop:.4f}")


if __name__ == "__main__":
    main()
