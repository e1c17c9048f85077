"""Automatic dynamic shapes: when a tensor argument has come with a third distinct shape, the
dims that changed become unknown (None) and one program serves every size, as Dynamo marks a
dim dynamic on its second recompile. A trace that cannot take the unknown dims (Python code
that needs the size as a number) keeps exact shapes from then on."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Set, Tuple

import numpy as np

from ..format.input_spec import InputSpec
from ..runtime.tensor import Tensor
from .logger import log

ENABLED = True      # set False on this module to trace every new shape exactly
SHAPES_BEFORE_DYNAMIC = 3      # distinct shapes of one argument that make its changed dims None


def widen(sf: Any, args: Tuple, kwargs: Dict[str, Any]) -> Optional[List[Any]]:
    """InputSpecs with None for the dims that kept changing, or None when nothing should widen
    (the caller gave input_spec, the function is a region or refused unknown dims before)."""
    if not ENABLED or kwargs or sf._input_spec is not None or sf.__dict__.get("_gb_region") \
            or sf.__dict__.get("_static_shapes"):
        return None
    seen: Dict[int, Set[Tuple[Tuple[int, ...], str]]] = {}
    for entry in sf._all_entries():         # the shapes traced so far, from the entries' keys
        for i, k in enumerate(entry.key[0]):
            if type(k) is tuple and k and k[0] == "T":
                seen.setdefault(i, set()).add((k[1], k[2]))
    specs: List[Any] = [None] * len(args)
    wide = False
    for i, a in enumerate(args):
        if not isinstance(a, (Tensor, np.ndarray)):
            continue
        arr = a._value if isinstance(a, Tensor) else a
        shapes = seen.get(i, set()) | {(arr.shape, arr.dtype.char)}
        same_rank = {s for s, d in shapes if len(s) == arr.ndim and d == arr.dtype.char}
        if len(same_rank) < SHAPES_BEFORE_DYNAMIC:
            continue
        dims = [d if len({s[k] for s in same_rank}) == 1 else None
                for k, d in enumerate(arr.shape)]
        if None in dims:
            specs[i] = InputSpec(dims, a.dtype if isinstance(a, Tensor) else str(arr.dtype))
            wide = True
    return specs if wide else None


def trace_widened(sf: Any, args: Tuple, kwargs: Dict[str, Any], specs: List[Any]) -> Any:
    """The entry traced with `specs` (None dims), or None after putting the exact shapes back
    when such a trace fails."""
    sf._input_spec = specs
    key = sf._key(args, kwargs)
    try:
        entry = sf._trace(args, kwargs, key)
    except Exception as e:  # noqa: BLE001 - code that needs the sizes as numbers
        sf._input_spec = None
        sf._static_shapes = True
        log.info("to_static: %s keeps exact shapes: a trace with unknown dims failed (%s)",
                 sf.__name__, str(e).splitlines()[0][:200] if str(e) else type(e).__name__)
        return None
    log.info("to_static: %s: dims that kept changing are now unknown (%s); one program "
             "serves every size", sf.__name__,
             ", ".join(f"argument {i}: {list(s.shape)}" for i, s in enumerate(specs) if s))
    return entry
