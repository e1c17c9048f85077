"""Globals a converted function writes: their values before a trace, and the symbolic values a
trace left in them put back afterwards (a global outlives the traced program)."""
from __future__ import annotations

import types
from typing import Any, Dict, Optional, Tuple

from ..runtime.program import Variable
from ..runtime.pytree import flatten

MISSING = object()      # a global the function writes that did not exist before the trace


def global_writes(fn: types.FunctionType) -> Dict[str, Any]:
    """{name: origin} of the globals fn's converted code writes."""
    from .transform import cache  # the converter's passes load when a function is traced
    converted = cache.get(getattr(fn, "__code__", None))
    return (converted.global_writes or {}) if converted is not None else {}


def global_values(fn: types.FunctionType) -> Dict[str, Any]:
    """The values of those globals now (MISSING where one is not set)."""
    g = fn.__globals__
    return {n: g.get(n, MISSING) for n in global_writes(fn)}


def restore_symbolic_globals(fn: types.FunctionType, saved: Dict[str, Any]
                             ) -> Optional[Tuple[str, Any]]:
    """Put back globals the trace bound to symbolic values; (name, origin) of the first."""
    g = fn.__globals__
    leaked = None
    for name, old in saved.items():
        leaves, _ = flatten(g.get(name))
        if any(isinstance(v, Variable) for v in leaves):
            if old is MISSING:
                g.pop(name, None)
            else:
                g[name] = old
            leaked = leaked or (name, global_writes(fn)[name])
    return leaked
