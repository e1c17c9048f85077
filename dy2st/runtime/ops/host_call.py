"""The py_func op: a Python function that a static Program calls on the host each run (numpy
arrays in, arrays out). Functions are held here by id; an op's attrs name the id."""
from __future__ import annotations

import itertools
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from ..dtype import convert_dtype
from ..registry import Meta, register_op

# the Python functions of py_func ops by id (an op's attrs hold the id, not the function)
_FUNCS: Dict[int, Callable[..., Any]] = {}
_ids = itertools.count()


def register_function(fn: Optional[Callable[..., Any]]) -> int:
    """The id of `fn` for a py_func op's attrs (-1 for None)."""
    if fn is None:
        return -1
    if not callable(fn):
        raise TypeError(f"py_func: expected a callable, got {type(fn).__name__}")
    key = next(_ids)
    _FUNCS[key] = fn
    return key


def _infer(*ins: Any, func: int, backward: int, skip: List[int], out_shapes: List[List[int]],
           out_dtypes: List[str]) -> Any:
    return tuple(Meta(tuple(s), convert_dtype(d)) for s, d in zip(out_shapes, out_dtypes))


@register_op("py_func", infer=_infer, n_outputs=2)
def _py_func_kernel(*ins: Any, func: int, backward: int, skip: List[int],
                    out_shapes: List[List[int]], out_dtypes: List[str]) -> Any:
    """The user's function on the inputs' arrays; its results cast to the declared dtypes."""
    fn = _FUNCS.get(func)
    if fn is None:
        raise RuntimeError("py_func: this program's Python function was registered in another "
                           "process (a program holding py_func runs only where it was built)")
    result = fn(*[np.asarray(a) for a in ins])
    results = [] if result is None else \
        list(result) if isinstance(result, (list, tuple)) else [result]
    if len(results) != len(out_dtypes):
        raise ValueError(f"py_func: the function returned {len(results)} value(s) for "
                         f"{len(out_dtypes)} declared output(s)")
    outs = []
    for r, shape, dtype in zip(results, out_shapes, out_dtypes):
        if r is None and min(shape, default=0) >= 0:      # a backward's "no gradient"
            r = np.zeros(shape, dtype)
        arr = np.asarray(r.numpy() if hasattr(r, "numpy") else r).astype(dtype, copy=False)
        if len(arr.shape) != len(shape) or any(d >= 0 and d != a for d, a in zip(shape, arr.shape)):
            raise ValueError(f"py_func: the function returned shape {list(arr.shape)} for an "
                             f"output declared {list(shape)}")
        outs.append(arr)
    return tuple(outs)
