"""Aliases a tensor `if` makes survive it: an output that is, on some paths, an object from
before the `if` or another output becomes a path alias under a bool flag the `cond` returns."""
from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from ..runtime import ops
from ..runtime.inplace import add_path_alias, as_flag, is_dense_var, leaf_aliases
from ..runtime.program import Block, Variable, block_guard
from ..runtime.pytree import flatten

# ('x', (arg, leaf), id(object)) or ('o', (arg, leaf), (arg2, leaf2)) -> (object or None, test)
# where test is True (always, on this path) or a bool Variable of the branch block
Tests = Dict[Tuple, Tuple[Any, Any]]


def branch_alias_tests(values: Sequence[Any], live: Sequence[int], first_block: int,
                       changed: Sequence[Any]) -> Tests:
    """At the end of a branch (still inside its block, before its journal forgets the aliases
    made in it): which live outputs are objects from before the `if`, or one another, and when.
    `changed`: the objects from before that the branch changed in place (they point into it)."""
    positions: List[Tuple[int, int]] = []
    leaves: List[Any] = []
    for i in live:
        for j, leaf in enumerate(flatten(values[i])[0]):
            positions.append((i, j))
            leaves.append(leaf)
    tests: Tests = {}
    for key, (obj, test) in leaf_aliases(leaves, first_block, changed).items():
        if test is None:
            continue
        flag = True if test is True else as_flag(test)
        second = positions[key[2]] if key[0] == "o" else key[2]
        tests[(key[0], positions[key[1]], second)] = (obj, flag)
    return tests


class AliasFlags:
    """The flags a `cond` must return so that its branches' aliases outlive it; a test that is
    "always" on one path and "never" on the other is the `if`'s own predicate, without an output."""

    def __init__(self, t_tests: Tests, f_tests: Tests, tb: Block, fb: Block) -> None:
        self.notes: List[Tuple[Tuple, Any, Any]] = []    # (key, object, (flag index | None, on_true))
        self.t_flags: List[Variable] = []
        self.f_flags: List[Variable] = []
        for key in list(t_tests) + [k for k in f_tests if k not in t_tests]:
            obj = (t_tests.get(key) or f_tests.get(key))[0]
            t, f = t_tests.get(key, (obj, None))[1], f_tests.get(key, (obj, None))[1]
            if t is True and f is True:
                continue           # one object on both paths: the merge already made it so
            if t is True and f is None:
                self.notes.append((key, obj, (None, True)))
            elif f is True and t is None:
                self.notes.append((key, obj, (None, False)))
            else:
                self.notes.append((key, obj, (len(self.t_flags), True)))
                self.t_flags.append(_as_variable(t, tb))
                self.f_flags.append(_as_variable(f, fb))

    def note(self, pred: Variable, merged: Sequence[Any], originals: Sequence[Tuple[Any, Any]],
             live: Sequence[int], flags: Sequence[Any]) -> None:
        """After the merge: record the path aliases (merged[k] is the value of argument live[k];
        originals[k] its (true, false) branch values, to check the structures line up)."""
        leaves = {}
        for k, i in enumerate(live):
            m = flatten(merged[k])[0]
            t, f = (flatten(v)[0] for v in originals[k])
            if len(m) == len(t) == len(f):
                leaves.update({(i, j): leaf for j, leaf in enumerate(m)})
        for key, obj, (index, on_true) in self.notes:
            a = leaves.get(key[1])
            b = obj if key[0] == "x" else leaves.get(key[2])
            if not (is_dense_var(a) and is_dense_var(b)) or a is b:
                continue
            add_path_alias(a, b, pred if index is None else flags[index], on_true)


def _as_variable(flag: Any, block: Block) -> Variable:
    if isinstance(flag, Variable):
        return flag
    with block_guard(block):
        return ops.full([], flag is True, "bool")
