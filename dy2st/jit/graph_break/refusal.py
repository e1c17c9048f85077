"""Refusing one whole graph (jit.save, `concrete_program`) of a function with graph breaks: the
error, and the breaks that count for it, each named at its line."""
from __future__ import annotations

from typing import Any, List, Sequence

from ..errors import ConversionError
from .effect_reasons import ATTRIBUTE_WRITE, INSTANCE_CONTAINER
from .reasons import LOOP_DTYPE, GraphBreakInfo
from .result import state_of


class GraphBreakError(ConversionError):
    """A function with graph breaks was asked for one whole graph (jit.save)."""


def known_breaks(sf: Any) -> List[GraphBreakInfo]:
    """The breaks sf has met that also stop an export."""
    state = state_of(sf)
    breaks: List[GraphBreakInfo] = list(state.breaks) if state is not None else []
    # a read showing the dtype of a widened loop variable is a check in an exported graph
    breaks = [b for b in breaks if b.kind != LOOP_DTYPE]
    if sf._instance is not None:
        # `self.n = x.shape[0]` or `self.cache["k"] = t` breaks a call (the write must happen on
        # every call) but not an export: that traces a copy of the layer tree (its list, dict
        # and set attributes copied too), whose attribute takes the traced value
        breaks = [b for b in breaks if not (b.kind == "side-effect" and (
            ATTRIBUTE_WRITE in b.reason or INSTANCE_CONTAINER in b.reason))]
    return breaks


def refuse_breaks(sf: Any, breaks: Sequence[GraphBreakInfo], action: str = "jit.save") -> None:
    """Raise GraphBreakError listing `breaks` (if there are any)."""
    if not breaks:
        return
    listed = "\n".join(f'  File "{b.filename}", line {b.lineno}: {b.source}\n    {b.reason}'
                       for b in breaks)
    done = "; nothing was written" if action == "jit.save" else ""
    raise GraphBreakError(
        f"{action} needs {sf.__name__} as one whole graph, but it has {len(breaks)} graph "
        f"break(s){done}:\n{listed}\nRemove the breaks (`dy2st.jit.explain` lists them) or "
        "use a to_static function that holds only the graph part")
