"""Graph breaks for `to_static(full_graph=False)`: code that cannot be one graph runs as Python
between compiled regions (see docs/graph_breaks.md)."""
from .dispatch import RECOMPILE_LIMIT, Result, graph_breaks, on_miss
from .reasons import GraphBreakInfo

__all__ = ["GraphBreakInfo", "RECOMPILE_LIMIT", "Result", "graph_breaks", "on_miss"]
from .explain import ExplainReport, explain  # noqa: E402

__all__ += ["ExplainReport", "explain"]
from .save_check import GraphBreakError, refuse_save  # noqa: E402

__all__ += ["GraphBreakError", "refuse_save"]
