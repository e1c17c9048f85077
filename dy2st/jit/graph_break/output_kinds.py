"""What a region returns, as eager code has it: inside a trace `x.numpy()`, `x.item()` and an
ndarray fed from an island are tensors, so each new cache entry of a region is run eagerly once
and its outputs that eager code has as ndarrays or numbers are turned back into those."""
from __future__ import annotations

from typing import Any, Callable, List, Optional

import numpy as np

from ...runtime.pytree import flatten, unflatten
from ...runtime.tensor import Tensor
from ..static_function import _wrap_output

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


def _maker(kind: Optional[str]) -> Callable[[Any], Any]:
    """The eager value of one fetched output from the compiled run's raw value."""
    if kind == "numpy":
        return np.asarray
    if kind == "scalar":
        return lambda v: np.asarray(v)[()]
    if kind == "item":
        return lambda v: np.asarray(v).item()
    return _wrap_output


def convert_outputs(entry: Any, kinds: List[Optional[str]]) -> None:
    """Make entry.build return the eager kinds of its outputs (only entries that need it pay):
    the compiled run's arrays go out as they are, numbers as numbers."""
    if not any(kinds):
        return
    plan = [(how, v, _maker(k)) for (how, v), k in zip(entry.concrete.output_leaves, kinds)]
    tree = entry.concrete.output_tree

    def build_as_eager(outs: List[Any]) -> Any:
        return unflatten(tree, [make(outs[v]) if how == "var" else v for how, v, make in plan])
    entry.build = build_as_eager
