"""Object identity across the boundaries of compiled regions: a tensor held in two places (a
list entry and a local) stays one object through a region, a region's in-place change of an
input reaches the caller's object, and two outputs that were one object in the trace are one."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ...autograd.tape import adopt
from ...format.input_spec import InputSpec
from ...runtime.pytree import flatten, leaves_at, unflatten
from ...runtime.tensor import Tensor


def _is_input(x: Any) -> bool:
    # the leaves StaticFunction feeds: the same test, so that indices line up with its inputs
    return isinstance(x, (Tensor, np.ndarray, InputSpec))


def input_leaves(args: Tuple, kwargs: Dict) -> List[Any]:
    """The call's inputs in feed order."""
    leaves, _ = flatten((args, kwargs), is_leaf=_is_input)
    return [x for x in leaves if _is_input(x)]


def key_part(args: Tuple, kwargs: Dict) -> Tuple:
    """What the cache key adds: which inputs are one tensor object (a program traced with two
    inputs as one object changes both in place; traced apart, it would not)."""
    ids = [id(x) for x in input_leaves(args, kwargs) if isinstance(x, Tensor)]
    if len(set(ids)) == len(ids):
        return ()
    first: Dict[int, int] = {}
    return (("same objects", tuple(first.setdefault(i, k) for k, i in enumerate(ids))),)


class Identity:
    """What one trace learnt of object identity, for the calls of its entry.

    tree      the structure of the function's own result (the program returns more after it)
    changed   input indices whose object the trace changed in place; their new values are
              returned after the result
    mutated   paths (keys from the call's (args, kwargs)) of the input lists and dicts the trace
              changed (`acc[0] = v`, `d['k'] = v`, `acc.append(v)`); their new contents come last
    whole     the structure of (result, contents of the mutated containers)
    same      per leaf of `whole`: None, ("in", input index) when it is that input's object,
              ("out", j) when it is the object of the earlier leaf j"""

    def __init__(self, tree: Any, changed: List[int], mutated: List[Tuple], whole: Any,
                 same: List[Optional[Tuple[str, int]]]) -> None:
        self.tree, self.changed, self.mutated, self.whole, self.same = \
            tree, changed, mutated, whole, same
        self.extended = bool(changed or mutated)
        self.trivial = not self.extended and not any(same)


def _contents(obj: Any) -> Tuple:
    if type(obj) is list:
        return tuple(map(id, obj))
    return tuple((k, id(v)) for k, v in obj.items())


def _copy(obj: Any) -> Any:
    return list(obj) if type(obj) is list else dict(obj)


class Tracer:
    """Used by StaticFunction.trace_program: one symbolic object per input tensor object, and
    the outputs extended by the new values of the inputs changed in place and the new contents
    of the input containers changed."""

    def __init__(self) -> None:
        self.symbols: List[Any] = []       # per input: its symbolic object
        self.names: List[str] = []         # per input: its feed variable's name
        self._by_id: Dict[int, Any] = {}
        self._containers: List[Tuple[Tuple, Any, Tuple]] = []    # (path, object, contents)

    def input(self, leaf: Any, symbol: Any) -> Any:
        """The symbolic object standing for input `leaf` (`symbol`, its own feed, unless the
        same tensor object came before)."""
        self.names.append(symbol.name)
        if isinstance(leaf, Tensor):
            symbol = self._by_id.setdefault(id(leaf), symbol)
        self.symbols.append(symbol)
        return symbol

    def arguments(self, root: Any, path: Tuple = ()) -> None:
        """Note the lists and dicts among the symbolic (args, kwargs) and their contents."""
        if type(root) in (list, dict) and path:
            self._containers.append((path, root, _contents(root)))
        if type(root) in (list, tuple):
            for k, v in enumerate(root):
                self.arguments(v, path + (k,))
        elif type(root) is dict:
            for k, v in root.items():
                self.arguments(v, path + (k,))

    def outputs(self, out: Any) -> Tuple[Any, Identity]:
        """(the value to flatten as the program's outputs, what the calls restore)."""
        index: Dict[int, int] = {}
        for k, sym in enumerate(self.symbols):
            index.setdefault(id(sym), k)
        changed = [k for k, sym in enumerate(self.symbols)
                   if index[id(sym)] == k and getattr(sym, "name", None) != self.names[k]]
        # the deepest first: an outer container written back after its entries takes them
        found = [(path, obj) for path, obj, before in self._containers
                 if _contents(obj) != before]
        found.sort(key=lambda po: -len(po[0]))
        contents = tuple(_copy(obj) for _, obj in found)
        leaves, whole = flatten((out, contents))
        same: List[Optional[Tuple[str, int]]] = []
        seen: Dict[int, int] = {}
        for j, leaf in enumerate(leaves):
            if not hasattr(leaf, "block"):          # not a symbolic tensor
                same.append(None)
            elif id(leaf) in index:
                same.append(("in", index[id(leaf)]))
            elif id(leaf) in seen:
                same.append(("out", seen[id(leaf)]))
            else:
                seen[id(leaf)] = j
                same.append(None)
        identity = Identity(flatten(out)[1], changed, [p for p, _ in found], whole, same)
        if not identity.extended:
            return out, identity
        return (out, tuple(self.symbols[k] for k in changed), contents), identity


def _follow(root: Any, path: Tuple) -> Any:
    for k in path:
        root = root[k]
    return root


def restore(identity: Identity, value: Any, args: Tuple, kwargs: Dict) -> Any:
    """A call's result with eager identities: the inputs changed in place take their new
    values (and place on the tape), changed input lists and dicts their new contents, and
    outputs that are inputs are those objects."""
    if identity.trivial:
        return value
    inputs = input_leaves(args, kwargs)
    contents: Tuple = ()
    if identity.extended:
        value, news, contents = value
        for k, new in zip(identity.changed, news):
            if isinstance(inputs[k], Tensor) and isinstance(new, Tensor):
                adopt(inputs[k], new)
    leaves = leaves_at((value, contents), identity.whole)
    for j, how in enumerate(identity.same):
        if how is None:
            continue
        kind, k = how
        if kind == "in":
            if isinstance(inputs[k], Tensor):
                leaves[j] = inputs[k]
        else:
            leaves[j] = leaves[k]
    value, contents = unflatten(identity.whole, leaves)
    root = (args, kwargs)
    for path, content in zip(identity.mutated, contents):
        target = _follow(root, path)
        if type(target) is list:
            target[:] = content
        elif type(target) is dict:
            target.clear()
            target.update(content)
    return value
