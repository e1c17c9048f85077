"""New leaves (`y.stop_gradient = False` on a value that needs no gradient, new_leaves.py) in a
program that runs its own backward: a traced `backward()` or `paddle.grad` starts from them as
from the inputs, and `y.grad` read later in the trace is the gradient that backward gave, as
eager autograd keeps one in the leaf's `.grad`."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ..runtime.leaf_notes import new_leaves
from ..runtime.program import Program, Variable
from ..runtime.registry import apply
from .engine import GradientError
from .new_leaves import made_leaves
from .traced_inputs import owns_backward
from .traced_reach import none_where

_NONE_HERE = ("`.grad` of a new leaf is None here: the backward() before did not reach it along "
              "the path this call took (a tensor loop that ran no turn, a branch not taken); test "
              "`.grad is None` before using it")


def _grads(program: Program) -> Dict[str, Tuple[Variable, Optional[Variable]]]:
    """leaf name -> (its accumulated gradient, whether it has one on this run's path: None
    when on every path)."""
    return program.__dict__.setdefault("leaf_grads", {})


def traced_leaves(program: Program, start: Sequence[Optional[str]], chain: Sequence = ()
                  ) -> List[str]:
    """The new leaves of the program traced so far, given what needs a gradient (`start`); a
    backward inside a tensor `if` (`chain`) through one is refused."""
    if not new_leaves(program):
        return []
    found = made_leaves(program, list(start))
    program.__dict__.setdefault("traced_leaves", {}).update(dict.fromkeys(found))
    if found and chain:
        raise GradientError(
            "backward() or paddle.grad inside a tensor `if` of a to_static function, in a program "
            "that makes a new leaf (`stop_gradient = False` on a value that needs no gradient), "
            "is not supported; call it outside the `if`, or use full_graph=False")
    return found


def accumulate_leaf(program: Program, name: str, g: Variable,
                    reached: Optional[Variable]) -> None:
    """`.grad` of the new leaf `name` plus `g` (given only where `reached`, when not None)."""
    old = _grads(program).get(name)
    g = apply("detach", [g])
    if old is None:
        _grads(program)[name] = (g, reached)
        return
    value, present = old
    if present is not None and reached is not None:
        present = apply("logical_or", [present, reached])
    elif reached is None:
        present = None
    _grads(program)[name] = (apply("add", [value, g]), present)


def leaf_grad(program: Program, var: Variable) -> Optional[Variable]:
    """`.grad` of `var` read in the trace when it is a new leaf a traced backward reached (None
    when it is not: eager's `.grad` before any backward)."""
    found = _grads(program).get(var.name)
    if found is None or program.global_block().vars.get(var.name) is not var:
        return None
    value, present = found
    return value if present is None else none_where(program, value, present, _NONE_HERE)


def returned_leaves(program: Program, n_out: int) -> Dict[int, Tuple[int, int]]:
    """Per output (fetch index below n_out) of a program that ran its own backward that is a
    new leaf (eager returns the leaf itself: `stop_gradient=False`, its `.grad`): the fetch
    indices of its gradient and of whether it has one on this run's path, -1 where there is
    none. The fetches it needs are appended to `program.fetch_names`."""
    if not owns_backward(program):
        return {}
    made, grads = program.__dict__.get("traced_leaves", {}), _grads(program)
    found = {}
    fetch = program.fetch_names
    for k, name in enumerate(fetch[:n_out]):
        if name not in made:
            continue
        value, present = grads.get(name, (None, None))
        indices = []
        for v in (value, present):
            indices.append(-1 if v is None else len(fetch))
            if v is not None:
                fetch.append(v.name)
        found[k] = (indices[0], indices[1])
    return found
