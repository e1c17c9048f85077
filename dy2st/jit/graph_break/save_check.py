"""jit.save needs one whole graph: a function with graph breaks is refused, each break named."""
from __future__ import annotations

from typing import Any, List, Optional

from ..errors import ConversionError
from .dispatch import BreakState, state_of
from .reasons import GraphBreakInfo, classify
from .side_effects import ATTRIBUTE_WRITE, INSTANCE_CONTAINER


class GraphBreakError(ConversionError):
    """A function with graph breaks was asked for one whole graph (jit.save)."""


def refuse_save(sf: Any, trace_error: Optional[BaseException] = None,
                action: str = "jit.save") -> None:
    """Raise GraphBreakError when sf has known breaks, or when trace_error (its strict trace
    failing while saving) is one; otherwise return."""
    state = state_of(sf)
    breaks: List[GraphBreakInfo] = list(state.breaks) if state is not None else []
    if sf._instance is not None:
        # `self.n = x.shape[0]` or `self.cache["k"] = t` breaks a call (the write must happen on
        # every call) but not an export: that traces a copy of the layer tree (its list, dict
        # and set attributes copied too), whose attribute takes the traced value
        breaks = [b for b in breaks if not (b.kind == "side-effect" and (
            ATTRIBUTE_WRITE in b.reason or INSTANCE_CONTAINER in b.reason))]
    if trace_error is not None and classify(trace_error)[0] != "error":
        probe = BreakState(sf)
        probe.record(trace_error)
        breaks += [b for b in probe.breaks if b not in breaks]
    if not breaks:
        return
    listed = "\n".join(f'  File "{b.filename}", line {b.lineno}: {b.source}\n    {b.reason}'
                       for b in breaks)
    done = "; nothing was written" if action == "jit.save" else ""
    raise GraphBreakError(
        f"{action} needs {sf.__name__} as one whole graph, but it has {len(breaks)} graph "
        f"break(s){done}:\n{listed}\nRemove the breaks (`dy2st.jit.explain` lists them) or "
        "use a to_static function that holds only the graph part")
