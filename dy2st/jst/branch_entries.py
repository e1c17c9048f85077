"""Container entries a tensor `if` outputs that may hold no value (a dict key a tensor loop
or one branch adds, a None that became a tensor): each keeps a "does it hold a value?" flag of
its own through the `if`, so `k in d`, `d.get(k)` and reads of it answer on the path taken."""
from __future__ import annotations

from typing import Any, List, Sequence, Tuple

from ..runtime.control_flow.loop_growth import flagged_placeholder
from ..runtime.program import Block, Variable, block_guard
from ..runtime.pytree import flatten
from ..runtime.side_effects import MISSING_KEY
from ..runtime.tensor import TensorLike


def missing_keys(t: Any, f: Any, tb: Block, fb: Block) -> Tuple[Any, Any]:
    """Dicts (nested ones too) that have a tensor key on one path only get it on the other as
    a placeholder flagged as missing there, in the key order of the path that has it."""
    if type(t) is not dict or type(f) is not dict:
        return t, f
    for k in set(t) & set(f):
        t[k], f[k] = missing_keys(t[k], f[k], tb, fb)
    for have, lack, block in ((t, f, fb), (f, t, tb)):
        extra = [k for k in have if k not in lack]
        if not extra or not all(_tensors_only(have[k]) for k in extra):
            continue        # (a structure a placeholder cannot stand for stays an error)
        for k in extra:
            with block_guard(block):
                lack[k] = flagged_placeholder(have[k], MISSING_KEY, repr(k))
        order = list(have) + [k for k in lack if k not in have]
        reordered = {k: lack[k] for k in order}
        lack.clear()
        lack.update(reordered)
    return t, f


def _tensors_only(value: Any) -> bool:
    leaves = flatten(value)[0]
    return bool(leaves) and all(isinstance(v, TensorLike) and v.kind == "dense" for v in leaves)


def entry_of(value: Any) -> Any:
    if isinstance(value, Variable):
        return value.block.program.maybe_undefined.get(value.name)
    return None


def flagged_leaves(t_vals: Sequence[Any], f_vals: Sequence[Any]) -> List[Tuple[int, int, tuple]]:
    """(output, leaf, entry) for each tensor inside a container output that may hold no value
    on some path (a top-level tensor output has its own flag: branches.IfElse)."""
    out = []
    for k, (a, b) in enumerate(zip(t_vals, f_vals)):
        if isinstance(a, Variable) or isinstance(b, Variable):
            continue
        for j, (x, y) in enumerate(zip(flatten(a)[0], flatten(b)[0])):
            entry = entry_of(x) or entry_of(y)
            if entry is not None and x is not y:
                out.append((k, j, entry))
    return out


def note_flags(merged: Sequence[Any], leaves: Sequence[Tuple[int, int, tuple]],
               flags: Sequence[Any]) -> None:
    """The merged leaves take their entries, with the merged flags."""
    for (k, j, entry), flag in zip(leaves, flags):
        leaf = flatten(merged[k])[0][j]
        if isinstance(leaf, Variable):
            leaf.block.program.maybe_undefined[leaf.name] = (flag,) + tuple(entry[1:])
