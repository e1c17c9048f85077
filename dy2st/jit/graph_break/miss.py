"""The cache miss of a full_graph=False function, apart from the graph-break machinery: a
function that traces whole (the usual case) never imports outline, reasons or dispatch."""
from __future__ import annotations

from typing import Any, Dict, Tuple

from .result import Result, state_of
from .side_effects import side_effect_islands


def on_miss(sf: Any, args: Tuple, kwargs: Dict, key: Any) -> Any:
    """A cache miss of a full_graph=False StaticFunction: a cache entry, or a Result."""
    owner = sf.__dict__.get("_gb_region")
    if owner is not None:
        return owner[0].region_miss(sf, owner[1], args, kwargs, key)
    state = state_of(sf)
    if state is not None:
        return Result(state.run(args, kwargs))
    effects = side_effect_islands(sf, args, kwargs)
    if effects:
        # the graph-break machinery loads on the first break (a whole trace never needs it)
        from .dispatch import break_on_effects
        return break_on_effects(sf, effects, args, kwargs)
    try:
        return sf._trace(args, kwargs, key)
    except Exception as e:  # noqa: BLE001 - the function breaks (or fails eagerly too)
        error = e
    # loaded on the first break, as above
    from .dispatch import break_on_error
    return break_on_error(sf, args, kwargs, error)
