"""Python state a saved forward keeps between calls (`self.cache["k"] = h` or `self.buf[0] = h`
on one path, read on another): carried by the saved program as a persistable variable, read at the start of a call
and written back at its end, as a buffer is; refused when that cannot be done exactly."""
from __future__ import annotations

from typing import Any, List, Tuple

from ..runtime.dtype import dtype_name
from ..runtime.program import Program, Variable
from ..runtime.tensor import Tensor
from .errors import ConversionError


class CarriedStateError(ConversionError):
    """Python state a saved forward keeps between calls that its program cannot carry."""


def state_before(owner: Any, depth: int = 0) -> List[Tuple[Any, Any, Any]]:
    """(table, key, value) of the attributes of `owner` (a Layer), of the entries of its dict and
    list attributes and of its sublayers', before an export's trace changes them."""
    d = getattr(owner, "__dict__", None)
    if type(d) is not dict or depth > 3:
        return []
    out = [(d, k, v) for k, v in d.items()]
    for v in list(d.values()):
        if type(v) is dict:
            out += [(v, k, x) for k, x in v.items()]
        elif type(v) is list:
            out += [(v, i, x) for i, x in enumerate(v)]
    for sub in (d.get("_sub_layers") or {}).values():
        out += state_before(sub, depth + 1)
    return out


def _shown(owner: Any, table: Any, key: Any) -> str:
    d = getattr(owner, "__dict__", None)
    if table is d:
        return f"self.{key}"
    for name, v in (d or {}).items():
        if v is table:
            return f"self.{name}[{key!r}]"
    return f"an entry {key!r} of a container the forward changes"


def carry_state(program: Program, kept: List[Tuple[Any, Any, Any]], owner: Any,
                function: Any) -> None:
    """Make each location of `kept` (state_before's) that held a tensor the program read (its
    value of an earlier call) and now holds a value the program computed a write of that
    tensor: the saved model then carries it across calls."""
    g = program.global_block()
    code = getattr(function, "__code__", None)
    where = f"{code.co_filename}:{code.co_firstlineno}" if code is not None else "forward"
    for table, key, before in kept:
        if not isinstance(before, Tensor) or not isinstance(table, (dict, list)):
            continue
        after = table.get(key) if isinstance(table, dict) else \
            (table[key] if key < len(table) else None)
        read = next((n for n, t in program.persistables.items() if t is before), None)
        if read is None or after is before or not isinstance(after, (Variable, Tensor)):
            continue                # not read, or unchanged: nothing to carry
        shown = _shown(owner, table, key)
        if not isinstance(after, Variable) or after.block is not g or \
                tuple(after._shape) != tuple(g.vars[read]._shape) or after.dtype != before.dtype:
            got = (f"{dtype_name(after.dtype)}{list(after._shape)}" if isinstance(after, Variable) else
                   type(after).__name__)
            made = next((op.origin for op in g.ops if after.name in op.outputs and op.origin),
                        None) if isinstance(after, Variable) else None
            if made is not None:
                where = f"{made.file}:{made.line}"
            raise CarriedStateError(
                f"jit.save: {shown} holds {got} after a call of the forward (set at {where}) and "
                f"{dtype_name(before.dtype)}{list(before.shape)} before it, which the call reads: a saved "
                "model carries such state between calls only with one fixed shape and dtype; "
                "keep it in a buffer (register_buffer, updated with paddle.assign(h, "
                "output=self.buf)) or return it")
        if read in program.persistable_writes:
            continue
        program.persistable_writes[read] = after.name
        program.write_targets[read] = before
