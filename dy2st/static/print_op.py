"""static.Print: print a tensor's value every time the program runs."""
from __future__ import annotations

from typing import Any, Optional

from ..runtime import state
from ..runtime.side_effects import print_values


def Print(input: Any, first_n: int = -1, message: Optional[str] = None, summarize: int = 20,
          print_tensor_name: bool = True, print_tensor_type: bool = True,
          print_tensor_shape: bool = True, print_tensor_layout: bool = True,
          print_tensor_lod: bool = True, print_phase: str = "both") -> Any:
    """Prints `message` and the value of `input` when run; returns `input`."""
    parts = ([{"s": message}] if message else []) + [{"t": 0}]
    if not state.in_static_mode():
        print(*([message] if message else []), input)
        return input
    print_values(parts, [input])
    return input
