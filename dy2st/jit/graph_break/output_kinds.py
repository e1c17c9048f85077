"""What a region returns, as eager code has it: inside a trace `x.numpy()`, `x.item()` and an
ndarray fed from an island are tensors, so each new cache entry of a region is run eagerly once
and its outputs that eager code has as ndarrays or numbers are turned back into those."""
from __future__ import annotations

from typing import Any, Callable, List, Optional

import numpy as np

from ...runtime.pytree import flatten, unflatten
from ...runtime.tensor import Tensor

_NUMBERS = (bool, int, float, complex)


def output_kinds(entry: Any, eager_value: Any) -> Optional[List[Optional[str]]]:
    """Per output leaf of the entry: None (as compiled), "numpy", "scalar" or "item"; None
    overall when the eager outputs do not line up with the compiled ones."""
    leaves, tree = flatten(eager_value)
    concrete = entry.concrete
    if tree != concrete.output_tree or len(leaves) != len(concrete.output_leaves):
        return None
    kinds: List[Optional[str]] = []
    for (how, _), leaf in zip(concrete.output_leaves, leaves):
        if how != "var" or isinstance(leaf, Tensor):
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


def convert_outputs(entry: Any, kinds: List[Optional[str]]) -> None:
    """Make entry.build return the eager kinds of its outputs (only entries that need it pay)."""
    if not any(kinds):
        return
    build: Callable[[List[Any]], Any] = entry.build

    def build_as_eager(outs: List[Any]) -> Any:
        leaves, tree = flatten(build(outs))
        return unflatten(tree, [_convert(v, k) for v, k in zip(leaves, kinds)])
    entry.build = build_as_eager
