"""bfloat16 kernels: once the dtype registers (runtime/dtype.py, through ml_dtypes), every op
kernel given a bfloat16 array computes in float32 and rounds its float32 results to bfloat16
(round to nearest even), as Paddle's CPU kernels do."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import dtype as _dtypes
from .registry import adapt_kernels

# ops whose kernels handle bfloat16 arrays as they are (a copy or a cast changes no value)
_NATIVE = frozenset({"cast", "assign", "detach"})


def _to_float32(a: Any, bf16: np.dtype) -> Any:
    return a.astype(np.float32) if type(a) is np.ndarray and a.dtype == bf16 else a


def _to_bf16(out: Any, bf16: np.dtype) -> Any:
    if type(out) is np.ndarray and out.dtype == np.float32:
        return out.astype(bf16)
    if isinstance(out, np.float32):
        return np.asarray(out).astype(bf16)
    if type(out) is tuple:
        return tuple(_to_bf16(o, bf16) for o in out)
    if type(out) is list:
        return [_to_bf16(o, bf16) for o in out]
    return out


def _adapter(bf16: np.dtype) -> Callable[[str, Callable], Callable]:
    def adapt(name: str, kernel: Callable) -> Callable:
        if name in _NATIVE or isinstance(kernel, np.ufunc):
            # ml_dtypes' ufunc loops already compute in float32 and round; and the passes know
            # a bare ufunc kernel (buffer reuse, direct calls), which a wrapper would hide
            return kernel

        def run(*args: Any, **attrs: Any) -> Any:
            for a in args:
                if type(a) is np.ndarray and a.dtype == bf16:
                    break
            else:
                return kernel(*args, **attrs)
            out = kernel(*[_to_float32(a, bf16) for a in args], **attrs)
            wanted = attrs.get("dtype")
            if wanted is not None and wanted != "bfloat16":
                return out          # an explicit result dtype (sum(dtype=...), full_like, ...)
            return _to_bf16(out, bf16)
        run.__name__ = getattr(kernel, "__name__", name)
        run.__doc__ = kernel.__doc__
        run.bfloat16_wrapped = kernel
        # inspect.signature follows __wrapped__: the model-format validator checks a loaded op's
        # attrs against the kernel's own signature, which must not change once bfloat16 is used
        run.__wrapped__ = kernel
        return run
    return adapt


def _on_register(d: Any) -> None:
    adapt_kernels(_adapter(d.np), d.np)


_dtypes.ON_BFLOAT16.append(_on_register)
