"""A region whose program runs backward() itself is a whole step: its outputs are constants to
eager code. When eager code would still have one of them needing a gradient, code after the
region may differentiate it again (`loss.backward(retain_graph=True)` in the region, then
`loss.backward()` after a break): such a region breaks at its backward() calls instead, which
then run as Python on the eager tape that the regions around them record."""
from __future__ import annotations

from typing import Any, List

from ...autograd.traced_inputs import backward_origins, owns_backward
from ...runtime.pytree import flatten
from ...runtime.tensor import Tensor

REASON = ("backward() in a compiled region would make its outputs constants, but later code of "
          "the function may differentiate them (eager code has them needing a gradient): the "
          "backward runs as Python")


def backward_lines(program: Any, returns: bool, eager_value: Any, filename: str) -> List[int]:
    """The user's lines (in `filename`) of the backward() calls a region must break at: its
    program runs backward() and an output of the region's eager run needs a gradient. A region
    that ends the function returns constants, as a whole function does (docs/training.md)."""
    if returns or not owns_backward(program):
        return []
    leaves, _ = flatten(eager_value)
    if not any(isinstance(t, Tensor) and not t.stop_gradient for t in leaves):
        return []
    return sorted({o.line for o in backward_origins(program) if o.file == filename})
