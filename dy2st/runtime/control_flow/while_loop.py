"""while_loop: repeat a body while a condition holds; a `while` op over closed condition and
body blocks once the condition is symbolic (shapes that change between iterations relax to -1)."""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

from .. import ops, state
from .cond import GENERATED_NAMES, is_undefined
from .values import (align_captures, as_constant, as_pred, is_number, local_value, made_at,
                     meta_of, same_constant, unify_elem)
from ..dtype import bool_
from ..inplace import (add_path_alias, alias_condition, as_flag, is_dense_var, journal,
                      leaf_aliases, reachable)
from ..program import Block, Variable, block_guard, escaped_message, rebind
from ..pytree import LEAF, describe, flatten, unflatten
from ..registry import Meta, append_op
from ..side_effects import REFUSED, refused_value
from ..tensor import Tensor, TensorLike


def while_loop(cond: Callable, body: Callable, loop_vars: Sequence[Any], is_test: bool = False,
               name: Optional[str] = None, names: Optional[Sequence[str]] = None) -> List[Any]:
    """Repeat body(*loop_vars) while cond(*loop_vars); a `while` op when cond is symbolic."""
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        raise TypeError("while_loop: loop_vars must be a non-empty list or tuple")
    loop_vars = list(loop_vars)
    c = probe(cond, *loop_vars)
    if not isinstance(c, Variable):
        while c:
            loop_vars = _as_list(body(*loop_vars), len(loop_vars))
            c = probe(cond, *loop_vars)
            if isinstance(c, Variable):
                return static_while(cond, body, loop_vars, names)
        return loop_vars
    return static_while(cond, body, loop_vars, names)


def probe(fn: Callable, *args: Any) -> Any:
    """fn(*args) evaluated where its ops are thrown away: a loop condition is first evaluated
    only to learn whether it is symbolic (then the loop's own blocks evaluate it again)."""
    parent = state.current_block()
    if parent is None:
        return fn(*args)
    program = parent.program
    n_blocks = len(program.blocks)
    scratch = program.create_block(parent.idx)
    try:
        with block_guard(scratch):
            return fn(*args)
    finally:
        del program.blocks[n_blocks:]


def _as_list(out: Any, n: int) -> List[Any]:
    if isinstance(out, (list, tuple)) and len(out) == n:
        return list(out)
    if n == 1:
        return [out]
    raise ValueError(f"while_loop: body must return {n} values (as the loop_vars), got {out!r}")


def _spec(v: Any) -> Optional[Meta]:
    if isinstance(v, Variable):
        return meta_of(v)
    if isinstance(v, Tensor):
        return Meta(tuple(v._value.shape), v.dtype)
    return None


class _LearnedStructure(Exception):
    """Loop variables undefined before the loop turned out to be structures (e.g. a returned
    tuple): the loop is traced again with placeholders of that structure."""

    def __init__(self, values: dict) -> None:
        super().__init__("loop variable structure learned")
        self.values = values


def static_while(cond: Callable, body: Callable, loop_vars: List[Any],
                 names: Optional[Sequence[str]] = None) -> List[Any]:
    loop_vars = list(loop_vars)
    parent = state.current_block()
    for _ in range(len(loop_vars) + 1):
        try:
            return _static_while(cond, body, loop_vars, names)
        except _LearnedStructure as learned:
            with block_guard(parent):
                for k, value in learned.values.items():
                    loop_vars[k] = unassigned_placeholder(value, _name_of(names, k))
    raise RuntimeError("while_loop: loop variable structures did not settle")


def _static_while(cond: Callable, body: Callable, loop_vars: List[Any],
                  names: Optional[Sequence[str]] = None) -> List[Any]:
    parent = state.current_block()
    program = parent.program
    leaves, tree = flatten(loop_vars)
    with block_guard(parent):
        init = [(as_constant(v) if is_number(v) else v) for v in leaves]
    numbers = {i: v for i, v in enumerate(leaves) if is_number(v)}   # Python numbers made tensors
    is_var = [isinstance(v, TensorLike) for v in init]
    specs = [_spec(v) for v in init]
    labels = [_leaf_label(names, tree, i) for i in range(len(init))]
    table = program.maybe_undefined
    carried: List[Variable] = []     # outer objects the body changes in place (h[0] = v)
    track_ran = False                # carry "did the body run?" (for path aliases, below)
    followed: List[int] = []         # loop variables changed in place on some turns only
    # loop variables that may be objects from before the loop, or one another, on some paths
    # (`if c: g = h` in the body): a bool "is it that object?" flag carried for each such pair
    pairs: dict = {}                 # key (runtime/inplace.leaf_aliases) -> the object or None
    for _attempt in range(8 + 2 * len(init)):
        n_blocks = len(program.blocks)
        cb = program.create_block(parent.idx)
        bb = program.create_block(parent.idx)
        cb.owner_kind = bb.owner_kind = "while"
        c_params = _make_params(cb, specs, init)
        b_params = _make_params(bb, specs, init)
        param_names = [p.name if isinstance(p, Variable) else None for p in b_params]
        # a "was it assigned?" flag carried along with every value that may be unassigned
        maybe = [i for i in range(len(init)) if is_var[i] and _entry(init[i]) is not None]
        # the blocks' params are declared in this order; the flag and "ran" params are read
        # back by position, so the lists the calls return are not kept
        _flag_params(cb, c_params, maybe, table, init)
        _flag_params(bb, b_params, maybe, table, init)
        c_carry = [_param_like(cb, h) for h in carried]
        b_carry = [_param_like(bb, h) for h in carried]
        if track_ran:
            for blk in (cb, bb):
                _param_like(blk, _RAN_SPEC, "ran")
        # "is the loop variable still the object from before the loop?", one per followed one
        for blk in (cb, bb):
            same_params = [_param_like(blk, _RAN_SPEC, "same") for _ in followed]
        pair_params = [[_param_like(blk, _RAN_SPEC, "alias") for _ in pairs] for blk in (cb, bb)]
        _note_pairs(pairs, b_params, pair_params[1])
        with journal(cb.idx) as j:
            try:
                with block_guard(cb):
                    for h, p in zip(carried, c_carry):
                        rebind(h, p)
                    c = cond(*unflatten(tree, c_params))
                    if not isinstance(c, Variable):
                        c = as_constant(bool(c))
                    c = as_pred(c)
                    cb.results = [cb.local(c).name]
                with block_guard(bb):
                    for h, p in zip(carried, b_carry):
                        rebind(h, p)
                    for i, same in zip(followed, same_params):
                        add_path_alias(b_params[i], leaves[i], same, True)
                    out = _as_list(body(*unflatten(tree, b_params)), len(loop_vars))
                    out_leaves, out_tree = flatten(out)
                    # next turn's flags: is the variable still that object (on this turn's
                    # paths through the body's tensor `if`s, where it may be one)?
                    same_now = _still_same(out_leaves, followed, leaves)
                    kept = {i for i in _kept_on_some_paths(out_leaves, b_params)
                            if not labels[i].strip("'").startswith(GENERATED_NAMES)}
                    pair_now = _pair_flags(out_leaves, pairs, is_var, cb.idx, leaves, carried)
            finally:
                changed = j.finish()
        new_carried = [h for h, _ in changed.values() if not any(h is c for c in carried)]
        new_pairs = {k: o for k, (o, _) in pair_now.items() if k not in pairs}
        if new_carried or new_pairs:
            pairs.update(new_pairs)
            del program.blocks[n_blocks:]
            carried += new_carried
            continue
        new_followed = _newly_followed(leaves, init, b_params, param_names, out_leaves,
                                       followed, kept, carried, program.blocks[n_blocks:])
        if new_followed:
            # its object from before the loop is carried; in-place changes of the loop
            # variable reach it on the turns where the variable is still that object
            del program.blocks[n_blocks:]
            followed += new_followed
            carried += [leaves[i] for i in new_followed if not any(leaves[i] is h for h in carried)]
            continue
        with block_guard(bb):
            if out_tree != tree:
                grown = {k: v1 for k, (v0, v1) in enumerate(zip(loop_vars, out))
                         if is_undefined(v0) and not is_undefined(v1)}
                if grown:
                    del program.blocks[n_blocks:]
                    raise _LearnedStructure(grown)
                raise ValueError(
                    "a tensor loop changes the structure of its loop variables: "
                    f"{describe(tree)} before the loop, {describe(out_tree)} after one iteration")
            results = []
            learned = {}
            for i, (o, p) in enumerate(zip(out_leaves, b_params)):
                if not is_var[i]:
                    if is_undefined(p) and not is_undefined(o):
                        learned[i] = o      # first defined inside the loop: learn its type
                        continue
                    if not same_constant(o, p):
                        raise TypeError(f"loop variable {labels[i]} is the Python value {p!r} before "
                                        f"a tensor loop and {o!r} after an iteration; only tensors "
                                        "and numbers can change inside a tensor loop")
                    continue
                if is_number(o):
                    o = as_constant(o, p)
                if not isinstance(o, TensorLike):
                    raise TypeError(f"loop variable {labels[i]} becomes {type(o).__name__} in the "
                                    "loop body; it must stay a tensor")
                if id(o) in changed:
                    # an outer object the body changed in place (`h = g` after `g[0] = v`): the
                    # journal gave it back its value from before; the turn's value is its end
                    o = changed[id(o)][1]
                results.append(local_value(bb, o))
            flag_results = [local_value(bb, _flag_of(out_leaves[i])) for i in maybe]
            # (the flags of loop variables that were not refused before the loop are not
            # carried, nor those of outer objects)
            _check_refused([o for i, o in enumerate(out_leaves) if is_var[i] and i not in maybe]
                           + [changed[id(h)][1] for h in carried], cb.idx)
            carry_results = [local_value(bb, changed[id(h)][1]) for h in carried]
            # a loop variable the body sets to an object from before the loop (h = d['a']) is
            # that object after the loop if the body ran: note it for in-place changes
            outer_outs = [(i, o) for i, o in enumerate(out_leaves) if is_var[i] and
                          isinstance(o, Variable) and o is not b_params[i] and
                          o.block.idx < cb.idx and o.kind == "dense"]
            if track_ran:
                carry_results.append(local_value(bb, ops.full([], True, "bool")))
            carry_results += [local_value(bb, same) for same in same_now]
            carry_results += [local_value(bb, pair_now[k][1]) for k in pairs]
        if outer_outs and not track_ran and not learned:
            del program.blocks[n_blocks:]
            track_ran = True
            continue
        if learned:
            del program.blocks[n_blocks:]
            with block_guard(parent):
                for i, o in learned.items():
                    if isinstance(o, TensorLike) or is_number(o):
                        init[i] = unassigned_placeholder(o, _label_name(labels[i]))
                        is_var[i] = True
                        specs[i] = _spec(init[i])
                    else:
                        init[i] = o      # a Python value such as the None of a bare `return`
            continue
        new_specs = list(specs)
        k = 0
        for i in range(len(init)):
            if not is_var[i]:
                continue
            out = results[k]
            k += 1
            if i in numbers and out.kind == "dense" and \
                    (out.dtype != specs[i].dtype or out._shape != specs[i].shape):
                # a Python number has no dtype or shape of its own: it takes those the loop
                # computes (acc = 0.0 summing float64 values, i = 0 stepping by 0.5, v = 0
                # adding [1]-shaped tensors), as adding it to them would broadcast it; an
                # unknown dim is 1 before the first turn (the loop relaxes it to unknown)
                with block_guard(parent):
                    value = numbers.pop(i)
                    init[i] = ops.full([d if d >= 0 else 1 for d in out._shape], value,
                                       out.dtype) if out._shape else as_constant(value, out)
                new_specs[i] = _spec(init[i])
                continue
            new_specs[i] = _relax(labels[i], specs[i], out, init[i])
        if new_specs == specs:
            break
        del program.blocks[n_blocks:]
        specs = new_specs
    else:
        raise RuntimeError("while_loop: loop variable shapes did not settle")
    bb.results = [v.name for v in results + flag_results + carry_results]
    n_lv = sum(is_var) + len(maybe) + len(carried) + (1 if track_ran else 0) + len(followed) \
        + len(pairs)
    sources = align_captures([cb, bb], n_lv)
    inits = [v for v, var in zip(init, is_var) if var]
    metas = [s for s, var in zip(specs, is_var) if var]
    with block_guard(parent):
        flag_inits = [_entry(init[i])[0] for i in maybe]
        ran_init = [ops.full([], False, "bool")] if track_ran else []
        same_init = [ops.full([], True, "bool") for _ in followed]
        pair_init = [as_flag(_pair_test(k, o, leaves, leaves)) for k, o in pairs.items()]
    outs = append_op("while", [*inits, *flag_inits, *carried, *ran_init, *same_init, *pair_init,
                               *sources],
                     {"cond_block": cb.idx, "body_block": bb.idx, "n_loop_vars": n_lv},
                     metas=metas + [Meta((), bool_)] * len(maybe) + [meta_of(h) for h in carried]
                     + [_RAN_SPEC] * (len(ran_init) + len(same_init) + len(pairs)))
    it = iter(outs)
    final = [next(it) if var else v for v, var in zip(init, is_var)]
    for i in maybe:
        flag = next(it)
        if isinstance(final[i], Variable):
            table[final[i].name] = (flag,) + tuple(_entry(init[i])[1:])
    for h in carried:
        rebind(h, next(it))
    ran = next(it) if ran_init else None
    same_out = [next(it) for _ in followed]
    pair_out = [next(it) for _ in pairs]
    if ran_init:
        for i, o in outer_outs:
            if isinstance(final[i], Variable) and final[i] is not o:
                add_path_alias(final[i], o, ran, True)
                if isinstance(leaves[i], Variable) and leaves[i] is init[i] and \
                        leaves[i] is not final[i] and leaves[i].kind == "dense":
                    add_path_alias(final[i], leaves[i], ran, False)
    for i, same in zip(followed, same_out):
        if isinstance(final[i], Variable) and final[i] is not leaves[i]:
            add_path_alias(final[i], leaves[i], same, True)
    # a loop variable whose object every turn changes in place (h[0] = v, never h = ...) is
    # still that object after the loop: whatever else holds it sees the final value
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
            rebind(leaf, _refused(b_params[i]))
    _note_pairs(pairs, final, pair_out)
    return _as_list(unflatten(tree, final), len(loop_vars))


def _newly_followed(leaves: List[Any], init: List[Any], b_params: List[Any],
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
      before the loop, `h.multiply_(v)` in it)."""
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
        if rebound and (changed or i in kept) or read_elsewhere or \
                any(leaf is h for h in carried):
            found.append(i)
    return found


def _still_same(out_leaves: List[Any], followed: List[int], leaves: List[Any]) -> List[Any]:
    """In the body block, at its end: per followed loop variable, a bool "is its value now the
    object from before the loop?" (the body's path aliases say on which paths it is)."""
    flags = []
    for i in followed:
        o = out_leaves[i] if len(out_leaves) == len(leaves) else None
        flags.append(as_flag(alias_condition(o, leaves[i]) if is_dense_var(o) else None))
    return flags


def _kept_on_some_paths(out_leaves: List[Any], b_params: List[Any]) -> set:
    """In the body block, at its end: the loop variables whose new value is the one the turn
    started with on some paths only (through the body's tensor `if`s)."""
    if len(out_leaves) != len(b_params):
        return set()
    return {i for i, (o, p) in enumerate(zip(out_leaves, b_params))
            if is_dense_var(o) and is_dense_var(p) and o is not p and id(p) in reachable(o)}


def _pair_test(key: tuple, obj: Any, values: List[Any], own: List[Any]) -> Any:
    """alias_condition of a carried pair over the loop variables' `values`."""
    a = values[key[1]]
    b = obj if key[0] == "x" else values[key[2]]
    if not is_dense_var(a) or not is_dense_var(b):
        return None
    return alias_condition(a, b)


def _pair_flags(out_leaves: List[Any], pairs: dict, is_var: List[bool], first: int,
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
    return {k: (o, as_flag(_pair_test(k, o, out_leaves, out_leaves)) if k in pairs else None)
            for k, o in found.items()}


def _note_pairs(pairs: dict, values: List[Any], flags: List[Any]) -> None:
    """The carried pairs' objects are one another where their flag is true."""
    for (key, obj), flag in zip(pairs.items(), flags):
        a = values[key[1]]
        b = obj if key[0] == "x" else values[key[2]]
        if is_dense_var(a) and is_dense_var(b) and a is not b:
            add_path_alias(a, b, flag, True)


def _refused(var: Variable) -> Variable:
    """A refused value standing for var after the loop (the refusal of an inner loop, if var is
    one: its message names the in-place change)."""
    entry = _entry(var)
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


def _check_refused(values: List[Any], first_block: int) -> None:
    """A loop variable or outer object an inner loop leaves refused (not followed) fails at the
    end of the turn that left it so, even if nothing reads it later: the inner loop's other
    values may not be followed either. (A value refused before this loop is only carried.)"""
    from ..side_effects import check_entry
    for v in values:
        entry = _entry(v)
        if entry is not None and entry[1] == REFUSED and entry[0].block.idx >= first_block:
            check_entry(entry)


def _entry(v: Any):
    """v's "was it assigned?" entry (program.maybe_undefined), if v may be unassigned."""
    if isinstance(v, Variable):
        return v.block.program.maybe_undefined.get(v.name)
    return None


def _flag_of(v: Any) -> Variable:
    entry = _entry(v)
    if entry is not None:
        return entry[0]
    return ops.full([], not is_undefined(v), "bool")


def _flag_params(block: Block, params: List[Any], maybe: List[int], table: dict,
                 init: List[Any]) -> List[Variable]:
    flags = []
    for i in maybe:
        f = block.create_var((), bool_, prefix="assigned")
        block.params.append(f.name)
        table[params[i].name] = (f,) + tuple(_entry(init[i])[1:])
        flags.append(f)
    return flags


_RAN_SPEC = Meta((), bool_)


def _param_like(block: Block, v: Any, prefix: str = "loop") -> Variable:
    p = block.create_var(v.shape if isinstance(v, Meta) else v._shape, v.dtype, prefix=prefix,
                         kind=v.kind, elem=v.elem)
    block.params.append(p.name)
    return p


def _label_name(label: str) -> str:
    return label[1:-1] if label.startswith("'") else label


def _name_of(names: Optional[Sequence[str]], k: int) -> str:
    return names[k] if names and k < len(names) else f"#{k}"


def unassigned_placeholder(value: Any, name: str) -> Any:
    """placeholder_like(value) recorded as never assigned: reading it before the loop assigns it
    fails when the program runs, as in Python."""
    out = as_constant(value) if is_number(value) else placeholder_like(value)
    leaves, _ = flatten(out)
    flag = None
    for v in leaves:
        if isinstance(v, Variable):
            if flag is None:
                flag = ops.full([], False, "bool")
            v.block.program.maybe_undefined[v.name] = (flag, name, "", None)
    return out


def placeholder_like(value: Any) -> Any:
    """Zeros of the same structure, dtype and rank (unknown dims become 1): the value of a
    name on a path where it is not assigned (an untaken branch, before a loop defines it)."""
    if isinstance(value, TensorLike):
        if isinstance(value, Variable) and value.kind == "array":
            return ops.create_array(value.dtype)
        shape = value._shape if isinstance(value, Variable) else value._value.shape
        return ops.full([d if d >= 0 else 1 for d in shape], 0, value.dtype)
    if type(value) in (list, tuple):
        return type(value)(placeholder_like(v) for v in value)
    if type(value) is dict:
        return {k: placeholder_like(v) for k, v in value.items()}
    return value


def _leaf_label(names, tree, i) -> str:
    if names and tree[0] in ("list", "tuple") and len(tree[1]) == len(names) and all(
            s is LEAF for s in tree[1]):
        return f"'{names[i]}'"
    return f"#{i}"


def _make_params(block: Block, specs, init) -> List[Any]:
    params = []
    for s, v in zip(specs, init):
        if s is None:
            params.append(v)
            continue
        p = block.create_var(s.shape, s.dtype, prefix="loop", kind=s.kind, elem=s.elem)
        block.params.append(p.name)
        params.append(p)
    return params


def _relax(label: str, spec: Meta, out: Variable, init: Any) -> Meta:
    if out.kind != spec.kind:
        raise TypeError(f"loop variable {label} changes kind (tensor array vs tensor) in the loop body")
    if out.dtype != spec.dtype and spec.kind == "dense":
        raise TypeError(f"loop variable {label} is {spec.dtype}{list(spec.shape)} before the loop"
                        f"{made_at(init)} and {out.dtype}{list(out._shape)} after the loop body"
                        f"{made_at(out)}; a loop variable must keep its dtype")
    if spec.kind == "array":
        if out.elem is None or spec.elem is None:
            return Meta((), out.dtype, "array", out.elem or spec.elem)
        return Meta((), out.dtype, "array", unify_elem(label, spec.elem, out.elem))
    if len(out._shape) != len(spec.shape):
        raise ValueError(f"loop variable {label} has shape {list(spec.shape)} before the loop"
                         f"{made_at(init)} and {list(out._shape)} after the loop body{made_at(out)}; "
                         "a loop variable must keep its rank")
    return Meta(tuple(a if a == b else -1 for a, b in zip(spec.shape, out._shape)), spec.dtype)
