"""Attributes that methods called in a tensor `if`'s branches set on their objects (`acc.add(t)`
setting `self.v`): the `if` cannot see them in its own code, so they become its outputs."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence, Tuple

from ..runtime.inplace import is_dense_var

# (id(object), name) -> (object, name, value before the `if`, value at the end of the branch)
Attributes = Dict[Tuple[int, str], Tuple[Any, str, Any, Any]]
# (outputs, alias tests (branch_aliases.Tests), attributes) of one branch
Branch = Tuple[Tuple, dict, Attributes]


def take_attributes(changed: List[Tuple[Any, str, Any]]) -> Attributes:
    """The attributes a branch changed, (object, name, value before) each (AttributeWrites.
    changed); each gets its value from before the `if` back, so that the other branch starts
    from it."""
    found: Attributes = {}
    for obj, attr, before in changed:
        found[(id(obj), attr)] = (obj, attr, before, getattr(obj, attr))
        setattr(obj, attr, before)
    return found


def with_attribute_outputs(names: Sequence[str], outputs: Sequence[int], init: Tuple,
                           set_args: Callable, true: Branch, false: Branch) -> Tuple:
    """The `if`'s names, outputs, values before, set_args and each branch's (outputs, alias
    tests), with the attributes either branch set appended after the names. A branch's alias
    tests name its own k-th attribute at len(names) + k (branch_alias_tests ran over them)."""
    (t_out, t_tests, t_attrs), (f_out, f_tests, f_attrs) = true, false
    keys = list(t_attrs) + [k for k in f_attrs if k not in t_attrs]
    info = {k: t_attrs.get(k) or f_attrs[k] for k in keys}
    n = len(names)
    f_tests = _renumber(f_tests, n, [keys.index(k) for k in f_attrs])
    for pos, k in enumerate(keys):
        before = info[k][2]
        for attrs, tests in ((t_attrs, t_tests), (f_attrs, f_tests)):
            if k not in attrs and is_dense_var(before):
                # left alone on this path: there it is the object from before the `if`
                tests[("x", (n + pos, 0), id(before))] = (before, True)

    def values(attrs: Attributes) -> Tuple:
        return tuple(attrs[k][3] if k in attrs else info[k][2] for k in keys)

    targets = [info[k][:2] for k in keys]

    def set_all(vals: Tuple) -> None:
        set_args(tuple(vals[:n]))
        for (obj, attr), v in zip(targets, vals[n:]):
            setattr(obj, attr, v)

    return (list(names) + [f"{type(obj).__name__}.{attr}" for obj, attr in targets],
            list(outputs) + [n + j for j in range(len(keys))],
            tuple(init) + tuple(info[k][2] for k in keys), set_all,
            (tuple(t_out) + values(t_attrs), t_tests), (tuple(f_out) + values(f_attrs), f_tests))


def _renumber(tests: dict, n: int, positions: List[int]) -> dict:
    """Alias tests with the branch's k-th attribute output moved to n + positions[k]."""
    def move(pos: Tuple[int, int]) -> Tuple[int, int]:
        i, j = pos
        return (n + positions[i - n], j) if i >= n else pos
    return {(kind, move(a), move(b) if kind == "o" else b): test
            for (kind, a, b), test in tests.items()}
