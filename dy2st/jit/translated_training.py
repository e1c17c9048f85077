"""Fine-tuning a jit.load'ed model, as Paddle trains a loaded TranslatedLayer: a call whose
parameters (or inputs) need gradients runs the saved program's training forward and records one
tape node whose backward runs that program's gradient, through the same machinery as a
to_static call (run_program)."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..runtime.program_clone import clone_program
from ..runtime.tensor import Tensor
from . import run_program


class _Traced:
    """What run_program's builder reads of a trace: a fresh copy of the saved program (the
    builder cuts it into forward and backward), sharing the model's parameter tensors."""

    def __init__(self, program: Any) -> None:
        self.program = program


class _LoadedEntry:
    """A loaded model seen as one cache entry of a to_static function: every call feeds the
    program's inputs in order (flat_positions), and the compiled gradient programs are kept
    here between calls."""

    def __init__(self, concrete: Any, backend: str = "numpy") -> None:
        self.concrete = concrete
        self.backend = backend          # the loaded model's backend runs its gradient programs
        self.flat_positions = list(range(len(concrete.program.feed_names)))
        self.grad_state: Any = None
        self.last_outs: Optional[List[Any]] = None

    def trace_program(self, args: Any, kwargs: Any) -> _Traced:
        return _Traced(clone_program(self.concrete.program))


def _entry(layer: Any) -> _LoadedEntry:
    entry = layer.__dict__.get("_training_entry")
    if entry is None:
        entry = _LoadedEntry(layer.concrete_program, layer.__dict__.get("_backend", "numpy"))
        object.__setattr__(layer, "_training_entry", entry)
    return entry


def wants_grad(layer: Any, values: List[Any]) -> bool:
    """Whether a parameter of the model or a fed Tensor needs a gradient."""
    return run_program.wants_grad(_entry(layer), tuple(values), {})


def call_with_grad(layer: Any, values: List[Any], feeds: List[Any]) -> Any:
    """The model's outputs, recorded for backward (gradients reach its parameters and inputs)."""
    entry = _entry(layer)
    args = tuple(v if isinstance(v, Tensor) else np.asarray(v) for v in values)
    return run_program.call_with_grad(entry, entry, args, {}, feeds)
