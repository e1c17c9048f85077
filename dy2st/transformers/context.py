"""What every pass may use while converting one function: its fresh-name source and its origin."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .naming import Namer


@dataclass
class PassContext:
    namer: Namer
    filename: str = ""
    function_name: str = ""
    # names that must be bound (to UndefinedVar) at the top of a function before helpers use
    # them as nonlocal; keyed by id() of the FunctionDef node during one conversion
    pending_inits: dict = field(default_factory=dict)
    # pipeline.features of the tree as it enters the running pass (None outside run_passes):
    # lets a pass skip a walk of the whole tree to learn whether it holds some node kind
    features: Optional[set] = None
    # the free variables of the converted function and of the functions defined in it, by
    # function name (a name two of them share is left out): a generated helper writing one
    # (through a nested function's `nonlocal`) reaches it with `nonlocal`, not a new local
    freevars: dict = field(default_factory=dict)
