"""What a region returns, as eager code has it: inside a trace `x.numpy()`, `x.item()` and an
ndarray fed from an island are tensors, so each new cache entry of a region is run eagerly once
and its outputs that eager code has as ndarrays or numbers are turned back into those."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ...runtime.pytree import flatten, unflatten
from ...runtime.tensor import Tensor

_NUMBERS = (bool, int, float, complex)


def output_kinds(entry: Any, eager_value: Any) -> Optional[List[Optional[str]]]:
    """Per output leaf of the entry: None (as compiled), "numpy", "scalar" or "item"; None
    overall when the eager outputs do not line up with the compiled ones."""
    leaves, tree = flatten(eager_value)
    concrete = entry.concrete
    # (the compiled outputs may go on with new values of inputs: identity.py)
    expected = entry.identity.tree if entry.identity is not None else concrete.output_tree
    if tree != expected or len(leaves) > len(concrete.output_leaves):
        return None
    # leaves the compiled call hands out as None on some paths (identity.py), as eager has them
    optional = {j for j, _, _ in entry.identity.undefined} if entry.identity is not None else ()
    kinds: List[Optional[str]] = []
    for j, ((how, _), leaf) in enumerate(zip(concrete.output_leaves, leaves)):
        if how != "var" or isinstance(leaf, Tensor) or (leaf is None and j in optional):
            kinds.append(None)
        elif isinstance(leaf, np.ndarray):
            kinds.append("numpy")
        elif isinstance(leaf, np.generic):
            kinds.append("scalar")
        elif isinstance(leaf, _NUMBERS):
            kinds.append("item")
        else:
            return None
    return kinds


def _convert(value: Any, kind: Optional[str]) -> Any:
    if kind is None or not isinstance(value, Tensor):
        return value
    if kind == "numpy":
        return value.numpy()
    if kind == "scalar":
        return value.numpy()[()]
    return value.item()


def as_eager(value: Any, entry: Any) -> Any:
    """A region call's result with the eager kinds its entry learnt (unchanged without any);
    values that already have them pass through, so an eager result is left as it is."""
    kinds = getattr(entry, "gb_kinds", None)
    if kinds is None:
        return value
    if type(value) is tuple and len(value) == len(kinds):      # the usual tuple of live-outs
        return tuple([_convert(v, k) for v, k in zip(value, kinds)])
    leaves, tree = flatten(value)
    return unflatten(tree, [_convert(v, k) for v, k in zip(leaves, kinds)])


class RegionCall:
    """What the driver calls for a region: its StaticFunction, then the eager kinds of its
    outputs (the call may go through the gradient path, which builds outputs itself)."""
    __slots__ = ("static",)

    def __init__(self, static: Any) -> None:
        self.static = static

    def __call__(self, *args: Any) -> Any:
        static = self.static
        value = static(*args)
        return as_eager(value, static._last)


def remember_kinds(entry: Any, kinds: List[Optional[str]]) -> None:
    if any(kinds):
        entry.gb_kinds = kinds
