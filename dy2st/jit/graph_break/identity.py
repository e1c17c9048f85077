"""Object identity across the boundaries of compiled regions: a tensor held in two places (a
list entry and a local) stays one object through a region, a region's in-place change of an
input reaches the caller's object, and two outputs that were one object in the trace are one."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Set, Tuple

import numpy as np

from ...autograd.tape import adopt
from ...format.input_spec import InputSpec
from ...runtime import ops
from ...runtime.control_flow.cond import UndefinedVar, is_undefined
from ...runtime.inplace import as_flag, condition, is_dense_var, reachable
from ...runtime.program import Variable
from ...runtime.pytree import flatten, is_namedtuple, leaves_at, unflatten
from ...runtime.side_effects import IS_NONE, MISSING_KEY, REFUSED
from ...runtime.tensor import Tensor
from ...runtime.widened import WIDENED
from ..absent_keys import ABSENT, drop_absent


def _is_input(x: Any) -> bool:
    # the leaves StaticFunction feeds: the same test, so that indices line up with its inputs
    return isinstance(x, (Tensor, np.ndarray, InputSpec))


def input_leaves(args: Tuple, kwargs: Dict) -> List[Any]:
    """The call's inputs in feed order."""
    leaves, _ = flatten((args, kwargs), is_leaf=_is_input)
    return [x for x in leaves if _is_input(x)]


def key_part(args: Tuple, kwargs: Dict) -> Tuple:
    """What the cache key adds: which inputs are one tensor object, and which list or dict
    arguments are one container (a program traced with two inputs as one object changes both
    in place; traced apart, it would not)."""
    part: Tuple = ()
    for what, ids in (("same objects", [id(x) for x in input_leaves(args, kwargs)
                                        if isinstance(x, Tensor)]),
                      ("same containers", [id(c) for _, c in _containers_in((args, kwargs))])):
        if len(set(ids)) != len(ids):
            first: Dict[int, int] = {}
            part += ((what, tuple(first.setdefault(i, k) for k, i in enumerate(ids))),)
    return part


def _containers_in(root: Any, path: Tuple = ()) -> List[Tuple[Tuple, Any]]:
    """(path, object) of every list and dict in root (through lists, dicts and tuples), in the
    order flatten walks them."""
    found: List[Tuple[Tuple, Any]] = []
    if type(root) in (list, dict) and path:
        found.append((path, root))
    if type(root) in (list, tuple) or is_namedtuple(root):
        for k, v in enumerate(root):
            found += _containers_in(v, path + (k,))
    elif type(root) is dict:
        for k, v in root.items():
            found += _containers_in(v, path + (k,))
    return found


class Identity:
    """What one trace learnt of object identity, for the calls of its entry.

    tree      the structure of the function's own result (the program returns more after it)
    kept      per mutated container: the keys of its entries that are still the argument's
              own containers there (changed at most in place), which stay those objects
    shared    (path in the result, ("in", path in the call) or ("out", earlier path)): lists
              and dicts of the result that are an argument's container or an earlier one
    undefined (leaf of `whole`, UndefinedVar, flag index or None): leaves without a value on
              the path taken (always, or when their flag, returned last, is false)
    changed   input indices whose object the trace changed in place; their new values are
              returned after the result
    mutated   paths (keys from the call's (args, kwargs)) of the input lists and dicts the trace
              changed (`acc[0] = v`, `d['k'] = v`, `acc.append(v)`); their new contents come last
    whole     the structure of (result, contents of the mutated containers)
    same      per leaf of `whole`: None, ("in", input index) when it is that input's object,
              ("out", j) when it is the object of the earlier leaf j
    maybe     (leaf j, ("in", k) or ("out", j2), flag index): leaf j is that object on some
              paths only (`h = g if c else h` with a tensor c), when its flag, returned last,
              is true"""

    def __init__(self, tree: Any, changed: List[int], mutated: List[Tuple], whole: Any,
                 same: List[Optional[Tuple[str, int]]], kept: Optional[List[List[Any]]] = None,
                 shared: Optional[List[Tuple[Tuple, Tuple[str, Tuple]]]] = None,
                 undefined: Optional[List[Tuple[int, Any, Optional[int]]]] = None,
                 maybe: Optional[List[Tuple[int, Tuple[str, int], int]]] = None) -> None:
        self.tree, self.changed, self.mutated, self.whole, self.same = \
            tree, changed, mutated, whole, same
        self.kept = kept or [[] for _ in mutated]
        self.shared = shared or []
        self.undefined = undefined or []
        self.maybe = maybe or []
        self.extended = bool(changed or mutated or self.maybe or
                             any(k is not None for *_, k in self.undefined))
        self.trivial = not self.extended and not any(same) and not self.shared and \
            not self.undefined

    def restore(self, value: Any, args: Tuple, kwargs: Dict) -> Any:
        """A call's result with eager identities (the module's `restore`)."""
        return restore(self, value, args, kwargs)


def written_back(out: Any, inputs: List[Any], changed: Set[int]) -> Tuple[Any, Identity]:
    """For a function traced whole: (its outputs extended by the new values of the `inputs`
    (symbolic, in feed order) whose id is in `changed`, what the calls restore)."""
    news = [(k, sym) for k, sym in enumerate(inputs) if id(sym) in changed]
    leaves, whole = flatten((out, ()))
    identity = Identity(flatten(out, objects=True)[1], [k for k, _ in news], [], whole, [None] * len(leaves))
    return (out, tuple(sym for _, sym in news), (), ()), identity


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

    def arguments(self, root: Any, real: Any) -> Any:
        """The symbolic (args, kwargs) with one list or dict wherever the call's `real` ones
        are one container; notes them and their contents."""
        first: Dict[int, Any] = {}
        for (path, sym), (_, obj) in zip(_containers_in(root), _containers_in(real)):
            if id(obj) in first:
                root = _replaced(root, path, first[id(obj)])
            else:
                first[id(obj)] = sym
        for path, obj in _containers_in(root):
            self._containers.append((path, obj, _contents(obj)))
        return root

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
        shared = self._shared(out)
        same: List[Optional[Tuple[str, int]]] = []
        seen: Dict[int, int] = {}
        for j, leaf in enumerate(leaves):
            if is_undefined(leaf) or not hasattr(leaf, "block"):    # not a symbolic tensor
                same.append(None)
            elif id(leaf) in index:
                same.append(("in", index[id(leaf)]))
            elif id(leaf) in seen:
                same.append(("out", seen[id(leaf)]))
            else:
                seen[id(leaf)] = j
                same.append(None)
        at = {path: obj for path, obj, _ in self._containers}
        kept = [[k for k in (range(len(obj)) if type(obj) is list else list(obj))
                 if type(obj[k]) in (list, dict) and at.get(path + (k,)) is obj[k]]
                for path, obj in found]
        maybe, alias_flags = _path_aliases(leaves, same, self.symbols, index)
        undefined, flags, leaves = _undefined_outputs(leaves)
        maybe = [(j, how, len(flags) + k) for j, how, k in maybe]
        flags += alias_flags
        identity = Identity(flatten(out, objects=True)[1], changed, [p for p, _ in found], whole, same,
                            kept, shared, undefined, maybe)
        if flags:
            out, contents = unflatten(whole, leaves)
        if not identity.extended:
            return out, identity
        return (out, tuple(self.symbols[k] for k in changed), contents, tuple(flags)), identity

    def _shared(self, out: Any) -> List[Tuple[Tuple, Tuple[str, Tuple]]]:
        """The lists and dicts of the result that are an argument's container or one seen
        earlier in the result (`e = d` returned as both): their paths and which one."""
        inputs = {id(obj): path for path, obj, _ in self._containers}
        seen: Dict[int, Tuple] = {}
        shared: List[Tuple[Tuple, Tuple[str, Tuple]]] = []
        for path, obj in _containers_in(out):
            if id(obj) in inputs:
                shared.append((path, ("in", inputs[id(obj)])))
            elif id(obj) in seen:
                shared.append((path, ("out", seen[id(obj)])))
            else:
                seen[id(obj)] = path
        return shared


def _path_aliases(leaves: List[Any], same: List[Optional[Tuple[str, int]]],
                  symbols: List[Any], index: Dict[int, int]
                  ) -> Tuple[List[Tuple[int, Tuple[str, int], int]], List[Any]]:
    """Outputs that are an input's object, or an earlier output's, on some paths only (a tensor
    `if` or loop left a path alias between them): (leaf j, what it is then, flag index) and the
    bool flags to return, so that the call makes them one object where eager code has one."""
    maybe: List[Tuple[int, Tuple[str, int], int]] = []
    flags: List[Any] = []
    earlier: Dict[int, int] = {}
    for j, leaf in enumerate(leaves):
        if not is_dense_var(leaf) or same[j] is not None:
            continue
        near = reachable(leaf)
        for k, sym in enumerate(symbols):
            if index[id(sym)] == k and id(sym) in near and is_dense_var(sym):
                maybe.append((j, ("in", k), len(flags)))
                flags.append(as_flag(condition(near[id(sym)][1])))
        for key, j2 in earlier.items():
            if key in near:
                maybe.append((j, ("out", j2), len(flags)))
                flags.append(as_flag(condition(near[key][1])))
        earlier.setdefault(id(leaf), j)
    return maybe, flags


def _undefined_outputs(leaves: List[Any]) -> Tuple[List[Tuple[int, Any, Optional[int]]],
                                                   List[Any], List[Any]]:
    """Outputs that may have no value on the path taken (a region's `if flag: z = ...`, or a
    tensor `if` that assigns z on one path): (leaf index, the UndefinedVar it is then, the
    index of its "assigned?" flag among the extra outputs, or None when it never has a
    value), the flags, and the leaves to return (such a value unchecked)."""
    undefined: List[Tuple[int, Any, Optional[int]]] = []
    flags: List[Any] = []
    leaves = list(leaves)
    for j, leaf in enumerate(leaves):
        if is_undefined(leaf):
            undefined.append((j, leaf, None))
            continue
        entry = leaf.block.program.maybe_undefined.get(leaf.name) \
            if isinstance(leaf, Variable) else None
        if entry is not None and entry[1] not in (REFUSED, WIDENED):
            # a value None on some paths (a `.grad` a tensor `if` may leave None, fuzz seed
            # 11001211) is None there, as eager code has it; a dict entry a loop did not add is
            # left out (fuzz seed 7121021382); an unassigned name fails when read
            missing = None if entry[1] == IS_NONE else ABSENT if entry[1] == MISSING_KEY else \
                UndefinedVar(entry[1], entry[2])
            undefined.append((j, missing, len(flags)))
            flags.append(entry[0])
            table = leaf.block.program.maybe_undefined
            del table[leaf.name]                # a copy without the check of its value
            leaves[j] = ops.assign(leaf)
            table[leaf.name] = entry
    return undefined, flags, leaves


def _true(flag: Any) -> bool:
    return bool(np.asarray(flag.numpy() if isinstance(flag, Tensor) else flag))


def _follow(root: Any, path: Tuple) -> Any:
    for k in path:
        root = root[k]
    return root


def _replaced(root: Any, path: Tuple, obj: Any) -> Any:
    """root with obj at path (tuples on the way rebuilt, lists and dicts changed in place)."""
    if not path:
        return obj
    k, rest = path[0], path[1:]
    if type(root) is tuple:
        return root[:k] + (_replaced(root[k], rest, obj),) + root[k + 1:]
    root[k] = _replaced(root[k], rest, obj)
    return root


def restore(identity: Identity, value: Any, args: Tuple, kwargs: Dict) -> Any:
    """A call's result with eager identities: the inputs changed in place take their new
    values (and place on the tape), changed input lists and dicts their new contents, and
    outputs that are inputs are those objects."""
    if identity.trivial:
        return value
    inputs = input_leaves(args, kwargs)
    contents: Tuple = ()
    flags: Tuple = ()
    if identity.extended:
        value, news, contents, flags = value
        for k, new in zip(identity.changed, news):
            if isinstance(inputs[k], Tensor) and isinstance(new, Tensor):
                adopt(inputs[k], new)
    leaves = leaves_at((value, contents), identity.whole)
    maybe: Dict[int, List[Tuple[Tuple[str, int], int]]] = {}
    for j, how, f in identity.maybe:
        maybe.setdefault(j, []).append((how, f))
    # in leaf order: a leaf that is an earlier one ("out") takes that leaf's final object,
    # after its own path-alias flags made it another (`acc[0]` that is `h` on some paths, then
    # `g = h`: g is acc[0] when the flag says so; fuzz seed 6000189)
    for j, how in enumerate(identity.same):
        if how is not None:
            kind, k = how
            if kind == "out":
                leaves[j] = leaves[k]
            elif isinstance(inputs[k], Tensor):
                leaves[j] = inputs[k]
        for (kind, k), f in maybe.get(j, ()):
            if leaves[j] is not (inputs[k] if kind == "in" else leaves[k]) and _true(flags[f]):
                if kind == "out":
                    leaves[j] = leaves[k]
                elif isinstance(inputs[k], Tensor):
                    leaves[j] = inputs[k]
    for j, undefined, k in identity.undefined:
        if k is None or not _true(flags[k]):
            leaves[j] = undefined
    value, contents = unflatten(identity.whole, leaves)
    if any(leaf is ABSENT for leaf in leaves):
        value, contents = drop_absent(value), drop_absent(contents)
    root = (args, kwargs)
    for path, content, kept in zip(identity.mutated, contents, identity.kept):
        target = _follow(root, path)
        # (deepest first) an entry that is a container of the call stays that object
        for key in kept:
            content[key] = _follow(root, path + (key,))
        if type(target) is list:
            target[:] = content
        elif type(target) is dict:
            target.clear()
            target.update(content)
    for path, (kind, ref) in identity.shared:
        value = _replaced(value, path, _follow(root if kind == "in" else value, ref))
    return value
