"""Attr and constant values <-> JSON values, keeping tuples, non-finite floats, complex numbers
and arrays exact."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..runtime.dtype import DTYPES, DType, dtype_name
from .errors import fail
from .fields import int_list_field


# JSON has no tuples, non-finite floats, complex numbers or arrays; they are stored as one-key marker objects so
# that a loaded attr is the same Python value the kernel saw when the model was traced.
def encode_value(v: Any, where: str) -> Any:
    if v is None or isinstance(v, (bool, np.bool_)):
        return None if v is None else bool(v)
    if isinstance(v, DType):
        return dtype_name(v)        # its plain name, as files always held (str() prints paddle.x)
    if isinstance(v, str):
        return str(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else {"$float": repr(f)}
    if isinstance(v, (complex, np.complexfloating)):
        c = complex(v)
        return {"$complex": [encode_value(c.real, where), encode_value(c.imag, where)]}
    if isinstance(v, tuple):
        return {"$tuple": [encode_value(x, where) for x in v]}
    if isinstance(v, list):
        return [encode_value(x, where) for x in v]
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str) or k.startswith("$"):
                raise fail(where, f"dict key {k!r} cannot be stored (keys must be strings not "
                                   "starting with '$')")
            out[k] = encode_value(x, where)
        return out
    if isinstance(v, np.ndarray) and v.dtype.name in DTYPES:
        return {"$ndarray": {"dtype": v.dtype.name, "shape": list(v.shape),
                             "data": encode_value(v.reshape(-1).tolist(), where)}}
    raise fail(where, f"a value of type {type(v).__name__} ({str(v)[:60]}) cannot be stored in "
                       "the JSON format")


def decode_value(v: Any, where: str) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, list):
        return [decode_value(x, where) for x in v]
    if not isinstance(v, dict):
        raise fail(where, f"unexpected JSON value {v!r}")
    marked = [k for k in v if k.startswith("$")]
    if not marked:
        return {k: decode_value(x, where) for k, x in v.items()}
    if len(v) != 1:
        raise fail(where, f"a marker object {marked[0]!r} must have exactly one key")
    key, inner = next(iter(v.items()))
    if key == "$tuple" and isinstance(inner, list):
        return tuple(decode_value(x, where) for x in inner)
    if key == "$float" and inner in ("nan", "inf", "-inf"):
        return float(inner)
    if key == "$complex" and isinstance(inner, list) and len(inner) == 2:
        parts = [decode_value(x, where) for x in inner]
        if all(isinstance(p, (int, float)) and not isinstance(p, bool) for p in parts):
            return complex(*parts)
    if key == "$ndarray" and isinstance(inner, dict):
        return _decode_ndarray(inner, where)
    raise fail(where, f"unknown or malformed marker object {key!r}")


def _decode_ndarray(d: dict, where: str) -> np.ndarray:
    dtype, shape = d.get("dtype"), int_list_field(d.get("shape"), where + ".$ndarray.shape", min_=0)
    if not isinstance(dtype, str) or dtype not in DTYPES or set(d) != {"dtype", "shape", "data"} or not isinstance(d["data"], list):
        raise fail(where, "malformed $ndarray object")
    data = decode_value(d["data"], where)
    if len(data) != math.prod(shape) or any(
            not isinstance(x, (bool, int, float, complex)) for x in data):
        raise fail(where, "$ndarray data does not fit its shape")
    return np.array(data, dtype=DTYPES[dtype].np).reshape(shape)
