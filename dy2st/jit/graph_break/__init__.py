"""Graph breaks for `to_static(full_graph=False)`: code that cannot be one graph runs as Python
between compiled regions (see docs/graph_breaks.md)."""
from .dispatch import RECOMPILE_LIMIT, Result, graph_breaks, on_miss
from .reasons import GraphBreakInfo

__all__ = ["GraphBreakInfo", "RECOMPILE_LIMIT", "Result", "graph_breaks", "on_miss"]
