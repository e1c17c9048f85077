"""Automatic dynamic numbers: a Python number argument, or a guarded number (a global, a plain
attribute of `self` or of an argument object) whose value made the function trace again twice
becomes an input of its programs from then on (as Dynamo makes such a number a SymInt on its
second recompile), so a step counter or a learning rate does not cost one program per value.
Inside the trace the number is a PythonValue: arithmetic and tensor ops take it as the number;
Python logic that needs the value itself (`range(n)`, an index, a dict key) fails the trace, and
the function keeps numbers by value from then on."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..format.input_spec import InputSpec
from ..runtime.python_value import PythonValue
from ..runtime.pytree import is_namedtuple
from .logger import log

ENABLED = True          # set False on this module to key every Python number by its value
CHANGES_BEFORE_INPUT = 2    # traces a number's new value caused before it becomes an input
_DTYPES = {float: "float32", int: "int32"}     # as eager code mixes a Python number with tensors
_INT32 = 2 ** 31


class NumberSpec(InputSpec):
    """The spec of a number argument made a program input (its trace variable is a
    PythonValue)."""


class Source:
    """A guarded number read from a dict (a module's globals, an object's __dict__)."""
    __slots__ = ("key", "what", "table", "name", "type")

    def __init__(self, key: Any, what: str, table: Dict[str, Any], name: str, type_: type):
        self.key, self.what, self.table, self.name, self.type = key, what, table, name, type_

    def value(self) -> Any:
        return self.table.get(self.name)


class Layout:
    """Which numbers of one StaticFunction are program inputs, and the counts that decide it."""

    def __init__(self) -> None:
        self.positions: Dict[int, type] = {}        # argument index -> int or float
        self.sources: List[Source] = []
        self.seen: Dict[int, set] = {}              # argument index -> values traced
        self.failures: Dict[Any, int] = {}          # guard key -> traces its change caused
        self.off = False                            # a trace refused a number input
        self.dropped: Dict[Any, Any] = {}           # the entries before numbers were inputs

    def rekey(self, key: Tuple, args: Tuple) -> Tuple:
        """The arguments' cache key with the numbers that are inputs keyed by their type."""
        parts = list(key)
        for i, t in self.positions.items():
            if i < len(args) and _fits(args[i], t):
                parts[i] = ("#number", t)
        return tuple(parts)


def _fits(value: Any, t: type) -> bool:
    return type(value) is t and (t is float or -_INT32 <= value < _INT32)


def _number(value: Any) -> Optional[type]:
    t = type(value)
    return t if t in _DTYPES else None


def before_trace(sf: Any, args: Tuple, kwargs: Dict, same_key: Any) -> bool:
    """Count what made this trace; True when a number became an input (the cached programs,
    traced with it as a constant, are dropped)."""
    if not ENABLED or kwargs or sf._input_spec is not None:
        return False
    layout = sf._numbers
    if layout is None:
        layout = sf._numbers = Layout()
    if layout.off:
        return False
    grew = False
    # (number arguments are fed by position: only in calls whose arguments hold no containers)
    flat = not any(type(a) in (list, tuple, dict) or is_namedtuple(a) for a in args)
    for i, a in enumerate(args if flat else ()):
        t = _number(a)
        if t is None or i in layout.positions or not _fits(a, t):
            continue
        values = layout.seen.setdefault(i, set())
        values.add((t, a))
        if len(values) > CHANGES_BEFORE_INPUT:
            layout.positions[i] = t
            grew = True
            log.info("to_static: %s: argument %d changed on %d traces; it is a program input "
                     "from now on", sf.__name__, i, CHANGES_BEFORE_INPUT)
    guards = same_key.guards if same_key is not None else None
    # (an entry never reused, for its side effects, is no number's fault)
    failed = guards.failed() if guards is not None and not guards.never else None
    if failed is not None and _number(failed.value) is not None and failed.source is not None:
        table, name = failed.source[1], failed.source[2]
        if name in table and _fits(table[name], type(failed.value)) and \
                all(s.key != failed.key for s in layout.sources):
            count = layout.failures[failed.key] = layout.failures.get(failed.key, 0) + 1
            if count >= CHANGES_BEFORE_INPUT:
                layout.sources.append(Source(failed.key, failed.what, table, name,
                                             type(failed.value)))
                grew = True
                log.info("to_static: %s: %s changed on %d traces; it is a program input from "
                         "now on", sf.__name__, failed.what, count)
    if grew:
        # the programs traced with the numbers as constants are not used any more (kept aside
        # in case a trace refuses the numbers)
        layout.dropped, sf._entries = sf._entries, {}
        sf._programs = sf.num_programs
        sf._last = None
        sf._rekey = layout.rekey if layout.positions else None
    return grew


def number_keys(sf: Any) -> frozenset:
    """The guard keys compared by type only (their value is a program input)."""
    layout = sf._numbers
    if layout is None or layout.off:
        return frozenset()
    return frozenset(s.key for s in layout.sources)


def trace_args(layout: Optional[Layout], args: Tuple) -> Tuple[Tuple, List[Tuple[int, type]]]:
    """args with the input numbers replaced by NumberSpecs, and (index, type) of each."""
    if layout is None or layout.off or not layout.positions:
        return args, []
    out, made = list(args), []
    for i, t in layout.positions.items():
        if i < len(out) and _fits(out[i], t):
            out[i] = NumberSpec([], _DTYPES[t])
            made.append((i, t))
    return tuple(out), made


class Installed:
    """The sources' PythonValues put in place of their numbers while a trace runs."""

    def __init__(self, layout: Optional[Layout], program: Any) -> None:
        self.saved: List[Tuple[Source, Any]] = []
        self.specs: List[InputSpec] = []
        if layout is None or layout.off:
            return
        names = set()
        for s in layout.sources:
            if not _fits(s.value(), s.type):
                continue
            name = f"number_{s.name}"
            if name in names:   # `.k` of two objects: each its own input
                name = f"{name}_{len(names)}"
            names.add(name)
            spec = InputSpec([], _DTYPES[s.type], name)
            var = program.add_input(spec.name, [], spec.dtype)
            var.__class__ = PythonValue
            self.saved.append((s, s.value()))
            self.specs.append(spec)
            s.table[s.name] = var

    def restore(self) -> None:
        for s, value in self.saved:
            s.table[s.name] = value

    def sources(self) -> List[Source]:
        return [s for s, _ in self.saved]


def trace(sf: Any, args: Tuple, kwargs: Dict) -> Any:
    """sf.trace_program with the numbers made inputs as PythonValues; when such a trace fails,
    numbers are keyed by value from then on and the trace is done again without them."""
    layout = sf._numbers
    if layout is None or layout.off or not (layout.positions or layout.sources):
        return sf.trace_program(args, kwargs)
    sf._number_plan = layout
    try:
        return sf.trace_program(args, kwargs)
    except Exception as e:  # noqa: BLE001 - Python code that needs the number's value
        refuse(sf, e)
    finally:
        sf._number_plan = None
    return sf.trace_program(args, kwargs)


def escapes(out_leaves: List[Any]) -> bool:
    """A number input returned as it is: eager code returns a Python number there."""
    return any(type(v) is PythonValue for v in out_leaves)


def refuse(sf: Any, error: BaseException) -> None:
    """A trace with number inputs failed: numbers are keyed by value from now on."""
    layout = sf._numbers
    layout.off = True
    layout.positions, layout.sources = {}, []   # keys and guards by value again
    sf._rekey = None
    sf._entries, layout.dropped = layout.dropped, {}
    sf._programs = sf.num_programs
    sf._last = None
    log.info("to_static: %s keeps Python numbers by value: a trace with them as inputs failed "
             "(%s)", sf.__name__, str(error).splitlines()[0][:200] if str(error) else
             type(error).__name__)


def make_feeds(entry: Any, made: List[Tuple[int, type]], sources: List[Source]) -> None:
    """entry.feeds for an entry with number inputs: the numbers cast to their input dtype,
    the sources' current values after the arguments' feeds."""
    base = type(entry).feeds
    positions = entry.flat_positions or []
    dtypes = [(positions.index(i), _DTYPES[t]) for i, t in made]

    def feeds(args: Tuple, kwargs: Dict) -> List[Any]:
        out = base(entry, args, kwargs)
        for k, dtype in dtypes:
            out[k] = np.asarray(out[k], dtype)
        for s in sources:
            out.append(np.asarray(s.value(), _DTYPES[s.type]))
        return out
    entry.feeds = feeds
    entry.numbers = (made, sources)
