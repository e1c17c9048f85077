"""Graph breaks for `to_static(full_graph=False)`: code that cannot be one graph runs as Python
between compiled regions (see docs/graph_breaks.md)."""

# Loaded on first use (a function that traces whole needs only .miss): one entry per line,
# "name": "submodule".
_LAZY = {
    "RECOMPILE_LIMIT": "dispatch",
    "Result": "miss",
    "graph_breaks": "dispatch",
    "on_miss": "miss",
    "GraphBreakInfo": "reasons",
    "GraphBreakError": "save_check",
    "refuse_save": "save_check",
}
__all__ = list(_LAZY) + ["ExplainReport", "explain"]

# eager: the function `explain` must win over the submodule of that name, which importing the
# submodule later would otherwise bind here (explain.py imports nothing heavy)
from .explain import ExplainReport, explain  # noqa: E402
from ...runtime.lazy import lazy_getattr  # noqa: E402

__getattr__ = lazy_getattr(__name__, _LAZY, globals(), same_name=True)
