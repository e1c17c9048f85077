"""Which lists a loop body grows (`acc.append(v)`, `d["acc"] += [v]`, `o.acc = o.acc + [v]`): in a
tensor loop each becomes a tensor array; the other lists stay lists of loop variables."""
from __future__ import annotations

from typing import Iterable, List, Optional

import gast

from .analysis import dotted_name, written_attributes
from .walk import all_nodes

GROWING_METHODS = {"append", "extend", "insert", "pop"}
_DISPLAYS = (gast.List, gast.Tuple)


def grown_lists(stmts: Iterable[gast.AST]) -> List[str]:
    """The lists the statements grow or shrink, spelled as `dotted_name` spells them: `acc`,
    `d['acc']`, `d['a']['b']`, `lst[0]`, `self.acc`. Only a list display (`[v]`, `(v,)`) added
    counts: `h += v` or `h = h + [1.0]` may well add to a tensor."""
    found: List[str] = []
    for s in stmts:
        for node in all_nodes(s, contexts=False):
            entry = _grown_entry(node)
            if entry and entry not in found:
                found.append(entry)
    return found


def carried_attributes(stmts: List[gast.stmt]) -> List[str]:
    """The attributes a loop body or the branches of an `if` carry: those they assign, and those
    holding a list (or a dict of lists) they grow by a method (`self.acc.append(v)`,
    `self.d["k"].append(v)`): under a tensor loop or `if` such a list becomes a tensor array,
    which must reach the attribute afterwards as an assigned one does."""
    attrs = written_attributes(stmts)
    for entry in grown_lists(stmts):
        holder = entry.split("[", 1)[0]
        if "." in holder and holder not in attrs:
            attrs.append(holder)
    return attrs


def _grown_entry(node: gast.AST) -> Optional[str]:
    t = type(node)
    if t is gast.Call:
        func = node.func
        if type(func) is gast.Attribute and func.attr in GROWING_METHODS:
            return dotted_name(func.value)          # `acc.append(v)`, `d["acc"].extend(vs)`
        return _set_item_entry(node)
    if t is gast.AugAssign and type(node.op) is gast.Add and type(node.value) in _DISPLAYS:
        return dotted_name(node.target)             # `acc += [v]`, `o.acc += (v,)`
    if t is gast.Assign and len(node.targets) == 1:
        target = dotted_name(node.targets[0])       # `acc = acc + [v]`, `acc = [v] + acc`
        return target if target and _adds_display_to(node.value, target) else None
    return None


def _set_item_entry(call: gast.Call) -> Optional[str]:
    """The entry `c[k]` of `_jst.SetItem(c, k, value)` (the setitem pass's spelling of an item
    assignment) when value grows it: `c[k] + [v]`, or `_jst.InPlace(c[k], '+', [v])` (from
    `c[k] += [v]`)."""
    func = call.func
    if not (type(func) is gast.Attribute and func.attr == "SetItem" and
            type(func.value) is gast.Name and func.value.id == "_jst" and len(call.args) == 3):
        return None
    container, key, value = call.args
    if not (type(key) is gast.Constant and type(key.value) in (int, str)):
        return None
    holder = dotted_name(container)
    entry = f"{holder}[{key.value!r}]" if holder else ""
    return entry if entry and _adds_display_to(value, entry) else None


def _adds_display_to(value: gast.AST, entry: str) -> bool:
    """Whether value is `entry + [..]`, `[..] + entry` or `_jst.InPlace(entry, '+', [..])`."""
    if type(value) is gast.BinOp and type(value.op) is gast.Add:
        return (type(value.right) in _DISPLAYS and dotted_name(value.left) == entry) or (
            type(value.left) in _DISPLAYS and dotted_name(value.right) == entry)
    if type(value) is gast.Call and type(value.func) is gast.Attribute and \
            value.func.attr == "InPlace" and len(value.args) == 3:
        current, op, added = value.args
        return type(op) is gast.Constant and op.value == "+" and \
            type(added) in _DISPLAYS and dotted_name(current) == entry
    return False
