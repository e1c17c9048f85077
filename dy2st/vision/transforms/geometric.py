"""The functional geometric transforms rotate, affine and perspective on HWC numpy images, PIL
images (through Pillow's own transform, as Paddle) and CHW / NCHW tensors (as Paddle's tensor
path: grid_sample's zero border blended with the fill colour)."""
from __future__ import annotations

import math
import numbers
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ...runtime.tensor import Tensor
from .images import check_image, image_size, is_pil
from .sampling import (
    INTERPOLATIONS,
    affine_nearest_index,
    affine_source,
    gather_nearest,
    grid_source,
    perspective_source,
    sample,
)

__all__ = ["rotate", "affine", "perspective", "affine_inverse_matrix", "perspective_coeffs",
           "three_on_a_line"]


def _check_interpolation(interpolation: Any) -> None:
    if not isinstance(interpolation, str):
        raise TypeError("Argument interpolation should be a string")
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation should be one of {list(INTERPOLATIONS)}, but got "
                         f"{interpolation!r}")


# ----------------------------------------------------------------------------- matrices
def affine_inverse_matrix(center: Sequence[float], angle: float, translate: Sequence[float],
                          scale: float, shear: Sequence[float]) -> List[float]:
    """The output-to-input map (a, b, c, d, e, f) of the affine transform that rotates by
    `angle` degrees clockwise, shears by `shear` (x, y) degrees and scales by `scale` about
    `center`, then translates by `translate`."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    rotation = np.array([[math.cos(rot), -math.sin(rot)], [math.sin(rot), math.cos(rot)]])
    forward = rotation @ np.array([[1.0, 0.0], [-math.tan(sy), 1.0]]) \
        @ np.array([[1.0, -math.tan(sx)], [0.0, 1.0]])
    # the rotation and both shears have determinant 1: the inverse is the adjugate
    inv = np.array([[forward[1, 1], -forward[0, 1]], [-forward[1, 0], forward[0, 0]]]) / scale
    cx, cy = center
    shift = inv @ np.array([-cx - translate[0], -cy - translate[1]])
    return [inv[0, 0], inv[0, 1], shift[0] + cx, inv[1, 0], inv[1, 1], shift[1] + cy]


def three_on_a_line(points: Sequence[Sequence[float]]) -> bool:
    """Whether three of the four points are on one line (no perspective map joins them)."""
    pts = np.asarray(points, dtype=np.float64)
    for i, j, k in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)):
        (ax, ay), (bx, by) = pts[j] - pts[i], pts[k] - pts[i]
        if ax * by - ay * bx == 0:
            return True
    return False


def perspective_coeffs(startpoints: Sequence[Sequence[float]],
                       endpoints: Sequence[Sequence[float]]) -> List[float]:
    """(a..h) of the map from the end quadrilateral back to the start one:
    x_start = (a x + b y + c) / (g x + h y + 1), y_start = (d x + e y + f) / (g x + h y + 1)."""
    src = np.asarray(startpoints, dtype=np.float64)
    dst = np.asarray(endpoints, dtype=np.float64)
    if src.shape != (4, 2) or dst.shape != (4, 2):
        raise ValueError(f"startpoints and endpoints should each be four [x, y] points, got "
                         f"{src.shape} and {dst.shape}")
    rows = np.zeros((8, 8))
    for k, ((x, y), (u, v)) in enumerate(zip(dst, src)):
        rows[2 * k] = [x, y, 1, 0, 0, 0, -u * x, -u * y]
        rows[2 * k + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y]
    for name, pts in (("startpoints", src), ("endpoints", dst)):
        if three_on_a_line(pts):
            raise ValueError(f"perspective: three of the {name} {pts.tolist()} are on one "
                             f"line; no perspective map joins them")
    # least squares as Paddle solves it, so that the coefficients round the same way (when
    # the output's origin maps to infinity the system is singular, and this is Paddle's answer)
    coeffs = np.linalg.lstsq(rows, src.reshape(8), rcond=None)[0]
    return list(coeffs)


def _rotation(angle: float, w: int, h: int, center: Optional[Sequence[float]],
              expand: bool) -> Tuple[List[float], int, int]:
    """Pillow's rotate(): the inverse matrix and the output size."""
    cx, cy = (w / 2.0, h / 2.0) if center is None else center
    rad = -math.radians(angle % 360.0)
    cos, sin = round(math.cos(rad), 15), round(math.sin(rad), 15)
    m = [cos, sin, 0.0, -sin, cos, 0.0]
    m[2] = cos * -cx + sin * -cy + cx
    m[5] = -sin * -cx + cos * -cy + cy
    if not expand:
        return m, w, h
    xs = [m[0] * x + m[1] * y + m[2] for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
    ys = [m[3] * x + m[4] * y + m[5] for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
    nw = math.ceil(max(xs)) - math.floor(min(xs))
    nh = math.ceil(max(ys)) - math.floor(min(ys))
    tx, ty = -(nw - w) / 2.0, -(nh - h) / 2.0
    m[2], m[5] = m[0] * tx + m[1] * ty + m[2], m[3] * tx + m[4] * ty + m[5]
    return m, nw, nh


def _tensor_rotation(angle: float, w: int, h: int, center: Optional[Sequence[float]],
                     expand: bool) -> Tuple[List[float], int, int]:
    """Paddle's tensor rotate(): the map works in coordinates centred on the image, and an
    expanded output is centred on where the image's centre goes."""
    rad = math.radians(-angle % 360)
    # Paddle holds the matrix in float32 and adds the centre's shift in float32
    cos, sin = np.float32(math.cos(rad)), np.float32(math.sin(rad))
    rx, ry = (0.0, 0.0) if center is None else (center[0] - w * 0.5, center[1] - h * 0.5)
    rx32, ry32 = np.float32(-rx), np.float32(-ry)
    m = [cos, sin, cos * rx32 + sin * ry32 + np.float32(rx), -sin, cos,
         -sin * rx32 + cos * ry32 + np.float32(ry)]
    ow, oh = w, h
    if expand:
        corners = [(-0.5 * w, -0.5 * h), (-0.5 * w, 0.5 * h), (0.5 * w, 0.5 * h),
                   (0.5 * w, -0.5 * h)]
        xs = [m[0] * x + m[1] * y + m[2] for x, y in corners]
        ys = [m[3] * x + m[4] * y + m[5] for x, y in corners]
        ow = int(math.ceil(max(xs)) - math.floor(min(xs)))
        oh = int(math.ceil(max(ys)) - math.floor(min(ys)))
    return m, ow, oh


# ----------------------------------------------------------------------------- warping
def _pil_call(img: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    from PIL import Image  # optional: only reached with a PIL image, so Pillow is there
    resample = {"nearest": Image.Resampling.NEAREST, "bilinear": Image.Resampling.BILINEAR,
                "bicubic": Image.Resampling.BICUBIC}[kwargs.pop("interpolation")]
    fill = kwargs.pop("fill")
    bands = len(img.getbands())
    if isinstance(fill, numbers.Number):
        fill = fill if bands == 1 else tuple([fill] * bands)
    elif fill is not None:
        fill = tuple(fill)[0] if bands == 1 else tuple(fill)
    if method == "rotate":
        return img.rotate(*args, resample=resample, fillcolor=fill, **kwargs)
    kind = Image.Transform.AFFINE if method == "affine" else Image.Transform.PERSPECTIVE
    return img.transform(img.size, kind, args[0], resample, fillcolor=fill)


def _warp_array(a: np.ndarray, matrix: Sequence[float], oh: int, ow: int, interpolation: str,
                fill: Any, border: str, perspective_map: bool = False) -> np.ndarray:
    squeeze = a.ndim == 2
    hwc = a[..., None] if squeeze else a
    if border == "grid":
        xs, ys = grid_source(matrix, a.shape[1], a.shape[0], ow, oh, perspective_map)
        out = sample(hwc, xs, ys, interpolation, fill, border)
    elif perspective_map:
        xs, ys = perspective_source(matrix, oh, ow)
        out = sample(hwc, xs, ys, interpolation, fill, border)
    elif interpolation == "nearest":
        out = gather_nearest(hwc, *affine_nearest_index(matrix, oh, ow), fill)
    else:
        xs, ys = affine_source(matrix, oh, ow)
        out = sample(hwc, xs, ys, interpolation, fill, border)
    return out[..., 0] if squeeze else out


def _warp_tensor(img: Tensor, matrix: Sequence[float], oh: int, ow: int, interpolation: str,
                 fill: Any, perspective_map: bool = False) -> Tensor:
    """Paddle's tensor warp: `matrix` maps centred coordinates (affine) or pixel coordinates
    (perspective) of the output to the input's."""
    a = img.numpy()
    if a.ndim not in (3, 4):
        raise ValueError(f"The dim for input Tensor should be 3-D or 4-D, but received "
                         f"{a.ndim}")
    batch = a.reshape((-1,) + a.shape[-2:])                    # (N*C, H, W)
    channels = a.shape[-3]
    fills = fill if fill is None or isinstance(fill, numbers.Number) else \
        np.tile(np.asarray(fill, dtype=np.float64).reshape(-1)[:channels], batch.shape[0] //
                channels)
    out = _warp_array(batch.transpose(1, 2, 0), matrix, oh, ow, interpolation, fills, "grid",
                      perspective_map)
    return Tensor(np.ascontiguousarray(out.transpose(2, 0, 1).reshape(a.shape[:-2] + (oh, ow))))


def rotate(img: Any, angle: float, interpolation: str = "nearest", expand: bool = False,
           center: Optional[Sequence[float]] = None, fill: Any = 0) -> Any:
    """Rotate by `angle` degrees counter-clockwise about `center` ((x, y), default the image
    centre); expand=True enlarges the output to hold the whole rotated image; `fill` colours
    the area outside it."""
    check_image(img)
    _check_interpolation(interpolation)
    if is_pil(img):
        return _pil_call(img, "rotate", angle, interpolation=interpolation, expand=expand,
                         center=None if center is None else tuple(center), fill=fill)
    w, h = image_size(img)
    if isinstance(img, Tensor):
        matrix, ow, oh = _tensor_rotation(float(angle), w, h, center, expand)
        return _warp_tensor(img, matrix, oh, ow, interpolation, fill)
    turn = float(angle) % 360.0
    if center is None and (turn in (0.0, 180.0) or (turn in (90.0, 270.0) and
                                                     (expand or w == h))):
        # quarter turns are exact transposes, as in Pillow
        return np.ascontiguousarray(np.rot90(img, int(turn // 90), axes=(0, 1)))
    matrix, ow, oh = _rotation(float(angle), w, h, center, expand)
    return _warp_array(img, matrix, oh, ow, interpolation, fill, "pil")


def _affine_args(angle: Any, translate: Any, scale: Any, shear: Any,
                 center: Any) -> Tuple[float, List[float], List[float]]:
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    shear = [shear, 0.0] if isinstance(shear, numbers.Number) else list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    return float(angle), [float(t) for t in translate], [float(s) for s in shear]


def affine(img: Any, angle: float, translate: Sequence[float], scale: float,
           shear: Any, interpolation: str = "nearest", fill: Any = 0,
           center: Optional[Sequence[float]] = None) -> Any:
    """Rotate by `angle` degrees clockwise, shear by `shear` degrees (a number shears along x;
    (x, y) both) and scale by `scale` about `center` (default the image centre), then
    translate by `translate` pixels; the output keeps the input size."""
    check_image(img)
    angle, translate, shear = _affine_args(angle, translate, scale, shear, center)
    _check_interpolation(interpolation)
    w, h = image_size(img)
    pivot = (w * 0.5, h * 0.5) if center is None else (float(center[0]), float(center[1]))
    matrix = affine_inverse_matrix(pivot, angle, translate, float(scale), shear)
    if is_pil(img):
        return _pil_call(img, "affine", matrix, interpolation=interpolation, fill=fill)
    if isinstance(img, Tensor):
        centred = affine_inverse_matrix((pivot[0] - w * 0.5, pivot[1] - h * 0.5), angle,
                                        translate, float(scale), shear)
        return _warp_tensor(img, centred, h, w, interpolation, fill)
    return _warp_array(img, matrix, h, w, interpolation, fill, "pil")


def perspective(img: Any, startpoints: Sequence[Sequence[float]],
                endpoints: Sequence[Sequence[float]], interpolation: str = "nearest",
                fill: Any = 0) -> Any:
    """Warp so that the four `startpoints` ([top-left, top-right, bottom-right, bottom-left],
    [x, y] each) land on `endpoints`; the output keeps the input size."""
    check_image(img)
    _check_interpolation(interpolation)
    coeffs = perspective_coeffs(startpoints, endpoints)
    if is_pil(img):
        return _pil_call(img, "perspective", coeffs, interpolation=interpolation, fill=fill)
    w, h = image_size(img)
    if isinstance(img, Tensor):
        return _warp_tensor(img, coeffs, h, w, interpolation, fill, perspective_map=True)
    return _warp_array(img, coeffs, h, w, interpolation, fill, "pil", perspective_map=True)
