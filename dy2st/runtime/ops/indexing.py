"""Indexing: x[index] and x[index] = value, with ints, slices, None, Ellipsis, lists and tensors.

An index is encoded as JSON-able items so that it can be stored in a saved Program; tensors in the
index become op inputs and are referred to by position ({"t": k})."""
from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from .. import state
from ..dtype import bool_, dtype_name
from ..program import Variable
from ..registry import Meta, apply, register_op
from ..tensor import Tensor, TensorLike
from . import infer as I
from .operands import as_tensor, cast, is_tensor


def encode_index(index: Any) -> Tuple[List[dict], List[Any]]:
    """(items, tensors) for an index expression."""
    if not isinstance(index, tuple):
        index = (index,)
    items: List[dict] = []
    tensors: List[Any] = []

    def bound(v: Any) -> Any:
        if v is None:
            return None
        if is_tensor(v):
            if isinstance(v, Tensor):
                return int(v._value)
            tensors.append(v)
            return {"t": len(tensors) - 1}
        return int(v)

    ellipses = 0
    for it in index:
        if it is None:
            items.append({"k": "none"})
        elif it is Ellipsis:
            items.append({"k": "ellipsis"})
            ellipses += 1
        elif isinstance(it, slice):
            items.append({"k": "slice", "v": [bound(it.start), bound(it.stop), bound(it.step)]})
        elif isinstance(it, (bool, np.bool_)):
            tensors.append(as_tensor(np.array(it)))
            items.append({"k": "tensor", "t": len(tensors) - 1})
        elif isinstance(it, (int, np.integer)):
            items.append({"k": "int", "v": int(it)})
        elif is_tensor(it):
            tensors.append(it)
            items.append({"k": "tensor", "t": len(tensors) - 1})
        elif isinstance(it, (list, np.ndarray)):
            arr = np.asarray(it)
            if arr.dtype.kind not in "biu":
                raise IndexError(f"index lists must hold ints or bools, got {arr.dtype}")
            tensors.append(as_tensor(arr.astype(np.int64) if arr.dtype.kind != "b" else arr))
            items.append({"k": "tensor", "t": len(tensors) - 1})
        else:
            raise IndexError(f"unsupported index {it!r} of type {type(it).__name__}")
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    return items, tensors


def decode_index(items: List[dict], tensors: Tuple[np.ndarray, ...]) -> tuple:
    def bound(v):
        if isinstance(v, dict):
            return int(tensors[v["t"]])
        return v

    out = []
    for it in items:
        k = it["k"]
        if k == "int":
            out.append(it["v"])
        elif k == "slice":
            out.append(slice(*(bound(v) for v in it["v"])))
        elif k == "none":
            out.append(None)
        elif k == "ellipsis":
            out.append(Ellipsis)
        else:
            t = tensors[it["t"]]
            out.append(int(t) if t.ndim == 0 and t.dtype.kind in "iu" else t)
    return tuple(out)


def _getitem_infer(x, *tensors, items):
    shape = list(x._shape)
    consumed = 0
    for it in items:
        if it["k"] in ("int", "slice"):
            consumed += 1
        elif it["k"] == "tensor":
            t = tensors[it["t"]]
            consumed += len(t._shape) if t.dtype == bool_ else 1
    if consumed > len(shape):
        raise IndexError(f"too many indices ({consumed}) for a tensor of rank {len(shape)}")
    out: List[int] = []
    dim = 0
    adv_shapes = []
    adv_pos = None
    for it in items:
        k = it["k"]
        if k == "none":
            out.append(1)
        elif k == "ellipsis":
            n = len(shape) - consumed
            out.extend(shape[dim:dim + n])
            dim += n
        elif k == "int":
            d = shape[dim]
            if d >= 0 and not -d <= it["v"] < d:
                raise IndexError(f"index {it['v']} is out of bounds for dim {dim} of size {d}")
            dim += 1
        elif k == "slice":
            d = shape[dim]
            vals = it["v"]
            if d >= 0 and not (isinstance(vals[0], dict) or isinstance(vals[1], dict)
                               or isinstance(vals[2], dict)):
                out.append(len(range(*slice(*vals).indices(d))))
            else:
                out.append(-1)
            dim += 1
        else:
            t = tensors[it["t"]]
            if t.dtype == bool_:
                adv_shapes.append((-1,))
                dim += len(t._shape)
            else:
                if not t.dtype.is_integer:
                    raise IndexError(f"tensor indices must be int or bool, got {dtype_name(t.dtype)}")
                adv_shapes.append(t._shape)
                dim += 1
            if adv_pos is None:
                adv_pos = len(out)
    out.extend(shape[dim:])
    if adv_shapes:
        b: Tuple[int, ...] = ()
        for s in adv_shapes:
            b = I.broadcast_shapes("getitem", b, s)
        out[adv_pos:adv_pos] = list(b)
    return Meta(tuple(out), x.dtype)


@register_op("getitem", infer=_getitem_infer)
def _getitem_kernel(x, *tensors, items):
    return np.asarray(x[decode_index(items, tensors)])


def getitem(x: Any, index: Any) -> Any:
    items, tensors = encode_index(index)
    return apply("getitem", [x, *tensors], {"items": items})


def _setitem_infer(x, value, *tensors, items):
    return Meta(x._shape, x.dtype)


@register_op("setitem", infer=_setitem_infer)
def _setitem_kernel(x, value, *tensors, items):
    out = x.copy()
    out[decode_index(items, tensors)] = value
    return out


def setitem(x: Any, index: Any, value: Any) -> Any:
    """A new tensor equal to x with x[index] = value (functional form)."""
    items, tensors = encode_index(index)
    value = cast(as_tensor(value), x.dtype) if is_tensor(value) else as_tensor(value, x.dtype)
    return apply("setitem", [x, value, *tensors], {"items": items})


def setitem_inplace(x: TensorLike, index: Any, value: Any) -> None:
    """x[index] = value: in place for eager tensors; a static Variable is rebound to the result."""
    if isinstance(x, Tensor) and not isinstance(value, Variable) and not (
            isinstance(index, tuple) and any(isinstance(i, Variable) for i in index)) \
            and not isinstance(index, Variable):
        if not state.build_state.blocks:
            arr = x._value.copy()
            v = value._value if isinstance(value, Tensor) else value
            idx = index._value if isinstance(index, Tensor) else index
            if isinstance(idx, tuple):
                idx = tuple(i._value if isinstance(i, Tensor) else i for i in idx)
            arr[idx] = v
            x._value = arr
            # autograd: an op that saved x's old value must notice that it changed
            x._version = getattr(x, "_version", 0) + 1
            return
    out = setitem(x, index, value)
    if isinstance(x, Variable):
        # circle: runtime.inplace imports this module at import time (via runtime.ops)
        from ..inplace import assign_in_place
        assign_in_place(x, out)
    else:
        raise TypeError("cannot assign a symbolic value into an eager tensor in place; "
                        "inside to_static the assignment is converted automatically")
