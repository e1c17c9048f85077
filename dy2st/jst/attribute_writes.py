"""Attributes that methods called while a tensor loop is traced assign on their objects
(`acc.add(t)` setting `self.v`): the loop cannot see them in its own code, so it records them
here and carries those that end up holding the loop body's tensors (jst.run_static_loop)."""
from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Any, Callable, Iterator, List, Sequence, Tuple

import numpy as np

from ..runtime.program import Block, Variable
from ..runtime.tensor import TensorLike

_MISSING = object()


class AttributeWrites:
    """(object, attribute, value before the loop) of each attribute a called method may set."""

    def __init__(self) -> None:
        # objects by weak reference where they allow it: one made and dropped inside the loop
        # body is gone after the trace, and was never the loop's state
        self.writes: List[Tuple[Callable[[], Any], str, Any]] = []
        self._seen = set()

    def note(self, obj: Any, attrs: Tuple[str, ...]) -> None:
        for attr in attrs:
            key = (id(obj), attr)
            if key not in self._seen:
                self._seen.add(key)
                try:
                    ref = weakref.ref(obj)
                except TypeError:
                    ref = (lambda o: lambda: o)(obj)
                self.writes.append((ref, attr, getattr(obj, attr, _MISSING)))

    def changed(self, parent: Block, carried: List[Tuple[Any, str]]) -> List[Tuple[Any, str, Any]]:
        """The writes, not carried yet, that left their attribute with another value than before
        the loop (a tensor of the body, a number counted up): state the loop must carry. Only
        attributes that had a value before the loop count (there is nothing to start from)."""
        out = []
        for ref, attr, before in self.writes:
            obj = ref()
            if obj is None or before is _MISSING or \
                    any(o is obj and a == attr for o, a in carried):
                continue
            value = getattr(obj, attr, _MISSING)
            if value is before or value is _MISSING:
                continue
            if isinstance(value, Variable):
                if value.block is parent or parent._is_ancestor(value.block):
                    if not isinstance(before, TensorLike) and not _is_number(before):
                        continue
            elif not (_is_number(value) and _is_number(before) and value != before):
                continue                 # other Python values: as they are after the trace
            out.append((obj, attr, before))
        return out


def not_among(changed: List[Tuple[Any, str, Any]], names: Sequence[str],
              values: Sequence[Any]) -> List[Tuple[Any, str, Any]]:
    """The changed attributes, (object, name, value before) each, that are not already among
    an `if`'s or loop's own names (`d.a` written in its code too: `d.a[-1] = s` before
    `d.put(row)`), which `names` and their `values` now tell."""
    return [(obj, attr, before) for obj, attr, before in changed
            if not any(n.endswith("." + attr) and v is getattr(obj, attr, None)
                       for n, v in zip(names, values))]


def _is_number(v: Any) -> bool:
    return type(v) in (int, float) or isinstance(v, (np.integer, np.floating))


class _Recorders(threading.local):
    def __init__(self) -> None:
        self.stack: List[AttributeWrites] = []


_recorders = _Recorders()


@contextlib.contextmanager
def recording() -> Iterator[AttributeWrites]:
    """Record the attribute writes of methods called inside (and inside nested loops)."""
    writes = AttributeWrites()
    _recorders.stack.append(writes)
    try:
        yield writes
    finally:
        _recorders.stack.pop()


def note_method(obj: Any, attrs: Tuple[str, ...]) -> None:
    """A method about to run on obj assigns these attributes of it."""
    for writes in _recorders.stack:
        writes.note(obj, attrs)


def is_recording() -> bool:
    return bool(_recorders.stack)
