"""Input specs as text, as typed on the command line: `x:float32[None,10]`, `float32[3]`, `int64[]`."""
from __future__ import annotations

import re

from ..runtime.dtype import DTYPES, dtype_name
from .input_spec import InputSpec

_SPEC = re.compile(r"^\s*(?:(?P<name>[^:\[\]]*?)\s*:)?\s*(?P<dtype>[A-Za-z0-9_.]*)\s*"
                   r"(?:\[(?P<dims>[^\[\]]*)\])?\s*$")
_UNKNOWN = {"none", "?", "-1"}


def parse_input_spec(text: str) -> InputSpec:
    """`[name:]dtype[d0,d1,...]` with None (or ? or -1) for an unknown dim; `dtype[]` is 0-d."""
    m = _SPEC.match(text)
    if m is None or m.group("dims") is None:
        raise ValueError(f"bad input spec {text!r}: expected NAME:DTYPE[DIMS], e.g. "
                         "'x:float32[None,10]' ('int64[]' for a 0-d input)")
    name, dtype, dims = m.group("name"), m.group("dtype"), m.group("dims")
    if name is not None and not name:
        raise ValueError(f"bad input spec {text!r}: the name before ':' is empty")
    if dtype.replace("paddle.", "") not in DTYPES:
        raise ValueError(f"bad input spec {text!r}: unknown dtype {dtype!r}; use one of "
                         f"{', '.join(DTYPES)}")
    shape = []
    for d in (dims.split(",") if dims.strip() else []):
        d = d.strip()
        if d.lower() in _UNKNOWN:
            shape.append(None)
        elif d.isascii() and d.isdigit():        # str.isdigit() also accepts '²' and '٣'
            shape.append(int(d))
        else:
            raise ValueError(f"bad input spec {text!r}: dim {d!r} is not a size >= 0 or None")
    return InputSpec(shape, dtype.replace("paddle.", ""), name)


def format_input_spec(spec: InputSpec) -> str:
    """The text form parse_input_spec reads back."""
    dims = ",".join("None" if d is None else str(d) for d in spec.shape)
    return f"{spec.name + ':' if spec.name else ''}{dtype_name(spec.dtype)}[{dims}]"
