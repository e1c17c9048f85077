"""Parameters on the device: a tensor whose array has not changed since the last run (or that a
run just returned) is passed as the device array it already is, with no copy."""
from __future__ import annotations

import collections
from typing import Any, List, Sequence

import numpy as np

# id(numpy array) -> (that array, its device array): arrays runs returned (the new values of
# parameters and statistics written back) and parameters passed before; bounded
_KNOWN: "collections.OrderedDict[int, Any]" = collections.OrderedDict()
LIMIT = 4096


def device_value(tensor: Any) -> Any:
    """The array of `tensor` for a jitted call: the device array already holding it if any."""
    value = tensor._value
    hit = _KNOWN.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    return value


def remember_outputs(outs: Sequence[Any]) -> List[Any]:
    """The run's outputs as numpy arrays (views of the device arrays on CPU), remembered so that
    passing one back as a parameter costs no copy."""
    result: List[Any] = []
    for o in outs:
        if isinstance(o, list):         # a tensor array: a list of its items' arrays
            result.append(remember_outputs(o))
            continue
        if o is None:
            result.append(None)
            continue
        arr = np.asarray(o)
        if arr is not o:
            _KNOWN[id(arr)] = (arr, o)
            if len(_KNOWN) > LIMIT:
                _KNOWN.popitem(last=False)
        result.append(arr)
    return result
