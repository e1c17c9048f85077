"""while_loop: repeat a body while a condition holds; a `while` op over closed condition and
body blocks once the condition is symbolic (shapes that change between iterations relax to -1)."""
from __future__ import annotations

import functools
from typing import Any, Callable, List, Optional, Sequence, Set, Tuple

from .. import ops, state
from ..dtype import bool_, dtype_name
from ..inplace import add_path_alias, as_flag, journal
from ..ops.array import rewrite_appended
from ..origin import user_origin
from ..program import Block, Variable, block_guard, rebind
from ..pytree import describe, flatten, unflatten
from ..registry import Meta, append_op
from ..tensor import Tensor, TensorLike
from .cond import GENERATED_NAMES, is_undefined
from .loop_aliases import (
    alias_outer_outputs,
    check_refused,
    follow_in_place,
    kept_on_some_paths,
    newly_followed,
    note_pairs,
    pair_flags,
    pair_test,
    rebound_objects,
    still_same,
    undefined_entry,
)
from .loop_growth import grown, keep_deleted, kept, none_placeholder, widen, widen_number, widens
from .loop_numbers import (
    carried_numbers,
    initial_values,
    is_carried_number,
    leaf_labels,
    mark,
    mark_results,
    number_placeholder,
    read_numbers_made_tensors,
    turn_numbers,
)
from .values import (
    align_captures,
    as_constant,
    as_pred,
    is_number,
    local_value,
    made_at,
    meta_of,
    other_object_hint,
    placeholder_like,
    same_constant,
    unify_elem,
)


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
    """Loop variables whose structure a turn changed in a way the loop can carry (undefined
    before the loop and a tuple after a turn; a dict gaining or losing keys in converted code):
    the loop is traced again from new initial values, {index: a function building one}."""

    def __init__(self, values: dict) -> None:
        super().__init__("loop variable structure learned")
        self.values = values


def static_while(cond: Callable, body: Callable, loop_vars: List[Any],
                 names: Optional[Sequence[str]] = None, adapt: bool = False) -> List[Any]:
    """The `while` op over loop_vars. `adapt` (converted code's loops, as Paddle's): a loop
    variable may widen its dtype, go from None to a tensor, and a dict may gain or lose keys;
    the functional while_loop keeps its loop variables' dtypes and structures."""
    loop_vars = list(loop_vars)
    parent = state.current_block()
    changed: dict = {}
    for _ in range(2 * len(loop_vars) + 2):
        try:
            return _static_while(cond, body, loop_vars, names, adapt)
        except _LearnedStructure as learned:
            changed = learned.values
            with block_guard(parent):
                for k, build in changed.items():
                    loop_vars[k] = build()
    changing = [names[k] for k in changed if k < len(names)] if names else []
    what = f" ({', '.join(map(repr, changing))})" if changing else ""
    raise RuntimeError(
        f"while_loop: the structure of a loop variable{what} changes on every turn (a dict "
        "gaining a new key each turn, one computed from Python state such as len(d)): a static "
        "loop carries a fixed set of keys; use keys known before the loop, or full_graph=False "
        "(the loop then runs as Python)")


def _static_while(cond: Callable, body: Callable, loop_vars: List[Any],
                  names: Optional[Sequence[str]] = None, adapt: bool = False) -> List[Any]:
    parent = state.current_block()
    program = parent.program
    leaves, tree = flatten(loop_vars)
    labels = leaf_labels(names, tree)
    py_numbers = carried_numbers(leaves, labels)     # numbers the turns may keep numbers
    with block_guard(parent):
        init = initial_values(leaves, py_numbers)
    numbers = {i: v for i, v in enumerate(leaves) if is_number(v)}   # Python numbers made tensors
    is_var = [isinstance(v, TensorLike) for v in init]
    specs = [_spec(v) for v in init]
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
        bb.widening = adapt
        c_params, b_params, maybe, c_carry, b_carry, same_params = _declare_params(
            cb, bb, specs, init, is_var, table, carried, track_ran, followed, pairs)
        mark(py_numbers, c_params, b_params)
        param_names = [p.name if isinstance(p, Variable) else None for p in b_params]
        with journal(cb.idx) as j:
            try:
                _trace_cond(cb, cond, tree, c_params, carried, c_carry)
                with block_guard(bb):
                    for h, p in zip(carried, b_carry):
                        rebind(h, p)
                    for i, same in zip(followed, same_params):
                        add_path_alias(b_params[i], leaves[i], same, True)
                    out = _as_list(body(*unflatten(tree, b_params)), len(loop_vars))
                    if adapt:
                        out = keep_deleted(unflatten(tree, b_params), out)
                    out_leaves, out_tree = flatten(out)
                    _check_appended(bb, carried, b_params, param_names, out_leaves)
                    rewrite_appended(bb)
                    # next turn's flags: is the variable still that object (on this turn's
                    # paths through the body's tensor `if`s, where it may be one)?
                    same_now = still_same(out_leaves, followed, leaves)
                    kept = {i for i in kept_on_some_paths(out_leaves, b_params)
                            if not labels[i].strip("'").startswith(GENERATED_NAMES)}
                    pair_now = pair_flags(out_leaves, pairs, is_var, cb.idx, leaves, carried)
            finally:
                changed = j.finish()
        new_carried = [h for h, _ in changed.values() if not any(h is c for c in carried)]
        new_pairs = {k: o for k, (o, _) in pair_now.items() if k not in pairs}
        if new_carried or new_pairs:
            pairs.update(new_pairs)
            del program.blocks[n_blocks:]
            carried += new_carried
            continue
        new_followed = newly_followed(leaves, init, b_params, param_names, out_leaves,
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
                _structure_changed(loop_vars, out, tree, out_tree, program, n_blocks, names,
                                   adapt)
            turn_leaves, lost = turn_numbers(out_leaves, b_params, py_numbers)
            results, learned = _turn_results(turn_leaves, b_params, is_var, labels, changed, bb,
                                             adapt)
            flag_results = [local_value(bb, _flag_of(out_leaves[i])) for i in maybe]
            # (the flags of loop variables that were not refused before the loop are not
            # carried, nor those of outer objects)
            check_refused([o for i, o in enumerate(out_leaves) if is_var[i] and i not in maybe]
                           + [changed[id(h)][1] for h in carried], cb.idx)
            carry_results = [local_value(bb, changed[id(h)][1]) for h in carried]
            # a loop variable the body sets to an object from before the loop (h = d['a']) is
            # that object after the loop if the body ran: note it for in-place changes
            outer_outs = [(i, o) for i, o in enumerate(out_leaves) if is_var[i] and
                          isinstance(o, Variable) and o is not b_params[i] and
                          o.block.idx < cb.idx and o.kind == "dense"]
            rebound = rebound_objects(out_leaves, b_params, leaves, init, outer_outs, program)
            if track_ran:
                carry_results.append(local_value(bb, ops.full([], True, "bool")))
            carry_results += [local_value(bb, same) for same in same_now]
            carry_results += [local_value(bb, pair_now[k][1]) for k in pairs]
        if (outer_outs or rebound) and not track_ran and not learned:
            del program.blocks[n_blocks:]
            track_ran = True
            continue
        if learned:
            del program.blocks[n_blocks:]
            py_numbers |= _learn_types(learned, init, is_var, specs, labels, parent)
            continue
        _drop_numbers(py_numbers, lost, leaves, init, specs)
        new_specs = _next_specs(init, is_var, specs, labels, results, numbers, parent, adapt,
                                lost)
        if new_specs == specs and not lost:
            break
        del program.blocks[n_blocks:]
        specs = new_specs
    else:
        raise RuntimeError("while_loop: loop variable shapes did not settle")
    bb.results = [v.name for v in results + flag_results + carry_results]
    final, ran, same_out, pair_out = _append_while(parent, cb, bb, init, is_var, specs, maybe,
                                                   carried, track_ran, followed, pairs, leaves)
    mark_results(final, py_numbers, labels)
    if track_ran:
        alias_outer_outputs(final, outer_outs, leaves, init, ran, rebound)
    for i, same in zip(followed, same_out):
        if isinstance(final[i], Variable) and final[i] is not leaves[i]:
            add_path_alias(final[i], leaves[i], same, True)
    follow_in_place(final, leaves, init, is_var, b_params, param_names, out_leaves, followed,
                     program)
    note_pairs(pairs, final, pair_out)
    return _as_list(unflatten(tree, final), len(loop_vars))


def _declare_params(cb: Block, bb: Block, specs: List[Any], init: List[Any],
                    is_var: List[bool], table: dict, carried: List[Variable], track_ran: bool,
                    followed: List[int], pairs: dict) -> Tuple[Any, ...]:
    """The params of the condition and body blocks, in the order of the op's loop variables
    (_append_while): (c_params, b_params, maybe, c_carry, b_carry, the body's same-object
    flags), maybe listing the loop variables whose "was it assigned?" flag is carried."""
    c_params = _make_params(cb, specs, init)
    b_params = _make_params(bb, specs, init)
    # a "was it assigned?" flag carried along with every value that may be unassigned
    maybe = [i for i in range(len(init)) if is_var[i] and undefined_entry(init[i]) is not None]
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
    note_pairs(pairs, b_params, pair_params[1])
    return c_params, b_params, maybe, c_carry, b_carry, same_params


def _trace_cond(cb: Block, cond: Callable, tree: Any, c_params: List[Any],
                carried: List[Variable], c_carry: List[Variable]) -> None:
    """The condition block: cond on the params, as a bool scalar result."""
    with block_guard(cb):
        for h, p in zip(carried, c_carry):
            rebind(h, p)
        c = cond(*unflatten(tree, c_params))
        if not isinstance(c, Variable):
            c = as_constant(bool(c))
        c = as_pred(c)
        cb.results = [cb.local(c).name]


def _drop_numbers(py_numbers: Set[int], lost: Set[int], leaves: List[Any], init: List[Any],
                  specs: List[Any]) -> None:
    """The carried numbers in `lost`, which a turn made tensors, are no longer carried as
    numbers; one read from a tensor before the loop starts again as that tensor."""
    py_numbers -= lost
    for i, v in read_numbers_made_tensors(lost, leaves).items():
        init[i], specs[i] = v, _spec(v)


def _learn_types(learned: dict, init: List[Any], is_var: List[bool], specs: List[Any],
                 labels: List[str], parent: Block) -> Set[int]:
    """Loop variables first defined in the body (or None before it) start as placeholders of
    the type they got. Returns those that are Python numbers (carried as numbers)."""
    with block_guard(parent):
        for i, o in learned.items():
            if init[i] is None:
                init[i] = none_placeholder(o, _label_name(labels[i]))
                is_var[i] = True
                specs[i] = _spec(init[i])
            elif isinstance(o, TensorLike) or is_number(o):
                init[i] = unassigned_placeholder(o, _label_name(labels[i]))
                is_var[i] = True
                specs[i] = _spec(init[i])
            else:
                init[i] = o      # a Python value such as the None of a bare `return`
    return carried_numbers(init, labels) & set(learned)


def _append_while(parent: Block, cb: Block, bb: Block, init: List[Any], is_var: List[bool],
                  specs: List[Any], maybe: List[int], carried: List[Variable], track_ran: bool,
                  followed: List[int], pairs: dict, leaves: List[Any]) -> Tuple[Any, ...]:
    """Append the `while` op over the traced blocks: its loop variables are the tensor loop
    variables, their "assigned?" flags, the outer objects changed in place, then the "ran",
    "same object" and alias flags. Returns (the loop variables after the loop, with the
    Python ones as they are; ran; the same-object flags; the alias flags)."""
    program = parent.program
    table = program.maybe_undefined
    n_lv = sum(is_var) + len(maybe) + len(carried) + (1 if track_ran else 0) + len(followed) \
        + len(pairs)
    sources = align_captures([cb, bb], n_lv)
    inits = [v for v, var in zip(init, is_var) if var]
    metas = [s for s, var in zip(specs, is_var) if var]
    with block_guard(parent):
        flag_inits = [undefined_entry(init[i])[0] for i in maybe]
        ran_init = [ops.full([], False, "bool")] if track_ran else []
        same_init = [ops.full([], True, "bool") for _ in followed]
        pair_init = [as_flag(pair_test(k, o, leaves, leaves)) for k, o in pairs.items()]
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
            table[final[i].name] = (flag,) + tuple(undefined_entry(init[i])[1:])
    for h in carried:
        rebind(h, next(it))
    ran = next(it) if ran_init else None
    same_out = [next(it) for _ in followed]
    pair_out = [next(it) for _ in pairs]
    return final, ran, same_out, pair_out


def _structure_changed(loop_vars: List[Any], out: List[Any], tree: Any, out_tree: Any,
                       program: Any, n_blocks: int, names: Optional[Sequence[str]],
                       adapt: bool) -> None:
    """The body gave its loop variables another structure: learn the structure of those first
    defined in the body (the loop is traced again), else refuse the loop."""
    learned = {}
    for k, (v0, v1) in enumerate(zip(loop_vars, out)):
        if is_undefined(v0) and not is_undefined(v1):
            learned[k] = functools.partial(unassigned_placeholder, v1, _name_of(names, k))
        elif adapt and flatten(v0)[1] != flatten(v1)[1]:
            build = _adapted(v0, v1, _name_of(names, k))
            if build is not None:
                learned[k] = build
    if learned:
        del program.blocks[n_blocks:]
        raise _LearnedStructure(learned)
    raise ValueError(
        "a tensor loop changes the structure of its loop variables: "
        f"{describe(tree)} before the loop, {describe(out_tree)} after one iteration")


def _turn_results(out_leaves: List[Any], b_params: List[Any], is_var: List[bool],
                  labels: List[str], changed: dict, bb: Block,
                  adapt: bool = False) -> Tuple[List[Variable], dict]:
    """The body block's results for the tensor loop variables, and the Python ones first
    defined in the body (index -> value: their type is learned and the loop traced again)."""
    results = []
    learned = {}
    for i, (o, p) in enumerate(zip(out_leaves, b_params)):
        if not is_var[i]:
            if is_undefined(p) and not is_undefined(o):
                learned[i] = o      # first defined inside the loop: learn its type
                continue
            if adapt and p is None and (isinstance(o, TensorLike) and o.kind == "dense"
                                        or is_number(o)):
                learned[i] = o      # None before the loop, a tensor after a turn
                continue
            if not same_constant(o, p):
                raise TypeError(f"loop variable {labels[i]} is the Python value {p!r} before "
                                f"a tensor loop and {o!r} after an iteration; only tensors "
                                "and numbers can change inside a tensor loop" +
                                other_object_hint(p, o, "a turn of the tensor loop"))
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
    return results, learned


def _next_specs(init: List[Any], is_var: List[bool], specs: List[Any], labels: List[str],
                results: List[Variable], numbers: dict, parent: Block,
                adapt: bool = False, lost: Any = ()) -> List[Any]:
    """The loop variables' specs after one turn: relaxed where the turn changed a shape; a
    Python number takes the dtype and shape the loop computes (init and numbers change), and
    is flagged when a turn made it a tensor (`lost`: eager code keeps the number only when
    the loop runs no turn)."""
    new_specs = list(specs)
    k = 0
    for i in range(len(init)):
        if not is_var[i]:
            continue
        out = results[k]
        k += 1
        if i in numbers and out.kind == "dense" and (
                i in lost or out.dtype != specs[i].dtype or out._shape != specs[i].shape):
            # a Python number has no dtype or shape of its own: it takes those the loop
            # computes (acc = 0.0 summing float64 values, i = 0 stepping by 0.5, v = 0
            # adding [1]-shaped tensors), as adding it to them would broadcast it; an
            # unknown dim is 1 before the first turn (the loop relaxes it to unknown)
            with block_guard(parent):
                init[i] = widen_number(numbers.pop(i), out, _label_name(labels[i]),
                                       user_origin())
            new_specs[i] = _spec(init[i])
            continue
        if adapt and widens(specs[i], out):
            # the turn promotes its dtype (int64 + float32): the loop carries the wider one,
            # as Paddle's does; the value it starts from is exact in it
            with block_guard(parent):
                init[i] = widen(init[i], out.dtype, _label_name(labels[i]), user_origin())
            new_specs[i] = _relax(labels[i], _spec(init[i]), out, init[i])
            continue
        new_specs[i] = _relax(labels[i], specs[i], out, init[i])
    return new_specs


def _flag_of(v: Any) -> Variable:
    entry = undefined_entry(v)
    if entry is not None:
        return entry[0]
    return ops.full([], not is_undefined(v), "bool")


def _flag_params(block: Block, params: List[Any], maybe: List[int], table: dict,
                 init: List[Any]) -> List[Variable]:
    flags = []
    for i in maybe:
        f = block.create_var((), bool_, prefix="assigned")
        block.params.append(f.name)
        table[params[i].name] = (f,) + tuple(undefined_entry(init[i])[1:])
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
    out = number_placeholder(value) if is_carried_number(value) else \
        as_constant(value) if is_number(value) else placeholder_like(value)
    leaves, _ = flatten(out)
    flag = None
    for v in leaves:
        if isinstance(v, Variable):
            if flag is None:
                flag = ops.full([], False, "bool")
            v.block.program.maybe_undefined[v.name] = (flag, name, "", None)
    return out


def _adapted(before: Any, after: Any, name: str) -> Optional[Callable[[], Any]]:
    """How to build the initial value of a loop variable whose structure a turn of converted
    code changed in a way the loop carries: None -> a structure of tensors, dict keys added or
    deleted; None for any other change."""
    if before is None:
        return functools.partial(none_placeholder, after, name)
    if kept(before, after) is not None:
        return functools.partial(kept, before, after)
    if grown(before, after) is not None:
        return functools.partial(grown, before, after)
    return None


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
        raise TypeError(f"loop variable {label} is {dtype_name(spec.dtype)}{list(spec.shape)} before the loop"
                        f"{made_at(init)} and {dtype_name(out.dtype)}{list(out._shape)} after the loop body"
                        f"{made_at(out)}; a loop variable must keep its dtype (in converted "
                        "code it may widen, e.g. int64 -> float32, but not narrow: cast it "
                        "before the loop)")
    if spec.kind == "array":
        if out.elem is None or spec.elem is None:
            return Meta((), out.dtype, "array", out.elem or spec.elem)
        return Meta((), out.dtype, "array", unify_elem(label, spec.elem, out.elem))
    if len(out._shape) != len(spec.shape):
        raise ValueError(f"loop variable {label} has shape {list(spec.shape)} before the loop"
                         f"{made_at(init)} and {list(out._shape)} after the loop body{made_at(out)}; "
                         "a loop variable must keep its rank")
    return Meta(tuple(a if a == b else -1 for a, b in zip(spec.shape, out._shape)), spec.dtype)


def _check_appended(block: Block, carried: List[Any], b_params: List[Any],
                    param_names: List[Optional[str]], out_leaves: List[Any]) -> None:
    """An object the body appends on every turn (from before the loop, or a loop variable it
    never rebinds) and changes in place: eager's list holds that one object on every turn, so
    every entry shows its last value; a tensor array cannot hold one object several times."""
    same = [p for p, n, o in zip(b_params, param_names, out_leaves)
            if o is p and isinstance(p, Variable) and p.name != n]
    for _array, _i, x, name in block.appended:
        if any(x is h for h in carried) or any(x is p for p in same):
            raise ValueError(
                f"a tensor loop appends the same tensor object to a list on every turn"
                f"{_append_line(block, name)} and changes it in place: in eager code every entry "
                "is that one object (all show its last value), which a tensor array cannot "
                "hold; append a copy (`.clone()`) or make a new tensor on each turn")


def _append_line(block: Block, name: str) -> str:
    """` (line N: the user's append)` for the write of the tensor named `name` into an array."""
    origin = next((op.origin for op in block.ops
                   if op.type == "array_write" and name in op.inputs and op.origin), None)
    return f" (line {origin.line}: `{origin.source.strip()}`)" if origin else ""
