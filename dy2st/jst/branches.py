"""`_jst.IfElse` and `_jst.IfElseExpr`: an `if` on a tensor traces both branches into sub-blocks
of one `cond` op over the live names; on a Python value it runs as plain Python."""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple

from ..runtime import ops, state
from ..runtime.control_flow.cond import (
    GENERATED_NAMES,
    UndefinedVar,
    is_undefined,
    merge_branches,
    note_converter_lambdas,
)
from ..runtime.control_flow.loop_growth import none_or_tensor
from ..runtime.control_flow.values import as_pred, placeholder_like
from ..runtime.inplace import changed_values, journal, replace_objects, union
from ..runtime.program import Block, Variable, block_guard, rebind
from ..runtime.pytree import describe, flatten
from ..runtime.side_effects import REFUSED, check_entry
from ..runtime.tensor import TensorLike
from . import attribute_writes
from .branch_aliases import AliasFlags, branch_alias_tests
from .branch_attributes import take_attributes, with_attribute_outputs
from .branch_entries import flagged_leaves, missing_keys, note_flags
from .kept_containers import changed_containers, containers, kept, write_back
from .list_holders import refuse_other_holders
from .trace_paths import (
    assignment_origins,
    copy_containers,
    is_symbolic,
    raise_when_reached,
    refuse_inside_try,
    trace_branch,
    with_lines,
)


def IfElse(pred: Any, true_fn: Callable, false_fn: Callable, get_args: Callable,
           set_args: Callable, names: Sequence[str], outputs: Sequence[int]) -> None:
    """if pred: true_fn() else: false_fn(); a `cond` op over the live names when pred is symbolic."""
    if not is_symbolic(pred):
        if pred:
            true_fn()
        else:
            false_fn()
        return
    refuse_inside_try("`if`")
    pred = as_pred(pred, defer=True)
    parent = state.current_block()
    program = parent.program
    init = get_args()
    tb = program.create_block(parent.idx)
    t_raised, t_out, t_changed, t_aliases, t_attrs, t_kept = _trace_in(
        tb, true_fn, set_args, get_args, init, outputs, names)
    fb = program.create_block(parent.idx)
    f_raised, f_out, f_changed, f_aliases, f_attrs, f_kept = _trace_in(
        fb, false_fn, set_args, get_args, init, outputs, names)
    if t_attrs or f_attrs:
        names, outputs, init, set_args, (t_out, t_aliases), (f_out, f_aliases) = \
            with_attribute_outputs(names, outputs, init, set_args, (t_out, t_aliases, t_attrs),
                                   (f_out, f_aliases, f_attrs))
    if t_raised is not None and f_raised is not None:
        # every path fails here: when the program runs, each with its own error, as in eager
        # mode (a name unassigned on one path, a missing global on the other); the trace stops
        _raising_branch(tb, t_raised, ())
        _raising_branch(fb, f_raised, ())
        merge_branches(pred, (), (), tb, fb)
        raise t_raised
    if t_raised is not None:
        t_out = _raising_branch(tb, t_raised, f_out)
    if f_raised is not None:
        f_out = _raising_branch(fb, f_raised, t_out)
    # objects from before the `if` changed in place in a branch (h[1] = s with h also held by a
    # list): each branch's value of them becomes an output, which they then stand for
    changed = union(t_changed, f_changed)
    t_orig, f_orig = t_out, f_out
    t_now, f_now = changed_values(t_changed), changed_values(f_changed)
    t_out, f_out = replace_objects(t_out, t_now), replace_objects(f_out, f_now)
    t_x = tuple(t_now.get(id(o), o) for o in changed)
    f_x = tuple(f_now.get(id(o), o) for o in changed)
    # lists and dicts from before the `if` that a branch changed in place are outputs even when
    # no later code reads their names: another name or a container may hold them (`e = d`)
    keep = t_kept & f_kept if t_raised is None and f_raised is None else \
        (f_kept if t_raised is not None else t_kept)
    live = list(outputs) + changed_containers(init, t_out, f_out, keep, outputs)
    _refuse_held_growth(init, t_out, f_out, names, live)
    t_live = [t_out[i] for i in live]
    f_live = [f_out[i] for i in live]
    for k, i in enumerate(live):     # None on one path: a placeholder flagged as None
        if _user_name(names[i]) or names[i].startswith("return_value_"):
            t_live[k], f_live[k] = none_or_tensor(t_live[k], f_live[k], names[i], tb, fb)
    # one "was it assigned?" flag per name assigned on one path only or whose value may be
    # unassigned already (a name read later must fail, as in Python, on a path without a value)
    tracked = [k for k, i in enumerate(live) if _track_definedness(names[i], t_live[k], f_live[k])]
    t_flags = [_defined_flag(tb, t_live[k]) for k in tracked]
    f_flags = [_defined_flag(fb, f_live[k]) for k in tracked]
    _check_refused_at_the_end(changed, (tb, t_now, t_x), (fb, f_now, f_x))
    # and one per object changed in place whose value may fail when read (unassigned, refused)
    x_tracked = [k for k in range(len(changed))
                 if _maybe_undefined(t_x[k]) is not None or _maybe_undefined(f_x[k]) is not None]
    t_flags += [_defined_flag(tb, t_x[k]) for k in x_tracked]
    f_flags += [_defined_flag(fb, f_x[k]) for k in x_tracked]
    t_live, f_live = _fill_undefined(t_live, f_live, tb, fb)
    for k, i in enumerate(live):
        pair = t_live[k], f_live[k]
        t_live[k], f_live[k] = _grown_lists(t_live[k], f_live[k], tb, fb)
        if (t_live[k] is not pair[0] or f_live[k] is not pair[1]) and i < len(init):
            refuse_other_holders(init[i], names[i], "one branch of a tensor `if`")
        t_live[k], f_live[k] = missing_keys(t_live[k], f_live[k], tb, fb)
    for k, i in enumerate(live):
        check_same_structure(names[i], t_live[k], f_live[k], true_fn)
    # and one per tensor inside a container whose value may be missing (d[k] on one path)
    leaves = flagged_leaves(t_live, f_live)
    t_flags += [_defined_flag(tb, flatten(t_live[k])[0][j]) for k, j, _ in leaves]
    f_flags += [_defined_flag(fb, flatten(f_live[k])[0][j]) for k, j, _ in leaves]
    aliases = AliasFlags(t_aliases, f_aliases, tb, fb)
    nx = len(changed)
    labels = ["a tensor changed in place"] * nx + [names[i] for i in live] + \
        [f"{names[live[k]]} (assigned?)" for k in tracked] + \
        ["a tensor changed in place (assigned?)"] * len(x_tracked) + \
        ["a container entry (assigned?)"] * len(leaves) + \
        ["an alias flag"] * len(aliases.t_flags)
    try:
        merged = merge_branches(
            pred, t_x + tuple(t_live) + tuple(t_flags) + tuple(aliases.t_flags),
            f_x + tuple(f_live) + tuple(f_flags) + tuple(aliases.f_flags), tb, fb, labels)
    except (TypeError, ValueError) as e:
        with_lines(e, [names[i] for i in live], true_fn)
    for k, flag in zip(x_tracked, merged[nx + len(live) + len(tracked):]):
        entry = _maybe_undefined(t_x[k]) or _maybe_undefined(f_x[k])
        program.maybe_undefined[merged[k].name] = (flag,) + tuple(entry[1:])
    n_flags = len(tracked) + len(x_tracked) + len(leaves)
    note_flags(merged[nx:nx + len(live)], leaves,
               merged[nx + len(live) + n_flags - len(leaves):nx + len(live) + n_flags])
    stand_for = {}
    for obj, value in zip(changed, merged[:nx]):
        stand_for[id(value)] = rebind(obj, value)
    merged = replace_objects(list(merged[nx:]), stand_for)
    # (after the values: their "assigned?" flags, those of the changed objects, the alias flags)
    aliases.note(pred, merged[:len(live)], [(t_orig[i], f_orig[i]) for i in live], live,
                 merged[len(live) + n_flags:])
    for j, k in enumerate(tracked):
        value, flag = merged[k], merged[len(live) + j]
        if isinstance(value, Variable):
            program.maybe_undefined[value.name] = _definedness_entry(
                flag, names[live[k]], (t_live[k], f_live[k]), true_fn)
    merged = merged[:len(live)]
    result = list(init)
    for k, i in enumerate(live):
        result[i] = merged[k]
    for i in range(len(result)):
        if i not in live:
            result[i] = UndefinedVar(names[i], " after the tensor `if` that assigns it")
    # lists and dicts that no path rebinds are the objects from before the `if`
    set_args(write_back(tuple(init), tuple(result), keep))


def _check_refused_at_the_end(changed: Sequence[Any], *branches: Tuple) -> None:
    """An object a loop in a branch leaves refused (changed in place on some turns only, not
    followed) fails at the end of the branch, on its path, even if nothing reads it later: the
    loop's other values may not be followed either. (block, changed values, values) each."""
    for block, now, values in branches:
        for k, obj in enumerate(changed):
            entry = _maybe_undefined(values[k])
            if id(obj) in now and entry is not None and entry[1] == REFUSED:
                with block_guard(block):
                    check_entry(entry)


def _trace_in(block: Block, branch: Callable, set_args: Callable, get_args: Callable,
              init: Tuple, live: Sequence[int], names: Sequence[str]
              ) -> Tuple[Optional[BaseException], Tuple, dict, dict, dict, set]:
    """Trace one branch in `block`: (the user's raise, if any; its outputs; the objects from
    before the `if` it changed in place, which get their values from before back; the aliases
    its live outputs and set attributes are, branch_aliases.branch_alias_tests; the attributes
    that methods called in it set, {(id(object), name): (object, name, value before, value)},
    which also get their values from before back, so the other branch starts from those; the
    paths of the lists and dicts among its values that it did not rebind, kept_containers)."""
    aliases: dict = {}
    with attribute_writes.recording() as writes, journal(block.idx) as j, block_guard(block):
        try:
            start = copy_containers(init)
            set_args(start)
            start_containers = containers(start)
            raised = trace_branch(branch)
            out = get_args()
            set_attrs = [(o, a, before) for o, a, before in
                         attribute_writes.not_among(writes.changed(block, []), names, out)
                         if not _made_in(before, block) or id(before) in j.before]
            if raised is None:
                values = tuple(out) + tuple(getattr(o, a) for o, a, _ in set_attrs)
                aliases = branch_alias_tests(
                    values, list(live) + [len(out) + k for k in range(len(set_attrs))],
                    block.idx, [obj for obj, _ in j.before.values()])
        finally:
            changed = j.finish()
    return raised, out, changed, aliases, take_attributes(set_attrs), kept(start_containers, tuple(out))


def _made_in(value: Any, block: Block) -> bool:
    """Whether value is a tensor of `block` or of a block inside it: an attribute that held one
    before a method set it belongs to an object the branch made (`b = Box(h * 2); b.put(v)`),
    which is no state from before the `if` (unless it is an object from before that the
    branch changed in place, which the journal knows)."""
    return isinstance(value, Variable) and (value.block is block or
                                            value.block._is_ancestor(block))


def _track_definedness(name: str, t_val: Any, f_val: Any) -> bool:
    """Whether a branch output needs a "was it assigned?" flag: a tensor unassigned on one
    path, or one that may already be unassigned (the converter's own return value may be unset
    on a path that returned nothing: that is normal, not an error)."""
    t_un, f_un = is_undefined(t_val), is_undefined(f_val)
    if t_un and f_un:
        return False
    if t_un != f_un:
        return _user_name(name) and isinstance(f_val if t_un else t_val, TensorLike)
    return _maybe_undefined(t_val) is not None or _maybe_undefined(f_val) is not None


def _maybe_undefined(value: Any):
    if isinstance(value, Variable):
        return value.block.program.maybe_undefined.get(value.name)
    return None


def _defined_flag(block: Block, value: Any) -> Any:
    """A bool tensor in `block`: does `value` hold a value on the path taken?"""
    entry = _maybe_undefined(value)
    if entry is not None:
        return entry[0]
    with block_guard(block):
        return ops.full([], not is_undefined(value), "bool")


def _definedness_entry(flag: Variable, name: str, values: Sequence[Any], user_fn: Callable):
    """The maybe_undefined entry of a merged value: an inner one's (it names the user's variable
    and lines) or a new one naming where `name` is assigned."""
    for v in values:
        entry = _maybe_undefined(v)
        if entry is not None:
            return (flag,) + tuple(entry[1:])
    lines = assignment_origins(user_fn.__code__.co_filename, name)
    where = " (it is assigned at " + ", ".join(
        f"line {o.line}: {o.source}" for o in lines) + ")" if lines else ""
    return (flag, name, where, lines[0] if lines else None)


def _raising_branch(block: Block, exc: BaseException, other_out: Tuple) -> Tuple:
    """The branch raises when run; its outputs are placeholders shaped like the other's."""
    with block_guard(block):
        raise_when_reached(exc)
        return tuple(placeholder_like(v) for v in other_out)


def check_same_structure(name: str, t_val: Any, f_val: Any, branch_fn: Callable) -> None:
    """Both branches must give `name` the same nesting; otherwise say where it is set."""
    t_tree, f_tree = flatten(t_val)[1], flatten(f_val)[1]
    if t_tree == f_tree:
        return
    what = "the return value" if name.startswith("return_value") else f"'{name}'"
    lines = assignment_origins(branch_fn.__code__.co_filename, name)
    where = ""
    if lines:
        verb = "returned" if name.startswith("return_value") else "set"
        where = f"; it is {verb} at " + ", ".join(
            f"line {o.line} (`{o.source}`)" for o in lines)
    raise ValueError(f"{what} has a different structure on the two paths of a tensor `if`: "
                     f"{describe(t_tree)} on one and {describe(f_tree)} on the other{where}; a "
                     "static graph needs the same nesting of tensors on every path")


def _user_name(name: str) -> bool:
    """Not one of the converter's own names (a return value set on one path is normal)."""
    return not name.startswith(GENERATED_NAMES) and "." not in name


def _fill_undefined(t_vals, f_vals, tb: Block, fb: Block):
    """A value defined in one branch only gets a placeholder of the same kind in the other."""
    t_out, f_out = list(t_vals), list(f_vals)
    for i, (a, b) in enumerate(zip(t_vals, f_vals)):
        if is_undefined(a) and not is_undefined(b):
            with block_guard(tb):
                t_out[i] = placeholder_like(b)
        elif is_undefined(b) and not is_undefined(a):
            with block_guard(fb):
                f_out[i] = placeholder_like(a)
    return t_out, f_out


def _refuse_held_growth(init: Sequence[Any], t_out: Sequence[Any], f_out: Sequence[Any],
                        names: Sequence[str], live: Sequence[int]) -> None:
    """A list from before the `if` that one branch grows in place, which no later code reads
    by its name (so it is no output), may still be read through another holder (`alias = acc`):
    refused (a graph break) where one exists, as the `if` cannot give that list two lengths."""
    for i, value in enumerate(init):
        if i in live or type(value) is not list or i >= len(t_out) or i >= len(f_out):
            continue
        a, b = t_out[i], f_out[i]
        if type(a) is list and type(b) is list and len(a) != len(b):
            refuse_other_holders(value, names[i], "one branch of a tensor `if`")


def _grown_lists(a: Any, b: Any, tb: Block, fb: Block) -> Tuple[Any, Any]:
    """Lists of tensors of different lengths on the two paths (a list appended to in one
    branch) become tensor arrays, as lists grown in a tensor loop do."""
    def tensors(v: Any) -> bool:
        return type(v) is list and all(isinstance(x, TensorLike) for x in v)

    def array(v: Any) -> bool:
        return isinstance(v, Variable) and v.kind == "array"
    if not ((tensors(a) and tensors(b) and len(a) != len(b)) or (tensors(a) and array(b)) or
            (array(a) and tensors(b))):
        return a, b
    items = [x for x in (a if type(a) is list else []) + (b if type(b) is list else [])]
    dtype = items[0].dtype if items else (a if array(a) else b).dtype
    if type(a) is list:
        with block_guard(tb):
            a = ops.create_array(dtype, a)
    if type(b) is list:
        with block_guard(fb):
            b = ops.create_array(dtype, b)
    return a, b


def IfElseExpr(pred: Any, true_fn: Callable, false_fn: Callable) -> Any:
    """`a if pred else b`: an `if` whose one output is the expression's value, so that the
    value is `a` or `b` itself on its path (`h = g if c else h; h.add_(v)` changes g when c)."""
    note_converter_lambdas(true_fn, false_fn)
    if not is_symbolic(pred):
        return true_fn() if pred else false_fn()
    refuse_inside_try("conditional expression")
    value = [None]

    def set_value(args: Tuple) -> None:
        value[0] = args[0]

    def branch(fn: Callable) -> Callable:
        return lambda: set_value((fn(),))
    IfElse(pred, branch(true_fn), branch(false_fn), lambda: (value[0],), set_value,
           ("a if c else b",), (0,))
    return value[0]
