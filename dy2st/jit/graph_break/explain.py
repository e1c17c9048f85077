"""`jit.explain`: run a function in full_graph=False mode until no new break appears and report
its compiled graphs and its breaks."""
from __future__ import annotations

import os
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, List

from ..static_function import StaticFunction
from .result import state_of

if TYPE_CHECKING:
    from .reasons import GraphBreakInfo

MAX_RUNS = 32   # k breaks take at most k+1 calls to find


@dataclass
class ExplainReport:
    """What `explain` found: the compiled Programs, their op counts and the breaks."""
    graphs: List[Any] = field(default_factory=list)
    breaks: List[GraphBreakInfo] = field(default_factory=list)
    calls: int = 0

    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def ops_per_graph(self) -> List[int]:
        return [_op_count(p) for p in self.graphs]

    @property
    def op_count(self) -> int:
        return sum(self.ops_per_graph)

    @property
    def break_count(self) -> int:
        return len(self.breaks)

    def __str__(self) -> str:
        lines = [f"graphs: {self.graph_count}  ops: {self.op_count} "
                 f"({', '.join(map(str, self.ops_per_graph)) or 'none'} per graph)  "
                 f"breaks: {self.break_count}"]
        if self.breaks:
            where = [f"{os.path.basename(b.filename)}:{b.lineno}" for b in self.breaks]
            wide_where = max(len(w) for w in where)
            wide_src = min(max(len(b.source) for b in self.breaks), 60)
            lines.append(f"{'where'.ljust(wide_where)}  {'source'.ljust(wide_src)}  reason")
            for w, b in zip(where, self.breaks):
                src = b.source if len(b.source) <= 60 else b.source[:57] + "..."
                lines.append(f"{w.ljust(wide_where)}  {src.ljust(wide_src)}  {b.reason}")
        return "\n".join(lines)

    __repr__ = __str__


def _op_count(program: Any) -> int:
    return sum(len(b.ops) for b in program.blocks)


def fresh_static_function(fn: Any) -> Any:
    """A new full_graph=False StaticFunction of what fn converts (nothing cached is shared)."""
    # lazy: keeps nn out of a first to_static call (loaded on first use)
    from ...nn import Layer
    instance = None
    if isinstance(fn, Layer):
        instance, fn = fn, type(fn).forward
    elif isinstance(fn, types.MethodType):
        instance, fn = fn.__self__, fn.__func__
    if isinstance(fn, StaticFunction):
        instance = fn._instance if instance is None else instance
        fn = fn._function
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"explain expects a function, a method, a Layer or a StaticFunction, "
                        f"got {type(fn).__name__}")
    return StaticFunction(fn, full_graph=False, instance=instance)


def explain(fn: Any, *args: Any, **kwargs: Any) -> ExplainReport:
    """Run fn (a function, method, Layer or StaticFunction) in full_graph=False mode on these
    arguments, again while calls find new breaks, and report its graphs and breaks."""
    sf = fresh_static_function(fn)
    report = ExplainReport()
    seen = -1
    for _ in range(MAX_RUNS):
        sf(*args, **kwargs)
        report.calls += 1
        state = state_of(sf)
        found = len(state.breaks) if state is not None else 0
        if found == seen and (state is None or not state.dirty):
            break
        seen = found
        if state is None:
            break
    state = state_of(sf)
    if state is None:
        report.graphs = [sf._last.concrete.program] if sf._last is not None else []
    else:
        report.breaks = list(state.breaks)
        report.graphs = [r._last.concrete.program for r in state.regions
                         if r._last is not None and _op_count(r._last.concrete.program)]
    return report
