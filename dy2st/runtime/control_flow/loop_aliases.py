"""What a tensor loop knows of objects: loop variables changed in place on some turns only
(followed with a "still that object?" flag), loop variables that may be one another or an outer
object (alias flags), refused values, and the aliases that hold after the loop."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

from ..inplace import (
    add_path_alias,
    alias_condition,
    as_flag,
    is_dense_var,
    leaf_aliases,
    reachable,
)
from ..program import Block, Variable, escaped_message, is_to_static_trace, rebind
from ..side_effects import REFUSED, check_entry, refused_value


def undefined_entry(v: Any):
    """v's "was it assigned?" entry (program.maybe_undefined), if v may be unassigned."""
    if isinstance(v, Variable):
        return v.block.program.maybe_undefined.get(v.name)
    return None


def alias_outer_outputs(final: List[Any], outer_outs: List[Tuple[int, Variable]],
                         leaves: List[Any], init: List[Any], ran: Variable,
                         rebound: List[int]) -> None:
    """A loop variable the body sets to an object from before the loop is that object after
    the loop if the body ran (and still its own object from before if it did not); one the
    body rebinds (`rebound`) is its object from before if the body did not run."""
    alias_unrun_outputs(final, rebound, leaves, ran)
    for i, o in outer_outs:
        if isinstance(final[i], Variable) and final[i] is not o:
            add_path_alias(final[i], o, ran, True)
            if isinstance(leaves[i], Variable) and leaves[i] is init[i] and \
                    leaves[i] is not final[i] and leaves[i].kind == "dense":
                add_path_alias(final[i], leaves[i], ran, False)


def rebound_objects(out_leaves: List[Any], b_params: List[Any], leaves: List[Any],
                    init: List[Any], outer_outs: List[Tuple[int, Any]], program: Any) -> List[int]:
    """The loop variables the body rebinds that hold an object from before the loop: still that
    object when no turn runs, so other names holding it see in-place changes after the loop.
    Only in a to_static trace, whose Python names follow eager objects; a static-mode
    while_loop returns new values by design."""
    if not is_to_static_trace(program):
        return []
    outer = {k for k, _ in outer_outs}
    return [i for i, o in enumerate(out_leaves) if o is not b_params[i] and
            isinstance(leaves[i], Variable) and leaves[i] is init[i] and
            leaves[i].kind == "dense" and i not in outer]


def alias_unrun_outputs(final: List[Any], rebound: List[int], leaves: List[Any],
                        ran: Variable) -> None:
    """A loop variable the body rebinds is its object from before the loop when the body did
    not run (`g = h`, a loop of `g = g + 1` that runs no turn, then `g.add_(...)` changes `h`)."""
    for i in rebound:
        if isinstance(final[i], Variable) and final[i] is not leaves[i]:
            add_path_alias(final[i], leaves[i], ran, False)


def follow_in_place(final: List[Any], leaves: List[Any], init: List[Any], is_var: List[bool],
                     b_params: List[Any], param_names: List[Optional[str]],
                     out_leaves: List[Any], followed: List[int], program: Any) -> None:
    """A loop variable whose object every turn changes in place (h[0] = v, never h = ...) is
    still that object after the loop: whatever else holds it sees the final value."""
    for i, leaf in enumerate(leaves):
        if not is_var[i] or init[i] is not leaf or not isinstance(leaf, Variable) or \
                not isinstance(b_params[i], Variable):
            continue
        if b_params[i].name == param_names[i]:
            if out_leaves[i] is b_params[i] and i not in followed:
                # never rebound nor changed in the body (a list entry carried with its list):
                # still the object from before the loop, which other names may also hold
                final[i] = leaf
            continue
        if out_leaves[i] is b_params[i]:
            final[i] = rebind(leaf, final[i])
        elif i not in followed:
            # changed in place on some turns only: its value after the loop is not followed;
            # reading it later fails, when the program runs through that read, at the line of
            # the in-place change rather than giving another number
            program.unfollowed.add(b_params[i].name)
            rebind(leaf, refused(b_params[i]))


def newly_followed(leaves: List[Any], init: List[Any], b_params: List[Any],
                    param_names: List[Optional[str]], out_leaves: List[Any], followed: List[int],
                    kept: set, carried: List[Any], blocks: List[Block]) -> List[int]:
    """Loop variables whose object from before the loop the loop must carry, with a "still
    that object?" flag, because it is that object on some turns or paths only:
    - changed in place and then rebound, on some paths at least, to another tensor
      (`h[0] = v; h = h * 2`, or `if c: h = h * 2` then `h.add_(v)`);
    - rebound on some paths only (`kept`: `if c: break` before `h = row`): after the loop it is
      the object from before on some paths only;
    - changed in place every turn, never rebound, while the body also reads that object under
      another name (`g = acc[0]` before the loop, `acc[0][1] = v; acc[0].multiply_(g)` in it,
      or `return d[0]`; the other name may be a loop variable that starts as that object too),
      so that the other name sees the change within the turn;
    - starting as an object the body changes in place under another name (`acc.append(h)`
      before the loop, `h.multiply_(v)` in it);
    - rebound while another loop variable takes its value from the start of the turn
      (`g = h; h = h * 2`): after one turn `g` is the object from before, after more it is not."""
    if len(out_leaves) != len(leaves):
        return []
    read = set()
    for blk in blocks:
        read.update(blk.captures)
    # an outer object the turn ends with under another loop variable's name (`k = d[0]`) is
    # read there too, though no op of the body takes it
    read.update(o.name for o in out_leaves if isinstance(o, Variable))
    found = []
    for i, leaf in enumerate(leaves):
        if i in followed or init[i] is not leaf or not is_dense_var(leaf):
            continue
        p, o = b_params[i], out_leaves[i]
        changed = isinstance(p, Variable) and p.name != param_names[i]
        rebound = isinstance(o, Variable) and o is not p
        read_elsewhere = changed and o is p and leaf.name in read
        # rebound, while another loop variable takes the value the turn started with
        # (`g = h; h = h * 2`): that one is the object from before after the first turn only
        handed_on = rebound and any(o2 is p for j, o2 in enumerate(out_leaves) if j != i)
        if rebound and (changed or i in kept) or read_elsewhere or handed_on or \
                any(leaf is h for h in carried):
            found.append(i)
    return found


def still_same(out_leaves: List[Any], followed: List[int], leaves: List[Any]) -> List[Any]:
    """In the body block, at its end: per followed loop variable, a bool "is its value now the
    object from before the loop?" (the body's path aliases say on which paths it is)."""
    flags = []
    for i in followed:
        o = out_leaves[i] if len(out_leaves) == len(leaves) else None
        flags.append(as_flag(alias_condition(o, leaves[i]) if is_dense_var(o) else None))
    return flags


def kept_on_some_paths(out_leaves: List[Any], b_params: List[Any]) -> set:
    """In the body block, at its end: the loop variables whose new value is the one the turn
    started with on some paths only (through the body's tensor `if`s)."""
    if len(out_leaves) != len(b_params):
        return set()
    return {i for i, (o, p) in enumerate(zip(out_leaves, b_params))
            if is_dense_var(o) and is_dense_var(p) and o is not p and id(p) in reachable(o)}


def pair_test(key: tuple, obj: Any, values: List[Any], own: List[Any]) -> Any:
    """alias_condition of a carried pair over the loop variables' `values`."""
    a = values[key[1]]
    b = obj if key[0] == "x" else values[key[2]]
    if not is_dense_var(a) or not is_dense_var(b):
        return None
    return alias_condition(a, b)


def pair_flags(out_leaves: List[Any], pairs: dict, is_var: List[bool], first: int,
                leaves: List[Any], carried: List[Any]) -> dict:
    """In the body block, at its end: {key: (object, bool flag)} for the carried pairs and for
    pairs found now (loop variables that are objects from before the loop, or one another, on
    some paths)."""
    found = {}
    if len(out_leaves) == len(is_var):
        cand = [v if is_var[i] else None for i, v in enumerate(out_leaves)]
        for key, (obj, test) in leaf_aliases(cand, first, carried).items():
            if key[0] == "x" and obj is leaves[key[1]]:
                continue
            if key[0] == "o" and test is True and (cand[key[1]].block.idx < first or
                                                   any(cand[key[1]] is c for c in carried)):
                continue
            found[key] = obj
        # and pairs the loop variables are before the loop (g = h, or `if c: g = h`)
        for i, v in enumerate(leaves):
            if not (is_var[i] and is_dense_var(v)):
                continue
            near = reachable(v)
            for other, _ in near.values():
                if is_dense_var(other) and other.block.idx < first:
                    found.setdefault(("x", i, id(other)), other)
            for j in range(i + 1, len(leaves)):
                if is_var[j] and is_dense_var(leaves[j]) and (leaves[j] is v or
                                                               id(leaves[j]) in near):
                    found.setdefault(("o", i, j), None)
    for k, o in pairs.items():
        found[k] = o
    return {k: (o, as_flag(pair_test(k, o, out_leaves, out_leaves)) if k in pairs else None)
            for k, o in found.items()}


def note_pairs(pairs: dict, values: List[Any], flags: List[Any]) -> None:
    """The carried pairs' objects are one another where their flag is true."""
    for (key, obj), flag in zip(pairs.items(), flags):
        a = values[key[1]]
        b = obj if key[0] == "x" else values[key[2]]
        if is_dense_var(a) and is_dense_var(b) and a is not b:
            add_path_alias(a, b, flag, True)


def refused(var: Variable) -> Variable:
    """A refused value standing for var after the loop (the refusal of an inner loop, if var is
    one: its message names the in-place change)."""
    entry = undefined_entry(var)
    if entry is not None and entry[1] == REFUSED:
        return refused_value(var, entry[2], entry[3])
    origin = change_origin(var)
    return refused_value(var, escaped_message(var, origin), origin)


def change_origin(var: Variable) -> Any:
    """The user's line of the op that computed var, looking into the branch or loop body that
    computed it when that op is a tensor `if` or loop (the line of the in-place change itself,
    not of the `if` around it)."""
    block, name = var.block, var.name
    origin = None
    for _ in range(16):
        op = next((op for op in block.ops if name in op.outputs), None)
        if op is None:
            return origin
        origin = op.origin or origin
        subs = [op.attrs["body_block"]] if op.type == "while" else \
            [op.attrs["true_block"], op.attrs["false_block"]] if op.type == "cond" else []
        k = op.outputs.index(name)
        inner = [(b, b.results[k]) for b in (block.program.blocks[i] for i in subs)
                 if k < len(b.results) and any(b.results[k] in o.outputs for o in b.ops)]
        if not inner:
            return origin
        block, name = inner[0]
    return origin


def check_refused(values: List[Any], first_block: int) -> None:
    """A loop variable or outer object an inner loop leaves refused (not followed) fails at the
    end of the turn that left it so, even if nothing reads it later: the inner loop's other
    values may not be followed either. (A value refused before this loop is only carried.)"""
    for v in values:
        entry = undefined_entry(v)
        if entry is not None and entry[1] == REFUSED and entry[0].block.idx >= first_block:
            check_entry(entry)
