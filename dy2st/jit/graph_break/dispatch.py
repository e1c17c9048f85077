"""full_graph=False: a cache miss traces the whole function as full_graph=True does; a trace
that breaks runs that call eagerly, records the statement that broke, and later calls run the
function outlined into compiled regions and Python islands."""
from __future__ import annotations

import re
import warnings
from typing import Any, Dict, List, Optional, Set, Tuple

import gast
import numpy as np

from ...format.input_spec import InputSpec
from ..errors import SourceUnavailableError, raise_in_user_code, user_frames
from ..logger import log
from ..signature import describe_change
from ..static_function import StaticFunction
from ..transform import build_code, cache, parse_function
from . import identity, object_writes
from .broken import mark_broken
from .outline import REGIONS, Outline, Region, build, locate, set_cell, unfeed
from .output_kinds import RegionCall, output_kinds, remember_kinds
from .own_backward import REASON as OWN_BACKWARD, backward_lines
from .reasons import GraphBreakInfo, break_origin, classify, value_hint
from .result import Result, state_of

_warned_codes: Set[Any] = set()     # code objects already warned about (once each)


def warn_eager_once(fn: Any, error: BaseException) -> None:
    """One warning per function that runs eagerly because its source cannot be read."""
    code = getattr(fn, "__code__", fn)
    if code in _warned_codes:
        return
    _warned_codes.add(code)
    # shown at the function's own definition, the place the user can act on
    warnings.warn_explicit(f"to_static runs {getattr(fn, '__qualname__', fn)!s} eagerly: {error}",
                           UserWarning, getattr(code, "co_filename", "<unknown>"),
                           getattr(code, "co_firstlineno", 0))


RECOMPILE_LIMIT = 8   # traces of one region before it runs eagerly (Dynamo's recompile_limit)


class BreakState:
    """The breaks of one StaticFunction and its current outline."""

    def __init__(self, sf: Any) -> None:
        self.sf = sf
        self.islands: Set[int] = set()             # ids of statements that stay Python
        self.opened: Set[int] = set()              # ids of if/for/while with a Python header
        self.inlined: Set[int] = set()             # ids of statements of regions without ops
        self.breaks: List[GraphBreakInfo] = []
        self.outline: Optional[Outline] = None
        self.regions: List[Any] = []               # StaticFunction per region
        self.steps: List[Tuple[str, List[int]]] = []
        self.dirty = True
        self.whole = False                         # nothing to outline: every call is eager
        try:
            self.parsed = parse_function(sf._function)
        except Exception as e:  # noqa: BLE001 - no source: the function stays eager as a whole
            self.parsed = None
            self.whole = True
            if isinstance(e, SourceUnavailableError):
                warn_eager_once(sf._function, e)

    # -- recording ---------------------------------------------------------------------------
    def record(self, error: BaseException, region: Optional[Region] = None) -> None:
        """Turn the statement where the trace broke into an island, and log the new break."""
        kind, reason = classify(error)
        fn = self.sf._function
        if self.parsed is None:
            code = fn.__code__
            self._add(GraphBreakInfo(code.co_filename, code.co_firstlineno, fn.__name__,
                                     "", reason, kind))
            return
        fdef, _nodes, lines, start, filename = self.parsed
        first, last = start + fdef.lineno - 1, start + (fdef.end_lineno or fdef.lineno) - 1
        origin = break_origin(error, filename, fdef.name, first, last)
        line = origin.line if origin is not None else _line_in_message(error, filename, first, last)
        found = locate(fdef.body, line - start + 1) if line is not None else None
        if found is not None and id(found[1]) in (self.islands if found[0] == "stmt"
                                                  else self.opened):
            found = None        # nothing new to split there (a line mapped oddly)
        if found is None:
            # no statement to tell: the region (or the function) stays Python as a whole
            stmts = region.stmts if region is not None else list(fdef.body)
            self.islands.update(id(s) for s in stmts)
            at = start + stmts[0].lineno - 1
        else:
            where, stmt, around = found
            (self.opened if where == "header" else self.islands).add(id(stmt))
            self.opened.update(id(s) for s in around)
            at = line
            hint = value_hint(stmt.test if where == "header" and not isinstance(stmt, gast.For)
                              else stmt, fdef) if kind == "error" else None
            if hint:
                kind, reason = "numpy", f"{hint} runs as Python ({reason})"
        source = lines[at - start].strip() if 0 <= at - start < len(lines) else ""
        self._add(GraphBreakInfo(filename, at, fdef.name, source, reason, kind))
        self.dirty = True

    def record_static(self, line: int, reason: str, kind: str = "side-effect") -> None:
        """An island found before tracing (a side effect on a Python object), or after a trace
        that did not fail (own_backward.py); `line` is block-relative."""
        fdef, _nodes, lines, start, filename = self.parsed
        found = locate(fdef.body, line)
        if found is not None:
            where, stmt, around = found
            (self.opened if where == "header" else self.islands).add(id(stmt))
            self.opened.update(id(s) for s in around)
        self._add(GraphBreakInfo(filename, start + line - 1, fdef.name,
                                 lines[line - 1].strip(), reason, kind))
        self.dirty = True

    def _add(self, info: GraphBreakInfo) -> None:
        if info not in self.breaks:
            self.breaks.append(info)
            log.info("to_static: graph break in %s at %s:%d `%s`: %s", info.function,
                     info.filename, info.lineno, info.source, info.reason)

    # -- running -----------------------------------------------------------------------------
    def run(self, args: Tuple, kwargs: Dict) -> Any:
        sf = self.sf
        if self.whole:
            return _eager(sf.dygraph_function, args, kwargs)
        if self.dirty:
            self._rebuild()
        driver = self.outline.driver
        try:
            if sf._instance is not None:
                return driver(sf._instance, *args, **kwargs)
            return driver(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - an island's error, at the user's line
            raise_in_user_code(e)

    def _rebuild(self) -> None:
        sf = self.sf
        fdef = self.parsed[0]
        outline, steps = build(fdef, self.parsed, self.islands | self.inlined, self.opened,
                               sf._function, sf._instance is not None)
        old = {tuple(id(s) for s in r.stmts): rsf
               for r, rsf in zip(self.outline.regions, self.regions)} if self.outline else {}
        regions = []
        for i, region in enumerate(outline.regions):
            # a region whose statements did not change keeps its compiled entries
            same = old.get(tuple(id(s) for s in region.stmts))
            if same is not None and same._gb_region[1].params == region.params and \
                    same._gb_region[1].outputs == region.outputs:
                kept = same._gb_region[1]
                kept.index = i
                outline.regions[i] = kept
                regions.append(same)
                continue
            rsf = StaticFunction(region.plain, full_graph=False, instance=sf._instance,
                                  backend=sf.backend)
            rsf._gb_region = (self, region)
            rsf._identity = identity
            specs = self._param_specs()
            if specs and any(p in specs for p in region.params):
                # a parameter given an InputSpec keeps its unknown dims in the regions
                rsf._input_spec = [specs.get(p) for p in region.params]
            regions.append(rsf)
        set_cell(outline.driver, REGIONS, [RegionCall(r) for r in regions])
        self.outline, self.regions, self.steps = outline, regions, steps
        self.dirty = False

    def _param_specs(self) -> Dict[str, Any]:
        sf = self.sf
        if not sf._input_spec:
            return {}
        return dict(zip(sf._arg_names(len(sf._input_spec)), sf._input_spec))

    def _pass_unknown_dims(self, region: Region, entry: Any) -> None:
        """Outputs with unknown dims (from an InputSpec) stay unknown in the regions that read
        them, so a new batch size does not trace those again."""
        concrete = entry.concrete
        if region.returns or not self.sf._input_spec:
            return
        block = concrete.program.global_block()
        found = {}
        for name, (how, v) in zip(region.outputs, concrete.output_leaves):
            var = block.vars.get(concrete.program.fetch_names[v]) if how == "var" else None
            if var is not None and var.kind == "dense" and any(d < 0 for d in var._shape):
                found[name] = InputSpec([None if d < 0 else d for d in var._shape], var.dtype)
        for rsf in self.regions[region.index + 1:]:
            later = rsf._gb_region[1]
            if any(p in found for p in later.params) and not rsf._entries:
                specs = rsf._input_spec or [None] * len(later.params)
                rsf._input_spec = [specs[i] or found.get(p) for i, p in enumerate(later.params)]

    def _region_break(self, region: Region, reason: str, kind: str) -> None:
        """Record that `region` runs eagerly from now on, at its first line."""
        fdef, _n, lines, start, filename = self.parsed
        self._add(GraphBreakInfo(filename, start + region.first_line - 1, fdef.name,
                                 lines[region.first_line - 1].strip(), reason, kind))

    def region_miss(self, rsf: Any, region: Region, args: Tuple, kwargs: Dict, key: Any) -> Any:
        if region.eager or rsf._programs >= RECOMPILE_LIMIT:
            if not region.eager:
                region.eager = True
                names = rsf._arg_names(len(args))
                last = rsf._last.key if rsf._last is not None else key
                self._region_break(
                    region, f"recompile limit ({RECOMPILE_LIMIT} traces) reached, the region "
                    f"runs eagerly: {describe_change(names, last, key)}", "recompile-limit")
            return Result(_eager(rsf.dygraph_function, _unfed(args), kwargs))
        if self.sf._input_spec and _unknown_dims_for_arrays(rsf, args):
            key = rsf._key(args, kwargs)
            entry = rsf._entries.get(key)
            if entry is not None:
                return entry
        saved = object_writes.snapshot(args, kwargs)
        try:
            _ensure_converted(region)
            entry = rsf._trace(args, kwargs, key)
        except Exception as e:  # noqa: BLE001 - a new break on this path
            object_writes.put_back(saved)
            value = _eager(rsf.dygraph_function, _unfed(args), kwargs, e)
            self.record(e, region)
            return Result(value)
        if object_writes.put_back(saved):
            region.eager = True
            _forget(rsf, entry)
            self._region_break(region, object_writes.REASON, "side-effect")
            return Result(_eager(rsf.dygraph_function, _unfed(args), kwargs))
        self._pass_unknown_dims(region, entry)
        # this call runs eagerly: its result tells which outputs eager code has as arrays or
        # numbers (see output_kinds.py)
        value = _eager(rsf.dygraph_function, _unfed(args), kwargs)
        kinds = output_kinds(entry, value)
        _fdef, _nodes, _lines, start, filename = self.parsed
        steps = backward_lines(entry.concrete.program, region.returns, value, filename)
        if steps:
            for line in steps:
                self.record_static(line - start + 1, OWN_BACKWARD, "unsupported")
            return Result(value)
        if not any(b.ops for b in entry.concrete.program.blocks):
            # nothing to compile: its statements run as Python, saving a region call
            self.inlined.update(id(s) for s in region.stmts)
            self.dirty = True
        elif kinds is None:
            region.eager = True
            # its later calls run eagerly too: a call that hit this entry would hand out what
            # eager code does not have (fuzz seed 11001211: an UndefinedVar for a None)
            _forget(rsf, entry)
        else:
            remember_kinds(entry, kinds)
        return Result(value)


def _forget(rsf: Any, entry: Any) -> None:
    """Drop a region's cache entry, so that its calls miss (and run as region_miss says)."""
    for k, e in list(rsf._entries.items()):
        if e is entry:
            del rsf._entries[k]


def _unknown_dims_for_arrays(rsf: Any, args: Tuple) -> bool:
    """With an InputSpec on the function, arrays computed by islands enter regions with every
    dim unknown (they usually follow the batch): True when that changed the region's specs."""
    specs = list(rsf._input_spec or [None] * len(args))
    changed = False
    for i, a in enumerate(args[:len(specs)]):
        if specs[i] is None and type(a) is np.ndarray and a.ndim:
            specs[i] = InputSpec([None] * a.ndim, str(a.dtype))
            changed = True
    if changed:
        rsf._input_spec = specs
    return changed


def _unfed(args: Tuple) -> Tuple:
    return tuple(unfeed(a) for a in args)


def _ensure_converted(region: Region) -> None:
    """The converter cannot read a region's source: hand it the region's tree."""
    if cache.get(region.plain.__code__) is None:
        cache.put(region.plain.__code__, build_code(region.plain, parsed=region.parsed))


def _line_in_message(e: BaseException, filename: str, first: int, last: int) -> Optional[int]:
    for m in re.finditer(r'File "([^"]+)", line (\d+)', str(e)):
        if m.group(1) == filename and first <= int(m.group(2)) <= last:
            return int(m.group(2))
    return None


def _eager(fn: Any, args: Tuple, kwargs: Dict, trace_error: Optional[BaseException] = None) -> Any:
    """fn run eagerly; when it fails too, a trace error that was no break and is eager's
    failure (its type, at its line) is raised as the trace raised it (its message may say
    more); any other is not what the code does: eager's error is raised."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001
        if trace_error is not None and classify(trace_error)[0] == "error" and \
                _same_failure(trace_error, e):
            raise trace_error  # noqa: B904 - the trace's own error, as it was raised
        raise_in_user_code(e)


def _same_failure(trace_error: BaseException, error: BaseException) -> bool:
    """The trace failed as eager code did: the same exception type, at the same user line
    when both are known (a trace that went on past a check failing on this path only, as
    `h + z` with z unassigned, fails later, and elsewhere: fuzz seeds 2001840, 2001893)."""
    if _builtin_type(trace_error) is not _builtin_type(error):
        return False        # (UnboundLocalError is a NameError, but not the same failure)
    a, b = user_frames(trace_error.__traceback__), user_frames(error.__traceback__)
    return not a or not b or (a[-1].file, a[-1].line) == (b[-1].file, b[-1].line)


def _builtin_type(e: BaseException) -> type:
    """The Python exception type e is (dy2st's own errors subclass one)."""
    return next(t for t in type(e).__mro__ if t.__module__ == "builtins")


def break_on_effects(sf: Any, effects: List[Tuple[int, int, str]], args: Tuple,
                     kwargs: Dict) -> "Result":
    """The first call of a function with statements a Program cannot hold: they become
    islands, and the function runs outlined from now on."""
    state = BreakState(sf)
    for _index, line, reason in effects:
        state.record_static(line, reason)
    sf._gb = state
    mark_broken(sf)
    return Result(state.run(args, kwargs))


def break_on_error(sf: Any, args: Tuple, kwargs: Dict, error: BaseException) -> "Result":
    """The whole-function trace failed: this call runs eagerly, and the statement that broke
    becomes an island."""
    value = _eager(sf.dygraph_function, args, kwargs, error)
    state = BreakState(sf)
    state.record(error)
    sf._gb = state
    mark_broken(sf)
    return Result(value)


def graph_breaks(sf: Any) -> List[GraphBreakInfo]:
    state = state_of(sf)
    return list(state.breaks) if state is not None else []
