"""Indexing lowerings: getitem / setitem (numpy-style indexes, jax applies the same rules),
gather, scatter and the along-axis forms."""
from __future__ import annotations

from typing import Any, List

from ...runtime.ops.gather import along_index
from .loader import jax_modules
from .lower import is_static
from .table import lowers

_m = jax_modules


def decode(cx, items: List[dict], tensors: Any) -> tuple:
    """The index tuple: slice bounds must be known while tracing (a bound from the data would
    give a data-dependent shape), as must boolean masks; integer tensors may be traced."""
    out = []
    for it in items:
        k = it["k"]
        if k == "int":
            out.append(it["v"])
        elif k == "slice":
            out.append(slice(*(cx.static_int(tensors[v["t"]], "a slice bound")
                               if isinstance(v, dict) else v for v in it["v"])))
        elif k == "none":
            out.append(None)
        elif k == "ellipsis":
            out.append(Ellipsis)
        else:
            t = tensors[it["t"]]
            if t.dtype == bool and not is_static(t):
                raise cx.not_lowerable("a boolean mask index selects a data-dependent number "
                                       "of elements")
            if is_static(t) and t.ndim == 0 and t.dtype.kind in "iu":
                out.append(int(t))
            else:
                out.append(t)
    return tuple(out)


@lowers("getitem")
def _getitem(cx, x, *tensors, items):
    return x[decode(cx, items, tensors)]


@lowers("setitem")
def _setitem(cx, x, value, *tensors, items):
    return x.at[decode(cx, items, tensors)].set(_m().jnp.asarray(value).astype(x.dtype))


@lowers("gather")
def _gather(cx, x, index, axis):
    return _m().jnp.take(x, index, axis=axis)


@lowers("gather_nd")
def _gather_nd(cx, x, index):
    jnp = _m().jnp
    return x[tuple(jnp.moveaxis(index, -1, 0))]


@lowers("scatter")
def _scatter(cx, x, index, updates, overwrite):
    updates = updates.astype(x.dtype)
    if overwrite:
        return x.at[index].set(updates)
    return x.at[index].set(0).at[index].add(updates)


@lowers("take_along_axis")
def _take(cx, arr, indices, axis):
    return arr[along_index(arr.shape, indices, axis, _m().jnp.broadcast_to)[0]]
