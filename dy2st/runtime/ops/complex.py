"""Complex tensors: complex(real, imag), real, imag, conj, angle, as_complex / as_real and the
functions composed from them (polar, sgn, isreal, is_complex, view_as_*). Their gradients
(Paddle's conjugate convention) are in autograd/rules/complex_rules.py."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..dtype import COMPLEX_OF, REAL_OF, dtype_name, float32
from ..registry import Meta, apply, register_op
from . import infer as I
from .creation import ones_like, zeros_like
from .math import abs as _abs, cos, sin
from .operands import as_tensor, binary_operands, cast
from .selection import where


def _complex_infer(re, im):
    return Meta(I.broadcast_shapes("complex", re._shape, im._shape), COMPLEX_OF[re.dtype])


@register_op("complex", infer=_complex_infer)
def _complex_kernel(re, im):
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), COMPLEX_OF[str(re.dtype)])
    out.real, out.imag = re, im
    return out


def _part_infer(x):
    return Meta(x._shape, REAL_OF[x.dtype])


@register_op("real", infer=_part_infer)
def _real_kernel(x):
    return np.array(x.real)


@register_op("imag", infer=_part_infer)
def _imag_kernel(x):
    return np.array(x.imag)


@register_op("conj", infer=I.same)
def _conj_kernel(x):
    return np.conj(x)


@register_op("angle", infer=lambda x: Meta(x._shape, REAL_OF.get(x.dtype, x.dtype)))
def _angle_kernel(x):
    return np.angle(x).astype(x.real.dtype)


def _as_complex_infer(x):
    if x._shape and x._shape[-1] not in (2, -1):
        raise ValueError(f"as_complex: the last dim must have size 2, got shape {list(x._shape)}")
    return Meta(x._shape[:-1], COMPLEX_OF[x.dtype])


@register_op("as_complex", infer=_as_complex_infer)
def _as_complex_kernel(x):
    if x.ndim == 0 or x.shape[-1] != 2:
        raise ValueError(f"as_complex: the last dim must have size 2, got shape {list(x.shape)}")
    return _complex_kernel(x[..., 0], x[..., 1])


@register_op("as_real", infer=lambda x: Meta(tuple(x._shape) + (2,), REAL_OF[x.dtype]))
def _as_real_kernel(x):
    return np.stack([x.real, x.imag], axis=-1)


# ----------------------------------------------------------------------------- public functions
def _need_float(x: Any, op: str) -> Any:
    x = as_tensor(x)
    if x.dtype not in COMPLEX_OF:
        raise TypeError(f"{op}: expects float16/float32/float64 tensors, got {dtype_name(x.dtype)}")
    return x


def _need_complex(x: Any, op: str) -> Any:
    x = as_tensor(x)
    if not x.dtype.is_complex:
        raise TypeError(f"{op}: expects a complex64 or complex128 tensor, got {dtype_name(x.dtype)}")
    return x


def complex(real: Any, imag: Any, name: Optional[str] = None) -> Any:
    """The complex tensor real + 1j * imag (both float32 or both float64; broadcast)."""
    real, imag = _need_float(real, "complex"), _need_float(imag, "complex")
    if real.dtype != imag.dtype:
        raise TypeError(f"complex: real and imag must have one dtype, got {dtype_name(real.dtype)} and "
                        f"{dtype_name(imag.dtype)}")
    if real.dtype == "float16":
        real, imag = cast(real, float32), cast(imag, float32)
    return apply("complex", [real, imag])


def real(x: Any, name: Optional[str] = None) -> Any:
    """The real part of x (float32 for complex64, float64 for complex128; x for a real x)."""
    x = as_tensor(x)
    return apply("real", [x]) if x.dtype.is_complex else apply("assign", [x])


def imag(x: Any, name: Optional[str] = None) -> Any:
    """The imaginary part of x (zeros for a real x)."""
    x = as_tensor(x)
    return apply("imag", [x]) if x.dtype.is_complex else zeros_like(x)


def conj(x: Any, name: Optional[str] = None) -> Any:
    """The complex conjugate of x (x itself for a real x)."""
    x = as_tensor(x)
    return apply("conj", [x]) if x.dtype.is_complex else x


def angle(x: Any, name: Optional[str] = None) -> Any:
    """The argument of each element in (-pi, pi] (0 or pi for real ones), as a float tensor."""
    x = as_tensor(x)
    if not x.dtype.is_inexact:
        x = cast(x, float32)
    return apply("angle", [x])


def as_complex(x: Any, name: Optional[str] = None) -> Any:
    """A float tensor of shape [..., 2] read as the complex tensor of shape [...]."""
    return apply("as_complex", [_need_float(x, "as_complex")])


def as_real(x: Any, name: Optional[str] = None) -> Any:
    """A complex tensor of shape [...] as the float tensor [..., 2] of its real and imag parts."""
    return apply("as_real", [_need_complex(x, "as_real")])


def view_as_complex(input: Any) -> Any:
    """as_complex under PyTorch's name."""
    return as_complex(input)


def view_as_real(input: Any) -> Any:
    """as_real under PyTorch's name."""
    return as_real(input)


def polar(abs: Any, angle: Any, name: Optional[str] = None) -> Any:
    """The complex tensor abs * (cos(angle) + 1j * sin(angle))."""
    abs, angle = binary_operands(_need_float(abs, "polar"), _need_float(angle, "polar"))
    return complex(abs * cos(angle), abs * sin(angle))


def sgn(x: Any, name: Optional[str] = None) -> Any:
    """x / |x| for complex x (0 where x is 0); the sign for real x."""
    x = as_tensor(x)
    if not x.dtype.is_complex:
        return apply("sign", [x])
    mag = _abs(x)
    safe = where(mag == 0, mag + 1, mag)
    return where(mag == 0, zeros_like(x), x / cast(safe, x.dtype))


def is_complex(x: Any) -> bool:
    """Whether x is a complex64 / complex128 tensor."""
    if not hasattr(x, "dtype"):
        raise TypeError(f"is_complex: expects a tensor, got {type(x).__name__}")
    return x.dtype.is_complex


def isreal(x: Any, name: Optional[str] = None) -> Any:
    """Whether each element is real (its imaginary part is 0); all True for real tensors."""
    x = as_tensor(x)
    if not x.dtype.is_complex:
        return ones_like(x, dtype="bool")
    return apply("imag", [x]) == 0
