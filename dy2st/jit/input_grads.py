"""Programs that read or write `.grad` while traced (autograd/traced_inputs.py): their cache
key holds what of the call's tensors they depend on (each input's gradient state, whether each
parameter read has a gradient), and their input gradient slots are bound to the call's tensors
before each run."""
from __future__ import annotations

import weakref
from typing import Any, Dict, List, Optional, Tuple

from ..autograd.traced_inputs import (
    bind,
    bindings,
    grad_readers,
    note_inputs,
    state_of,
    uses_input_grads,
)
from ..runtime.program import Program
from ..runtime.pytree import flatten
from ..runtime.tensor import Tensor
from .run_program import is_input


def _inputs(args: Tuple, kwargs: Dict) -> List[Any]:
    leaves, _ = flatten((args, kwargs), is_leaf=is_input)
    return [x for x in leaves if is_input(x)]


class GradKey:
    """A function's part of the key once one of its traces used `.grad`."""

    def __init__(self) -> None:
        self.readers: List[weakref.ref] = []    # tensors whose `.grad` presence decides
        self._ids: set = set()

    def add(self, program: Program) -> bool:
        """Take in a trace's gradient reads; whether the key changed."""
        new = [t for t in grad_readers(program) if id(t) not in self._ids]
        for t in new:
            self._ids.add(id(t))
            self.readers.append(weakref.ref(t))
        return bool(new)

    def part(self, args: Tuple, kwargs: Dict) -> Tuple:
        seen: Dict[int, int] = {}
        states: List[Any] = []
        for x in _inputs(args, kwargs):
            states.append(state_of(x, seen.setdefault(id(x), len(states)))
                          if isinstance(x, Tensor) else None)
        has = tuple(getattr(r(), "_grad", None) is not None for r in self.readers)
        # a (name, value) pair like a keyword's: describe_change names it when it changes
        return (("the inputs' stop_gradient / .grad", (tuple(states), has)),)


def note(program: Program, leaves: List[Any]) -> None:
    """Before a trace: which feed is which of the call's tensors."""
    note_inputs(program, [x for x in leaves if is_input(x)])


def after_trace(sf: Any, program: Program) -> bool:
    """Whether the function's key changed: its first trace that used `.grad`, or one that read
    the `.grad` of a tensor earlier traces did not."""
    if not uses_input_grads(program):
        return False
    if sf._input_grads is None:
        sf._input_grads = GradKey()
        sf._input_grads.add(program)
        return True
    return sf._input_grads.add(program)


def slots_of(program: Program) -> Optional[List[Tuple[int, Any]]]:
    found = bindings(program)
    return found or None


def bind_call(found: List[Tuple[int, Any]], args: Tuple, kwargs: Dict) -> None:
    bind(found, _inputs(args, kwargs))
