"""jit.save needs one whole graph: a function with graph breaks is refused, each break named."""
from __future__ import annotations

from typing import Any, Optional

from .dispatch import BreakState
from .reasons import classify
from .refusal import GraphBreakError, known_breaks, refuse_breaks

__all__ = ["GraphBreakError", "refuse_save"]


def refuse_save(sf: Any, trace_error: Optional[BaseException] = None,
                action: str = "jit.save") -> None:
    """Raise GraphBreakError when sf has known breaks, or when trace_error (its strict trace
    failing while saving) is one; otherwise return."""
    breaks = known_breaks(sf)
    if trace_error is not None and classify(trace_error)[0] != "error":
        probe = BreakState(sf)
        probe.record(trace_error)
        breaks += [b for b in probe.breaks if b not in breaks]
    refuse_breaks(sf, breaks, action)
