"""Why a statement found by the side-effect scan cannot be left to a compiled program: the text
of a graph break's reason, or "" when the write is the program's own (a buffer, a tensor's
flag, a Layer attribute)."""
from __future__ import annotations

import types
from typing import Any

from ...runtime.tensor import Tensor
from ..layer_tables import in_layer_tables
from .state_copy import CONTAINERS, MISSING, MUTABLE, attribute_or

# an export traces a copy of the layer tree, so such a write only touches the copy
ATTRIBUTE_WRITE = "changes Python state of the object"
INSTANCE_CONTAINER = "a container attribute of the instance"


def reason(how: str, root: str, attr: str, method: str, obj: Any, is_self: bool) -> str:
    # lazy: keeps nn out of a first to_static call (loaded on first use)
    from ...nn import Layer
    if how == "global":
        if isinstance(obj, (Tensor, Layer)) or callable(obj):
            return ""
        return (f"writing the global `{root}` changes Python state, which a compiled program "
                "would not repeat")
    if how == "attr":
        if isinstance(obj, (Tensor, Layer)) and not is_self or \
                isinstance(obj, types.ModuleType) and obj.__name__.split(".")[0] == "dy2st":
            return ""
        current = attribute_or(obj, attr, None)
        if isinstance(current, Layer) or callable(current) or in_layer_tables(obj, attr):
            return ""       # a buffer or parameter write is a write of the program's own
        if not is_self and current is None:
            return ""       # an object the loop machinery may give a tensor (attribute_writes)
        return (f"`{root}.{attr} = ...` {ATTRIBUTE_WRITE}, which a compiled "
                "program would not repeat: keep it out of forward, or make it a tensor buffer")
    if how == "aug":
        if not isinstance(obj, MUTABLE):
            return ""       # a number or a tensor: `+=` rebinds the name only
        return (f"`{root} += ...` changes the {type(obj).__name__} `{root}` in place, which a "
                "compiled program would not repeat")
    target = attribute_or(obj, attr, MISSING) if attr else obj
    # an attribute the call sets before changing it (`self.acc = []`, then `self.acc.append`)
    # is no container yet when the function is scanned, but it is one when the change runs
    unset = attr and target is MISSING
    if not unset and not isinstance(target, CONTAINERS if how == "call" else MUTABLE):
        return ""
    what = f"{root}.{attr}" if attr else root
    kind = "container" if unset else type(target).__name__
    if is_self and attr:
        # an export traces a copy of the layer tree whose containers are copies too
        change = f"{method} on" if how == "call" else "item assignment into"
        return (f"{kind}.{change} `{what}` changes {INSTANCE_CONTAINER}, which a compiled "
                "program would not repeat: it runs as Python on every call")
    if how == "call":
        return (f"{kind}.{method} on `{what}` changes a Python object that a compiled program "
                "cannot hold: return the value instead")
    return (f"item assignment into the {kind} `{what}` changes a Python object that a compiled "
            "program cannot hold: return the value instead")
