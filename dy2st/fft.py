"""paddle.fft: discrete Fourier transforms (one-, two- and n-dimensional; complex, real and
Hermitian), sample frequencies and shifts, over the fft_c2c / fft_r2c / fft_c2r ops."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from .runtime import ops
from .runtime.dtype import COMPLEX_OF, convert_dtype, dtype_name
from .runtime.ops import fft as _kernels
from .runtime.ops.creation import default_float
from .runtime.ops.dims import dims
from .runtime.ops.operands import as_tensor
from .runtime.registry import apply

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

_BIG = 2 ** 62      # an end bound past any dim (slices clamp it)


# ----------------------------------------------------------------------------- arguments
def _check_norm(norm: str) -> str:
    if norm not in _kernels.NORMS:
        raise ValueError(f"Unexpected norm: {norm}. Norm should be forward, backward or ortho")
    return norm


def _axes(x: Any, axes: Optional[Sequence[int]], s: Optional[Sequence[int]], op: str,
          default: Optional[Sequence[int]] = None) -> List[int]:
    """The transformed axes, non-negative: `axes`, else the last len(s) dims, else `default`,
    else every dim."""
    rank = len(dims(x))
    if rank == 0:
        raise ValueError(f"{op}: expects a tensor of rank >= 1, got a 0-d tensor")
    if axes is None:
        if s is not None:
            axes = list(range(rank - len(s), rank))
        elif default is not None:
            axes = list(default)
        else:
            axes = list(range(rank))
    elif isinstance(axes, int):
        axes = [axes]
    out = []
    for a in axes:
        if not -rank <= int(a) < rank:
            raise ValueError(f"{op}: axis {a} is out of range for a tensor of rank {rank}")
        out.append(int(a) % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"{op}: the axes {list(axes)} repeat a dim")
    if s is not None and len(s) != len(out):
        raise ValueError(f"{op}: s {list(s)} and axes {list(axes)} must have the same length")
    if not out:
        raise ValueError(f"{op}: no axis to transform")
    return out


def _check_n(n: Any, op: str) -> Optional[int]:
    if n is None:
        return None
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{op}: n must be an int, got {type(n).__name__}")
    if n <= 0:
        raise ValueError(f"Invalid FFT argument n({n}), it should be positive.")
    return int(n)


def _resize(x: Any, axis: int, n: Optional[int]) -> Any:
    """x cut or zero-padded to length n along axis (numpy.fft's rule for n and s)."""
    if n is None:
        return x
    size = dims(x)[axis]
    if size == n:
        return x
    if size > n or size < 0:
        x = ops.strided_slice(x, [axis], [0], [n], [1])
        size = dims(x)[axis]
        if size == n:
            return x
    if size >= 0:
        shape = list(dims(x))
        shape[axis] = n - size
        return ops.concat([x, ops.zeros(shape, x.dtype)], axis=axis)
    # a dim unknown while tracing: pad by however many entries the slice left short
    shape = [ops.shape(x)[i] if d < 0 else d for i, d in enumerate(dims(x))]
    shape[axis] = n - ops.shape(x)[axis]
    out = ops.concat([x, ops.zeros(shape, x.dtype)], axis=axis)
    return ops.reshape(out, [n if i == axis else 0 for i in range(len(shape))])  # the size is n


def _as_complex(x: Any) -> Any:
    x = as_tensor(x)
    if x.dtype.is_complex:
        return x
    if not x.dtype.is_floating:
        x = ops.cast(x, default_float())
    elif x.dtype == "float16":
        x = ops.cast(x, "float32")
    return ops.cast(x, COMPLEX_OF[x.dtype])


def _as_real(x: Any, op: str) -> Any:
    x = as_tensor(x)
    if x.dtype.is_complex:
        raise TypeError(f"{op}: expects a real tensor, got {dtype_name(x.dtype)} (use fft / fftn for "
                        "complex input)")
    if not x.dtype.is_floating or x.dtype == "float16":
        x = ops.cast(x, "float32" if x.dtype == "float16" else default_float())
    return x


def _sizes(s: Optional[Sequence[int]], count: int, op: str) -> List[Optional[int]]:
    if s is None:
        return [None] * count
    return [_check_n(n, op) for n in s]


# ----------------------------------------------------------------------------- the three kinds
def _c2c(x: Any, s: Optional[Sequence[int]], axes: List[int], norm: str, forward: bool,
         op: str) -> Any:
    x = _as_complex(x)
    for a, n in zip(axes, _sizes(s, len(axes), op)):
        x = _resize(x, a, n)
    return apply("fft_c2c", [x], {"axes": axes, "norm": _check_norm(norm), "forward": forward})


def _r2c(x: Any, s: Optional[Sequence[int]], axes: List[int], norm: str, forward: bool,
         op: str) -> Any:
    x = _as_real(x, op)
    for a, n in zip(axes, _sizes(s, len(axes), op)):
        x = _resize(x, a, n)
    return apply("fft_r2c", [x], {"axes": axes, "norm": _check_norm(norm), "forward": forward,
                                  "onesided": True})


def _c2r(x: Any, s: Optional[Sequence[int]], axes: List[int], norm: str, forward: bool,
         op: str) -> Any:
    x = _as_complex(x)
    sizes = _sizes(s, len(axes), op)
    for a, n in zip(axes[:-1], sizes[:-1]):
        x = _resize(x, a, n)
    last = sizes[-1]
    if last is not None:
        x = _resize(x, axes[-1], last // 2 + 1)
    elif dims(x)[axes[-1]] == 1:
        raise ValueError(f"{op}: a one-sided spectrum of 1 bin gives an empty output; give "
                         "n (or s) explicitly")
    return apply("fft_c2r", [x], {"axes": axes, "norm": _check_norm(norm), "forward": forward,
                                  "last_dim_size": last or 0})


# ----------------------------------------------------------------------------- 1-D
def fft(x: Any, n: Optional[int] = None, axis: int = -1, norm: str = "backward",
        name: Optional[str] = None, *, out: Any = None) -> Any:
    """The discrete Fourier transform along `axis` (x cut or zero-padded to length n)."""
    return _out(_c2c(x, _one(n, "fft"), _axes(x, [axis], None, "fft"), norm, True, "fft"), out)


def ifft(x: Any, n: Optional[int] = None, axis: int = -1, norm: str = "backward",
         name: Optional[str] = None, *, out: Any = None) -> Any:
    """The inverse discrete Fourier transform along `axis`."""
    return _out(_c2c(x, _one(n, "ifft"), _axes(x, [axis], None, "ifft"), norm, False, "ifft"),
                out)


def rfft(x: Any, n: Optional[int] = None, axis: int = -1, norm: str = "backward",
         name: Optional[str] = None, *, out: Any = None) -> Any:
    """The Fourier transform of a real signal: its n // 2 + 1 non-negative frequencies."""
    return _out(_r2c(x, _one(n, "rfft"), _axes(x, [axis], None, "rfft"), norm, True, "rfft"),
                out)


def irfft(x: Any, n: Optional[int] = None, axis: int = -1, norm: str = "backward",
          name: Optional[str] = None, *, out: Any = None) -> Any:
    """The real signal of length n (default 2 (m - 1)) whose one-sided spectrum is x."""
    return _out(_c2r(x, _one(n, "irfft"), _axes(x, [axis], None, "irfft"), norm, False,
                     "irfft"), out)


def hfft(x: Any, n: Optional[int] = None, axis: int = -1, norm: str = "backward",
         name: Optional[str] = None, *, out: Any = None) -> Any:
    """The (real) Fourier transform of a Hermitian-symmetric signal given by its first half."""
    return _out(_c2r(x, _one(n, "hfft"), _axes(x, [axis], None, "hfft"), norm, True, "hfft"),
                out)


def ihfft(x: Any, n: Optional[int] = None, axis: int = -1, norm: str = "backward",
          name: Optional[str] = None, *, out: Any = None) -> Any:
    """The inverse of hfft: the one-sided inverse transform of a real signal."""
    return _out(_r2c(x, _one(n, "ihfft"), _axes(x, [axis], None, "ihfft"), norm, False,
                     "ihfft"), out)


def _one(n: Optional[int], op: str) -> Optional[List[int]]:
    n = _check_n(n, op)
    return None if n is None else [n]


# ----------------------------------------------------------------------------- n-D and 2-D
def _nd(kind: Any, forward: bool, op: str, default: Optional[Sequence[int]] = None):
    def transform(x: Any, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
                  norm: str = "backward", name: Optional[str] = None, *, out: Any = None) -> Any:
        if default is not None and axes is None:
            axes = default
        if default is not None and (len(list(axes)) != 2 or (s is not None and len(s) != 2)):
            raise ValueError(f"{op}: expects 2 axes (and 2 sizes in s), got axes {list(axes)}"
                             + ("" if s is None else f" and s {list(s)}"))
        if s is not None and isinstance(s, (int, np.integer)):
            raise TypeError(f"{op}: s must be a sequence of ints, got {s!r}")
        return _out(kind(x, s, _axes(x, axes, s, op), norm, forward, op), out)
    transform.__name__ = op
    return transform


fftn = _nd(_c2c, True, "fftn")
ifftn = _nd(_c2c, False, "ifftn")
rfftn = _nd(_r2c, True, "rfftn")
irfftn = _nd(_c2r, False, "irfftn")
hfftn = _nd(_c2r, True, "hfftn")
ihfftn = _nd(_r2c, False, "ihfftn")
fft2 = _nd(_c2c, True, "fft2", (-2, -1))
ifft2 = _nd(_c2c, False, "ifft2", (-2, -1))
rfft2 = _nd(_r2c, True, "rfft2", (-2, -1))
irfft2 = _nd(_c2r, False, "irfft2", (-2, -1))
hfft2 = _nd(_c2r, True, "hfft2", (-2, -1))
ihfft2 = _nd(_r2c, False, "ihfft2", (-2, -1))

_DOCS = {
    "fftn": "The n-dimensional discrete Fourier transform over `axes` (default: all, or the "
            "last len(s))",
    "ifftn": "The n-dimensional inverse discrete Fourier transform",
    "rfftn": "The n-dimensional transform of a real signal, one-sided along the last axis",
    "irfftn": "The inverse of rfftn: a real signal (the last axis of length s[-1], default "
              "2 (m - 1))",
    "hfftn": "The n-dimensional transform of a Hermitian-symmetric signal (real output)",
    "ihfftn": "The inverse of hfftn: one-sided along the last axis",
}
for _name, _fn in [("fftn", fftn), ("ifftn", ifftn), ("rfftn", rfftn), ("irfftn", irfftn),
                   ("hfftn", hfftn), ("ihfftn", ihfftn)]:
    _fn.__doc__ = _DOCS[_name] + "."
for _name in ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"):
    globals()[_name].__doc__ = (_DOCS[_name.replace("2", "n")] +
                                "; over two axes (default the last two).")


def _out(result: Any, out: Any) -> Any:
    """Paddle's `out=`: the result also written into the given tensor (in place)."""
    if out is None:
        return result
    out.copy_(result)
    return out


# ----------------------------------------------------------------------------- frequencies
def fftfreq(n: int, d: float = 1.0, dtype: Any = None, name: Optional[str] = None, *,
            out: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """The sample frequencies of an n-point transform with sample spacing d:
    [0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d n)."""
    n = _check_n(n, "fftfreq")
    return _freq(np.fft.fftfreq(n, d), dtype, out, requires_grad)


def rfftfreq(n: int, d: float = 1.0, dtype: Any = None, name: Optional[str] = None, *,
             out: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """The non-negative sample frequencies of rfft's n // 2 + 1 outputs: [0, 1, ..., n // 2]
    / (d n)."""
    n = _check_n(n, "rfftfreq")
    return _freq(np.fft.rfftfreq(n, d), dtype, out, requires_grad)


def _freq(values: np.ndarray, dtype: Any, out: Any, requires_grad: bool) -> Any:
    d = convert_dtype(dtype) if dtype is not None else default_float()
    return _out(ops.to_tensor(values.astype(d.np), dtype=d, stop_gradient=not requires_grad),
                out)


# ----------------------------------------------------------------------------- shifts
def _shift(x: Any, axes: Any, op: str, inverse: bool) -> Any:
    x = as_tensor(x)
    shape = dims(x)
    if axes is None:
        axes = list(range(len(shape)))
    elif isinstance(axes, (int, np.integer)):
        axes = [int(axes)]
    axes = _axes(x, axes, None, op) if shape else []
    for a in axes:
        if shape[a] < 0:
            raise ValueError(f"{op}: the size of dim {a} must be known while tracing (declare "
                             "it in the InputSpec)")
    shifts = [-(shape[a] // 2) if inverse else shape[a] // 2 for a in axes]
    return ops.roll(x, shifts, axes) if axes else x


def fftshift(x: Any, axes: Any = None, name: Optional[str] = None) -> Any:
    """x with the zero-frequency entry moved to the middle of each of `axes` (default: all)."""
    return _shift(x, axes, "fftshift", False)


def ifftshift(x: Any, axes: Any = None, name: Optional[str] = None) -> Any:
    """The inverse of fftshift."""
    return _shift(x, axes, "ifftshift", True)
