"""Paddle-named dtypes: string-like objects that map to numpy dtypes and print as Paddle's."""
from __future__ import annotations

import importlib.util
from typing import Any, Callable, List

import numpy as np


class DType(str):
    """A Paddle dtype. It prints as Paddle 3.3.1's does (str / format: "paddle.int64", repr:
    "<DataType.INT64: 9>") and, beyond Paddle, equals and hashes as its plain name ("int64"):
    dy2st's own code reads that name through dtype_name(), never through str()."""

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

    @property
    def name(self) -> str:
        """Paddle's enum name: paddle.float32.name == "FLOAT32" (the plain name: dtype_name)."""
        return str.__str__(self).upper()

    @property
    def value(self) -> int:
        """Paddle's enum number: paddle.float32.value == 10 (also int(paddle.float32))."""
        return PADDLE_CODES[str.__str__(self)]

    def __int__(self) -> int:
        return self.value

    def __str__(self) -> str:
        return "paddle." + str.__str__(self)

    def __format__(self, spec: str) -> str:
        return format("paddle." + str.__str__(self), spec)

    def __repr__(self) -> str:
        return f"<DataType.{self.name}: {self.value}>"

    def __reduce__(self) -> Any:
        # unpickling and copying give the one DType of that name back (`x.dtype is paddle.int64`)
        return convert_dtype, (str.__str__(self),)


_NAMES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
          "complex64", "complex128", "uint32", "uint64"]
_NUMPY = {n: np.dtype(n) for n in _NAMES}
_FLOATING = frozenset(n for n in _NAMES if _NUMPY[n].kind == "f")
_INTEGER = frozenset(n for n in _NAMES if _NUMPY[n].kind in "iu")
_COMPLEX = frozenset(n for n in _NAMES if _NUMPY[n].kind == "c")

# Paddle 3.3.1's DataType enum numbers, which its repr and int() show
PADDLE_CODES = {"bool": 1, "uint8": 2, "int8": 3, "int16": 5, "uint32": 6, "int32": 7, "uint64": 8,
                "int64": 9, "float32": 10, "float64": 11, "complex64": 12, "complex128": 13,
                "float16": 15, "bfloat16": 16}

BF16_INSTALL = 'pip install "dy2st[bf16]"'


class _DTypeTable(dict):
    """name -> DType. bfloat16 joins on first use (its numpy dtype comes from the optional
    ml_dtypes package, whose import is too slow for `import dy2st`): asking for it registers it
    when ml_dtypes is installed; indexing it without ml_dtypes raises an ImportError saying how
    to install it."""

    def __missing__(self, key: Any) -> "DType":
        if key == "bfloat16":
            return register_bfloat16()
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        if key == "bfloat16" and not dict.__contains__(self, key) and _bfloat16_installed():
            register_bfloat16()
        return dict.__contains__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default


DTYPES = _DTypeTable((n, DType(n)) for n in _NAMES)
# the float dtypes, one set that grows when bfloat16 joins (ops/infer.py shares it)
FLOATING_DTYPES = {DTYPES[n] for n in _FLOATING}
# the numpy dtypes a gradient flows through (float, complex, bfloat16 once registered)
INEXACT_NUMPY = {_NUMPY[n] for n in _NAMES if _NUMPY[n].kind in "fc"}
# called with the DType when bfloat16 registers (runtime/bfloat16.py adapts the kernels)
ON_BFLOAT16: List[Callable[["DType"], None]] = []

float16 = DTYPES["float16"]
float32 = DTYPES["float32"]
float64 = DTYPES["float64"]
int8 = DTYPES["int8"]
int16 = DTYPES["int16"]
int32 = DTYPES["int32"]
int64 = DTYPES["int64"]
uint8 = DTYPES["uint8"]
uint32 = DTYPES["uint32"]
uint64 = DTYPES["uint64"]
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
        if name in DTYPES or name == "bfloat16":   # bfloat16 without ml_dtypes: ImportError
            return DTYPES[name]
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name in DTYPES or name == "bfloat16":
        return DTYPES[name]         # bfloat16 without ml_dtypes: an ImportError naming the extra
    raise TypeError(f"unsupported dtype {dtype!r}; use one of {', '.join(_NAMES)}")


def dtype_name(dtype: Any) -> str:
    """The plain name ("int64") of a dtype in any spelling convert_dtype takes. dy2st's own code
    reads names through this, never through str() / format(), which print as Paddle's do."""
    if isinstance(dtype, DType):
        return str.__str__(dtype)
    return str.__str__(convert_dtype(dtype))


def dtype_text(dtype: Any) -> str:
    """dtype_name, or for a spelling convert_dtype refuses its text without "paddle." (for a
    check that raises its own error naming the choices)."""
    try:
        return dtype_name(dtype)
    except (TypeError, ImportError):
        return str(dtype).replace("paddle.", "")


_BY_NUMPY = {np.dtype(n): d for n, d in DTYPES.items()}


def _bfloat16_installed() -> bool:
    try:
        return importlib.util.find_spec("ml_dtypes") is not None
    except (ImportError, ValueError):
        return False


def register_bfloat16() -> DType:
    """Make bfloat16 a dtype (numpy's through ml_dtypes), once; without ml_dtypes an ImportError
    naming the extra to install."""
    global _FLOATING
    if dict.__contains__(DTYPES, "bfloat16"):
        return dict.__getitem__(DTYPES, "bfloat16")
    try:
        # the optional extra, imported on the first use of bfloat16 (it is slow to import)
        import ml_dtypes
    except ImportError:
        raise ImportError("bfloat16 tensors need the ml_dtypes package, which is not "
                          f"installed: {BF16_INSTALL} (or pip install ml_dtypes)") from None
    d = DType("bfloat16")
    np_dtype = np.dtype(ml_dtypes.bfloat16)
    _NUMPY["bfloat16"] = np_dtype
    _NAMES.append("bfloat16")
    _FLOATING = _FLOATING | {"bfloat16"}
    FLOATING_DTYPES.add(d)
    INEXACT_NUMPY.add(np_dtype)
    _BY_NUMPY[np_dtype] = d
    COMPLEX_OF[d] = complex64
    dict.__setitem__(DTYPES, "bfloat16", d)
    for hook in ON_BFLOAT16:
        hook(d)
    return d


def __getattr__(name: str) -> Any:
    if name == "bfloat16":      # paddle.bfloat16: registered on first use
        return DTYPES["bfloat16"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def dtype_of_array(a: np.ndarray) -> DType:
    try:
        return _BY_NUMPY[a.dtype]      # np.dtype.name is a slow property; hashing is fast
    except KeyError:
        return DTYPES[a.dtype.name]
