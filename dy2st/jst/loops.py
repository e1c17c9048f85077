"""`_jst.While`: a `while` on a Python condition runs as Python (its turns noted for rolling);
once the condition is a tensor the loop becomes one `while` op over the carried names, attributes
that methods in the body set included."""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Set, Tuple

from ..runtime import state
from ..runtime.control_flow.unrolled import unrolled_loop
from ..runtime.control_flow.values import as_pred
from ..runtime.control_flow.while_loop import probe, static_while
from ..runtime.inplace import attempt
from . import attribute_writes
from .kept_containers import containers, kept, write_back
from .list_holders import refuse_other_holders
from .loop_arrays import GrownLists, carried_arrays, grown_specs, list_sizes, spec_value
from .loop_functions import LoopFunction, closure_cells, first_turn_runs, take_functions
from .trace_paths import (
    is_symbolic,
    raise_when_reached,
    refuse_inside_try,
    trace_branch,
    with_lines,
)


def While(cond_fn: Callable, body_fn: Callable, get_args: Callable, set_args: Callable,
          names: Sequence[str], arrays: Sequence[str] = ()) -> None:
    """while cond_fn(): body_fn(); a `while` op over the carried names once cond is symbolic."""
    c = probe(cond_fn)
    loop = unrolled_loop() if not is_symbolic(c) else None
    try:
        while not is_symbolic(c):
            if not c:
                return
            if loop is not None:
                loop.mark()
            body_fn()
            c = probe(cond_fn)
    finally:
        if loop is not None:
            loop.mark()          # the end of the turns Python ran (before any while op)
    refuse_inside_try("`while` loop")
    run_static_loop(cond_fn, body_fn, get_args, set_args, names, arrays=arrays)


def run_static_loop(cond_fn: Callable, body_fn: Callable, get_args: Callable, set_args: Callable,
                    names: Sequence[str], extra_vars: Tuple = (), set_extra: Callable = None,
                    get_extra: Callable = None, arrays: Sequence[str] = ()) -> None:
    before = tuple(get_args())
    arrays = list(arrays)
    for spec in arrays:
        refuse_other_holders(spec_value(spec, names, before), spec, "a tensor loop")
    init = [carried_arrays(name, v, arrays) if arrays else v
            for name, v in zip(names, before)] + list(extra_vars)
    n = len(init) - len(extra_vars)
    parent = state.current_block()
    # attributes that methods called in the body set on their objects (acc.add(t) setting
    # self.v): found by tracing, then carried like the loop's own names
    attrs: List[Tuple[Any, str]] = []
    attr_init: List[Any] = []
    k = len(init)
    # the paths of the lists and dicts that no trace of the body rebound (kept_containers)
    keep: List[Optional[Set[Any]]] = [None]
    # functions the last traced turn left in loop variables (f = lambda t: t + r), by index
    made: dict = {}
    cells = closure_cells(set_args)
    loop_blocks = len(parent.program.blocks)      # the loop's blocks come after these

    def assign(vals):
        set_args(tuple(vals[:n]))
        if set_extra is not None:
            set_extra(vals[n:k])
        for (obj, attr), v in zip(attrs, vals[k:]):
            setattr(obj, attr, v)

    def loop_cond(*vals):
        assign(vals)
        c = cond_fn()
        return as_pred(c, defer=True) if is_symbolic(c) else c

    def loop_body(*vals):
        assign(vals)
        start = containers(tuple(vals[:n]))
        sizes = list_sizes(start)
        raised = trace_branch(body_fn)
        if raised is not None:
            # the body fails on every turn (a name without a value, the user's raise): that
            # happens when the program runs a turn; a loop that runs no turn returns
            raise_when_reached(raised)
            parent.program.deferred_errors.append(raised)
            assign(vals)
        out = list(get_args())
        take_functions(out, vals[:n], names, cells, loop_blocks, made)
        grown = grown_specs(names, out, sizes, containers(tuple(out[:n])), arrays)
        if grown:
            raise GrownLists(grown)
        turn = kept(start, tuple(out))
        keep[0] = turn if keep[0] is None else keep[0] & turn
        if get_extra is not None:
            out += list(get_extra())
        return out + [getattr(obj, attr) for obj, attr in attrs]

    while True:
        n_ops, n_blocks = len(parent.ops), len(parent.program.blocks)
        made.clear()
        labels = list(names) + ["<loop index>"] * len(extra_vars) + \
            [f"{type(obj).__name__}.{attr}" for obj, attr in attrs]
        with attribute_writes.recording() as writes, attempt(parent.program) as trace:
            failed, grown = None, None
            try:
                out = static_while(loop_cond, loop_body, init + attr_init, labels, adapt=True)
            except (TypeError, ValueError) as e:
                failed = e
            except GrownLists as e:
                # lists the source did not show growing (`acc += more`): carried as arrays
                trace.undo()
                grown = e.specs
            if grown is None and failed is None:
                assign(out)
            found = attribute_writes.not_among(writes.changed(parent, attrs), names,
                                               get_args() if failed is None else ()) \
                if grown is None else None
            if found:
                # trace again, carrying them: forget this trace's ops, the objects it rebound
                # (loop-carried ones, after the loop) and the path aliases it made
                trace.undo()
        if not found and not grown:
            if failed is not None:
                with_lines(failed, names, body_fn)
            if made:
                out = _with_functions(out, made, init + attr_init, assign, cond_fn, names)
            # lists and dicts the body changed only in place are the objects from before
            set_args(write_back(before, tuple(out[:n]), keep[0] or set()))
            return
        keep[0] = None
        del parent.ops[n_ops:]
        del parent.program.blocks[n_blocks:]
        assign(init + attr_init)
        if grown:
            for spec in grown:
                refuse_other_holders(spec_value(spec, names, before), spec, "a tensor loop")
            arrays += grown
            init[:n] = [carried_arrays(name, v, grown) for name, v in zip(names, init[:n])]
            assign(init + attr_init)
            continue
        for obj, attr, before in found:
            setattr(obj, attr, before)
            attrs.append((obj, attr))
            attr_init.append(before)


def _with_functions(out: list, made: dict, init: list, assign: Callable, cond_fn: Callable,
                    names: Sequence[str]) -> list:
    """The loop's results with each function the body made in place of the value from before
    the loop that the loop carried for it (that value again where the loop runs no turn)."""
    assign(init)
    ran = first_turn_runs(cond_fn)
    assign(out)
    out = list(out)
    for k, fn in made.items():
        out[k] = LoopFunction(fn, ran, out[k], names[k])
    return out
