"""Loop variables a converted tensor loop carries in a wider dtype than they enter it with
(`s = s + x.sum()`, int64 -> float32): what eager code holds when the loop ran no turn, and
which reads of the widened value give eager's result (value and dtype) on every trip count."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from .program import Variable

# the marker (program.maybe_undefined entries' user name) of a widened loop variable: its flag
# says "eager code has the widened dtype too" (some turn ran the widening code); where it is
# false, eager code holds the value from before the loop in its own dtype
WIDENED = "<widened>"


_NOTHING = (None, (), False)


class WidenedReadError(TypeError):
    """A read of a widened loop variable that shows its dtype, met while a graph break may run
    it as Python (full_graph=False): the break's kind is "loop-dtype"."""


def note_before(program: Any, where: str, before: Any, shape: Sequence[int] = (),
                same_value: bool = False) -> None:
    """Remember `before`, the value a loop variable whose entry message is `where` had before the
    loop widened it (what eager code returns when the loop runs no turn), and for a Python
    number the shape of the tensor the loop starts from instead (it has no -1 dims).
    `same_value`: before is a Python number that the loop's 0-d tensor holds in the dtype the
    number itself takes as a tensor (`acc = 0.0`, then float32 sums): every read gives eager's
    value, only a returned value's Python type needs the flag."""
    program.widened_before[where] = (before, tuple(shape), same_value)


def value_before(program: Any, where: str) -> Optional[Any]:
    """The value noted for the widened variable whose entry message is `where`."""
    return program.widened_before.get(where, _NOTHING)[0]


def values_before(var: Any) -> List[Tuple[Any, Tuple[int, ...]]]:
    """The values eager code may give the widened `var` where its widening code never ran: the
    one from before its loop, and for a loop that widened the result of another widening loop,
    the one from before that loop too (a Variable, or the Python number it started as, with the
    shape of the tensor standing for it); empty when var is no widened loop variable."""
    out: List[Tuple[Any, Tuple[int, ...]]] = []
    program = var.block.program
    entry = program.maybe_undefined.get(var.name)
    while entry is not None and entry[1] == WIDENED:
        before, shape, _ = program.widened_before.get(entry[2], _NOTHING)
        out.append((before, shape))
        if not isinstance(before, Variable):
            break
        entry = program.maybe_undefined.get(before.name)
    return out


def same_value(var: Any) -> bool:
    """Whether var is a widened loop variable noted with same_value (note_before)."""
    program = var.block.program
    entry = program.maybe_undefined.get(var.name)
    return entry is not None and entry[1] == WIDENED and \
        program.widened_before.get(entry[2], _NOTHING)[2]


def narrow_dtypes(var: Any) -> List[Any]:
    """The dtypes of values_before(var) (empty when one of them is a Python number: an op on
    it gives eager code a Python number, or a tensor of another shape; var's own dtype for a
    number noted with same_value: reads give eager's value)."""
    if same_value(var):
        return [var.dtype]
    before = [b for b, _ in values_before(var)]
    if not all(isinstance(b, Variable) for b in before):
        return []
    return [b.dtype for b in before]


def exact_read(x: Any, narrow: Sequence[Any], opdef: Any, inputs: Sequence[Any],
               attrs: dict) -> bool:
    """Whether an op reading the widened `x` gives the dtypes it would give reading x in its
    dtype from before the loop (`s + x[0]`, `s.astype(...)`, `s > 0`: the same value and dtype
    on every trip count, since the widened value holds the old one exactly); `s * 2` or
    `s.sum()` do not (eager code keeps int64 there when the loop ran no turn)."""
    if not narrow:
        return False
    try:
        wide = _dtypes(opdef.infer(*inputs, **attrs))
        for dtype in narrow:
            # x in its old dtype, not entered in its block: only the op's rule reads it
            stand_in = Variable(x.block, x.name, x._shape, dtype, x.persistable, x.kind, x.elem)
            if _dtypes(opdef.infer(*[stand_in if v is x else v for v in inputs],
                                   **attrs)) != wide:
                return False
    except Exception:  # noqa: BLE001 - a rule refusing the old dtype: the read is checked
        return False
    return wide is not None


def _dtypes(inferred: Any) -> Optional[tuple]:
    # (one Meta, a NamedTuple, or a list of them)
    metas = [inferred] if hasattr(inferred, "dtype") else inferred
    try:
        return tuple((m.dtype, getattr(m, "kind", "dense")) for m in metas)
    except AttributeError:
        return None
