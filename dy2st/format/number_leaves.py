"""Output leaves that eager code returns as Python numbers (`.item()`, `float(t)`, `.tolist()`):
their kind in the model file, fixed by the 0-d fetch variable's dtype and checked on load."""
from __future__ import annotations

from typing import Any

from ..runtime.dtype import dtype_name
from ..runtime.program import Variable
from .errors import fail

# what `ndarray.item()` gives for a 0-d array of each dtype family
NUMBER_KINDS = ("bool", "int", "float", "complex")


def number_kind(var: Variable) -> str:
    """The Python type eager code has for a number read from `var` (0-d)."""
    d = var.dtype
    if d == "bool":
        return "bool"
    if d.is_complex:
        return "complex"
    return "float" if d.is_floating else "int"


def check_number_leaf(kind: Any, var: Variable, version: int, where: str) -> None:
    """A leaf marked as a Python number: a known kind, in a version-3 file, of a 0-d fetch
    variable whose dtype gives that kind."""
    if type(version) is not int or version < 3:
        raise fail(where, f"a Python number leaf is not part of format version {version} (the "
                          "file claims it)")
    if not isinstance(kind, str) or kind not in NUMBER_KINDS:
        raise fail(where, f"unknown Python number kind {str(kind)[:40]!r}; expected one of "
                          f"{', '.join(NUMBER_KINDS)}")
    if var._shape != () or number_kind(var) != kind:
        raise fail(where, f"a Python {kind} cannot be read from {var.name!r} "
                          f"({dtype_name(var.dtype)}{list(var._shape)}): a number leaf is a 0-d variable "
                          "of a fitting dtype")
