"""Paddle-named dtypes: string-like objects that map to numpy dtypes."""
from __future__ import annotations

from typing import Any

import numpy as np


class DType(str):
    """A dtype that compares equal to its name (`x.dtype == 'float32'`)."""

    __slots__ = ()

    @property
    def np(self) -> np.dtype:
        return _NUMPY[self]

    @property
    def is_floating(self) -> bool:
        return self in _FLOATING     # a set lookup: tracing asks for every op

    @property
    def is_integer(self) -> bool:
        return self in _INTEGER

    @property
    def is_complex(self) -> bool:
        return self in _COMPLEX

    @property
    def is_inexact(self) -> bool:
        """Float or complex: the dtypes a gradient flows through."""
        return self in _FLOATING or self in _COMPLEX

    def __repr__(self) -> str:
        return f"paddle.{str(self)}"


_NAMES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
          "complex64", "complex128"]
_NUMPY = {n: np.dtype(n) for n in _NAMES}
_FLOATING = frozenset(n for n in _NAMES if _NUMPY[n].kind == "f")
_INTEGER = frozenset(n for n in _NAMES if _NUMPY[n].kind in "iu")
_COMPLEX = frozenset(n for n in _NAMES if _NUMPY[n].kind == "c")
DTYPES = {n: DType(n) for n in _NAMES}

float16 = DTYPES["float16"]
float32 = DTYPES["float32"]
float64 = DTYPES["float64"]
int8 = DTYPES["int8"]
int16 = DTYPES["int16"]
int32 = DTYPES["int32"]
int64 = DTYPES["int64"]
uint8 = DTYPES["uint8"]
bool_ = DTYPES["bool"]
complex64 = DTYPES["complex64"]
complex128 = DTYPES["complex128"]

# the complex dtype of a float one's precision, and back (Paddle's real / imag / as_real)
COMPLEX_OF = {float16: complex64, float32: complex64, float64: complex128}
REAL_OF = {complex64: float32, complex128: float64}


def convert_dtype(dtype: Any) -> DType:
    """Any dtype spelling (DType, str, numpy dtype, Python type) to a DType."""
    if isinstance(dtype, DType):
        return dtype
    if dtype is bool:
        return bool_
    if dtype is int:
        return int64
    if dtype is float:
        return float32
    if dtype is complex:
        return complex64
    if isinstance(dtype, str):
        name = dtype.replace("paddle.", "")
        if name in DTYPES:
            return DTYPES[name]
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name in DTYPES:
        return DTYPES[name]
    raise TypeError(f"unsupported dtype {dtype!r}; use one of {', '.join(_NAMES)}")


_BY_NUMPY = {np.dtype(n): d for n, d in DTYPES.items()}


def dtype_of_array(a: np.ndarray) -> DType:
    try:
        return _BY_NUMPY[a.dtype]      # np.dtype.name is a slow property; hashing is fast
    except KeyError:
        return DTYPES[a.dtype.name]
