"""A traced program plus what is needed to call it: input specs and the output structure."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Tuple

from ..runtime.program import Program
from .input_spec import InputSpec


@dataclass
class ConcreteProgram:
    """One traced signature of a function.

    program       the Program; program.feed_names are the tensor inputs (in `inputs` order) and
                  program.fetch_names the tensor outputs
    inputs        one InputSpec (with name) per tensor input
    output_tree   the pytree structure of the return value (see runtime.pytree)
    output_leaves per leaf of output_tree: ("var", index into fetch_names) or ("const", value)
    input_structure None when each tensor input is an argument of its own; else (argument
                  names, the structure of the positional arguments, per leaf ("var", index into
                  inputs) or ("const", value)): a list of tensors stays one argument
    number_leaves the indices of the output leaves (each a 0-d "var") that eager code returns as
                  Python numbers (`.item()`, `float(t)`, `.tolist()`): handed out as numbers
    """
    program: Program
    inputs: List[InputSpec]
    output_tree: Any
    output_leaves: List[Tuple[str, Any]] = field(default_factory=list)
    input_structure: Any = None
    number_leaves: Tuple[int, ...] = ()

    @property
    def main_program(self) -> Program:
        return self.program
