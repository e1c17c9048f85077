"""What a function's code reads from outside its frame, found from its bytecode: the globals,
the closure cells, and the access paths rooted at a global, a cell or a parameter (through
local aliases, subscripts, loops over them, `type(obj)` and getattr/vars/hasattr), and the
locals whose objects only a run can tell (assigned from a call or an expression)."""
from __future__ import annotations

import types
from functools import lru_cache
from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Tuple

from .bytecode import Op, instructions

# ops that load a root an access path may start from
_ROOTS = {"LOAD_GLOBAL": "global", "LOAD_DEREF": "cell", "LOAD_CLASSDEREF": "cell",
          "LOAD_FAST": "local", "LOAD_FAST_CHECK": "local"}
_ATTRS = frozenset(("LOAD_ATTR", "LOAD_METHOD"))
_STORES = frozenset(("STORE_FAST", "STORE_DEREF"))
# builtins whose first argument may have any of its attributes read (a computed name, or all)
WHOLE_OBJECT_READERS = frozenset(("getattr", "hasattr", "vars"))
MAX_DEPTH = 8        # access paths longer than this are guarded up to this depth
# path steps besides attribute names: ("[]", constant) an item, ITEMS every item of an
# iteration, VALUES every value a computed subscript may give (`cfgs[i]`, `table[name]`),
# ALL_ATTRIBUTES the object's instance attributes (its __dict__, for getattr & co)
ITEMS = ("[*]",)
VALUES = ("[?]",)
ALL_ATTRIBUTES = "__dict__"
CLASS = "__class__"         # `type(obj)` is the step `obj.__class__`
_ELSEWHERE = ("", "", ())   # a local assigned from something that is no access path
_CALLS = frozenset(("PRECALL", "CALL", "CALL_FUNCTION", "CALL_METHOD"))
# calls whose result may have a path read off it (`pick(cfg).k`): chains rooted at RESULT
_RESULT_CALLS = _CALLS | {"CALL_FUNCTION_KW", "CALL_FUNCTION_EX"}
RESULT = ("result", "")     # the root of a path read off what a call returned
# builtins whose result a `for` iterates over the items of their arguments (in order for zip)
_ITERATORS = frozenset(("enumerate", "zip", "reversed", "sorted", "list", "tuple", "iter"))
# jumps that leave a value on the stack (the end of `A or B`, of a branch of `A if t else B`)
_VALUE_JUMPS = frozenset(("JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP", "JUMP_FORWARD"))


class CodeReads(NamedTuple):
    """The outside reads of one code object (and of the code nested in it)."""
    globals: FrozenSet[str]
    cells: FrozenSet[str]
    # (root kind "global" | "cell" | "local", root name, path of attribute names and steps)
    chains: FrozenSet[Tuple[str, str, Tuple]]
    # locals (of the function or of code nested in it) whose attributes or items are read but
    # that are assigned from a call or an expression: a trace captures their objects
    opaque: FrozenSet[str] = frozenset()


class _Walk:
    """One pass over a code object: the reads, and which locals alias an access path."""

    def __init__(self, free: FrozenSet[str], top: bool, dot0: Any = None) -> None:
        self.free, self.top = free, top
        self.dot0 = dot0            # for a comprehension: what its iterator argument `.0` yields
        self.globals: set = set()
        self.cells: set = set()
        self.chains: set = set()
        self.aliases: Dict[str, List[Tuple[str, str, Tuple]]] = {}
        self.stores: Dict[str, int] = {}
        self.root: Optional[Tuple[str, str]] = None
        self.path: Tuple = ()
        self.whole = False          # the next path is the first argument of getattr & co
        self.type_at = -9           # where `type` was loaded: `type(<path>)` is <path>.__class__
        self.root_at = -1           # where the current root was loaded
        self.skip = 0               # call ops of `type(<path>)`, already taken as a step
        # what a `for` about to start yields: a chain (one target) or a list of chains or None
        # (the targets of an unpacking); iter_at: (index of its GET_ITER, that) for iterators
        self.pending_iter: Any = None
        self.iter_at: Optional[Tuple[int, Any]] = None
        self.loop_stores: Dict[int, Any] = {}       # instruction index of a loop target: chain
        self.jump_aliases: Dict[int, List] = {}     # index of a store a jump goes to: chains
        self.made: Optional[types.CodeType] = None  # the code of the function made last
        # what each comprehension's `.0` yields, per call of it: equal code objects are one
        # constant (3.9/3.10 merge `[v.k for v in a]` and `[v.k for v in b]` on one line)
        self.comprehensions: Dict[types.CodeType, List[Any]] = {}
        # paths that ended where a computed subscript may use them: [chain, stack depth above]
        self.subscripted: List[List] = []

    def run(self, code: types.CodeType) -> None:
        ins_list = instructions(code)
        for k, ins in enumerate(ins_list):
            if self.skip:
                self.skip -= 1
            elif not self._resumed(ins_list, k):
                self._step(ins_list, k)
            self._track(ins)
        if self.root is not None and self.whole:
            self.chains.add((self.root[0], self.root[1], self.path + (ALL_ATTRIBUTES,)))

    def _step(self, ins_list: List, k: int) -> None:
        ins = ins_list[k]
        op = ins.opname
        if self.root is None and op in _VALUE_JUMPS:
            # `c = f() or A`, `c = f() if t else A`: what is no path reaches the store too
            self._jump_to_store(ins_list, ins, _ELSEWHERE)
        if self.root is not None:
            root, path = self.root, self.path
            if len(path) < MAX_DEPTH and self._extends(ins_list, k):
                if op != "LOAD_CONST":
                    step = ins.argval if op in _ATTRS else ("[]", ins_list[k - 1].argval)
                    self.path = path + (step,)
                    self.chains.add((root[0], root[1], self.path))
                return
            calls = _type_call(ins_list, k) if self.root_at == self.type_at + 1 else 0
            if calls and len(path) < MAX_DEPTH:
                self.path = path + (CLASS,)
                self.chains.add((root[0], root[1], self.path))
                self.skip = calls - 1
                return
            # the path ends here
            chain = (root[0], root[1], path)
            self.root, self.path = None, ()
            if self.whole:
                self.chains.add(chain[:2] + (chain[2] + (ALL_ATTRIBUTES,),))
                self.whole = False
            if op in _STORES:
                self._alias(ins.argval, chain)
                for other in self.jump_aliases.pop(k, ()):
                    self._alias(ins.argval, other)
                return
            if ins.jump:    # `c = A if f else B`, `c = A or B`: A goes to the store
                self._jump_to_store(ins_list, ins, chain)
            if op == "GET_ITER":
                self.pending_iter = _items_of(chain, ITEMS)
                if self.pending_iter is not None:
                    # the items themselves (a LayerList's are no entries of a guarded list)
                    self.chains.add(self.pending_iter)
                self._comprehension(ins_list, k)
                return
            if op == "FOR_ITER" and chain == ("local", ".0", ()):
                self.pending_iter = self.dot0
            elif path and path[-1] in ("values", "items"):
                at = _call_then_iter(ins_list, k, 0)
                if at:      # `for v in <path>.values()`, `for k, v in <path>.items()`
                    values = _items_of(chain[:2] + (path[:-1],), VALUES)
                    self.iter_at = (at, values if path[-1] == "values" else [None, values])
            if len(path) < MAX_DEPTH:
                self.subscripted.append([chain, 0])
        elif self.whole and op not in _ROOTS:
            self.whole = False      # getattr of a computed object: its own reads are guarded
        if op in _ATTRS and k and ins_list[k - 1].opname in _RESULT_CALLS:
            # a path read off a call's result: guarded on what the user functions returned
            self.root, self.root_at, self.path = RESULT, k, (ins.argval,)
            self.chains.add(RESULT + (self.path,))
            return
        if op == "LOAD_CONST" and k and ins_list[k - 1].opname in _RESULT_CALLS and \
                self._extends(ins_list, k) and k + 2 < len(ins_list) and \
                ins_list[k + 2].opname in _ATTRS:
            # `sorted(...)[0].k`: an item's attribute, read off a call's result
            self.root, self.root_at, self.path = RESULT, k, ()
            return
        if op == "GET_ITER" and self.iter_at is not None and self.iter_at[0] == k:
            self.pending_iter = self.iter_at[1]
            self._comprehension(ins_list, k)
            return
        if op == "GET_ITER" and k and ins_list[k - 1].opname in _RESULT_CALLS:
            self.pending_iter = RESULT + (ITEMS,)   # `for c in get_all()`: what it returned
            self._comprehension(ins_list, k)
            return
        if op == "FOR_ITER":
            self._loop_targets(ins_list, k)
            return
        if op in _STORES:
            for other in self.jump_aliases.pop(k, ()):
                self._alias(ins.argval, other)
            if k in self.loop_stores:
                target = self.loop_stores.pop(k)
                self.aliases.setdefault(ins.argval, []).append(target or _ELSEWHERE)
            else:
                self.stores[ins.argval] = self.stores.get(ins.argval, 0) + 1
                self.aliases.setdefault(ins.argval, []).append(_ELSEWHERE)
            return
        if op != "GET_ITER":
            self.pending_iter = None
        if op == "MAKE_FUNCTION" and ins_list[k - 1].opname == "LOAD_CONST" and \
                isinstance(ins_list[k - 1].argval, types.CodeType):
            self.made = ins_list[k - 1].argval
        kind = _ROOTS.get(op)
        if kind is None:
            return
        name = ins.argval
        if kind == "global":
            self.globals.add(name)
            if name in WHOLE_OBJECT_READERS:
                self.whole = True
                return
            if name in _ITERATORS:
                self.iter_at = self._iterator_call(ins_list, k) or self.iter_at
            if name == "type":
                self.type_at = k
                return
        elif kind == "cell":
            if name in self.free:
                self.cells.add(name)
            else:
                kind = "local"      # a cell of this frame (or of code around it): a local
        self.root, self.root_at = (kind, name), k

    def _iterator_call(self, ins_list: List, k: int) -> Optional[Tuple[int, Any]]:
        """`for ... in enumerate(<path>)` (zip, reversed, sorted, ...) with every argument an
        access path or such a call of one: (index of the GET_ITER, what each target holds)."""
        parsed = self._iterable_call(ins_list, k)
        if parsed is None:
            return None
        name, args, j = parsed
        at = j if j < len(ins_list) and ins_list[j].opname == "GET_ITER" else 0
        if not at:
            return None
        if name == "enumerate":
            return (at, [None, args[0]]) if len(args) == 1 else None
        if name == "zip":
            return at, args
        return (at, args[0]) if len(args) == 1 else None

    def _iterable_call(self, ins_list: List, k: int) -> Optional[Tuple[str, List, int]]:
        """(name, the items of each argument, index after the call) of `<iterator>(<args>)`
        loaded at k, each argument a path or `reversed(<path>)` & co; None otherwise."""
        j, args = k + 1, []
        while j < len(ins_list):
            ins = ins_list[j]
            if ins.opname == "LOAD_GLOBAL" and ins.argval in _ITERATORS and \
                    ins.argval not in ("enumerate", "zip"):
                inner = self._iterable_call(ins_list, j)
                if inner is None or len(inner[1]) != 1:
                    return None
                args.append(inner[1][0])
                j = inner[2]
                continue
            if ins.opname not in _ROOTS:
                break
            kind = _ROOTS[ins.opname]
            if kind == "cell" and ins.argval not in self.free:
                kind = "local"
            path: Tuple = ()
            j += 1
            while j < len(ins_list) and len(path) < MAX_DEPTH and self._extends(ins_list, j):
                if ins_list[j].opname != "LOAD_CONST":
                    path = path + (ins_list[j].argval if ins_list[j].opname in _ATTRS
                                   else ("[]", ins_list[j - 1].argval),)
                j += 1
            args.append(_items_of((kind, ins.argval, path), ITEMS))
        end = _call_then_iter(ins_list, j, len(args), end=None) if args else 0
        return (ins_list[k].argval, args, end) if end else None

    def _comprehension(self, ins_list: List, k: int) -> None:
        """A comprehension called on this iterator: its `.0` yields what the loop would."""
        made = self.made
        if made is not None and made.co_name in ("<listcomp>", "<setcomp>", "<dictcomp>",
                                                 "<genexpr>") and \
                _call_then_iter(ins_list, k + 1, 0, end=None):
            self.comprehensions.setdefault(made, []).append(self.pending_iter)

    def _loop_targets(self, ins_list: List, k: int) -> None:
        """The targets a `for` at k binds, aliased to what its iterator yields."""
        source, self.pending_iter = self.pending_iter, None
        if source is None or k + 1 >= len(ins_list):
            return
        nxt = ins_list[k + 1]
        if nxt.opname in _STORES and not isinstance(source, list):
            self.loop_stores[k + 1] = source
        elif nxt.opname == "UNPACK_SEQUENCE" and isinstance(source, list) and \
                nxt.arg == len(source) and \
                all(i.opname in _STORES for i in ins_list[k + 2:k + 2 + len(source)]):
            for n, target in enumerate(source):
                self.loop_stores[k + 2 + n] = target

    def _resumed(self, ins_list: List, k: int) -> bool:
        """At a subscript whose container is a path that ended before its index: the path goes
        on with the step VALUES (`self.cfgs[self.i].k` reads `.k` of some item of the list)."""
        if ins_list[k].opname != "BINARY_SUBSCR" or not self.subscripted or \
                self.subscripted[-1][1] != 1:
            return False
        chain = self.subscripted.pop()[0]
        if ins_list[k - 1].opname == "BUILD_SLICE":
            return False            # a slice is a new container: its items are not followed
        self.root, self.path = chain[:2], chain[2] + VALUES
        self.root_at = -3           # no `type(` right before it
        self.chains.add((self.root[0], self.root[1], self.path))
        self.whole = False
        return True

    def _track(self, ins: Op) -> None:
        """Follow the stack depth above each container a computed subscript may use; one
        that is consumed otherwise (or any jump) ends the wait."""
        if not self.subscripted:
            return
        effect = ins.effect
        if ins.jump or ins.is_jump_target or effect is None:
            self.subscripted.clear()
            return
        kept = []
        for wait in self.subscripted:
            wait[1] += effect
            if wait[1] > 0:
                kept.append(wait)
        self.subscripted = kept

    @staticmethod
    def _extends(ins_list: List, k: int) -> bool:
        """Whether instruction k continues an access path: an attribute, or a constant key and
        the subscript that uses it."""
        op = ins_list[k].opname
        if op in _ATTRS:
            return True
        if op == "LOAD_CONST":
            return k + 1 < len(ins_list) and ins_list[k + 1].opname == "BINARY_SUBSCR" and \
                _hashable(ins_list[k].argval)
        return op == "BINARY_SUBSCR" and ins_list[k - 1].opname == "LOAD_CONST" and \
            _hashable(ins_list[k - 1].argval)

    def _jump_to_store(self, ins_list: List, ins: Op, chain: Tuple) -> None:
        """A jump that carries a value to a store: the stored local may hold `chain`."""
        target = ins.target
        if target is not None and ins_list[target].opname in _STORES:
            self.jump_aliases.setdefault(target, []).append(chain)

    def _alias(self, local: str, chain: Tuple[str, str, Tuple]) -> None:
        """`local = <root>.<path>`: the local's reads are the path's reads."""
        self.stores[local] = self.stores.get(local, 0) + 1
        if chain[:2] != ("local", local):
            self.aliases.setdefault(local, []).append(chain)

    def resolved(self, params: FrozenSet[str]) -> Tuple[set, set]:
        """The chains, with those rooted at an alias (a local assigned only from access paths,
        or a parameter assigned so in the body) also rooted where the alias may point; and
        the locals whose objects only a run can tell (assigned from a call or an expression,
        or not in this code at all)."""
        out = set(self.chains)
        opaque = set()
        for _ in range(3):          # an alias of an alias
            more = set()
            for kind, name, path in out:
                if kind != "local" or name in params and name not in self.aliases:
                    continue
                targets = self.aliases.get(name, ())
                if _ELSEWHERE in targets or not targets and (kind, name, path) in self.chains:
                    opaque.add(name)    # also assigned from a call or an expression: captured
                for tkind, tname, tpath in targets:     # each path it may hold is guarded
                    if not tkind:
                        continue
                    full = (tpath + path)[:MAX_DEPTH]
                    if full:
                        more.add((tkind, tname, full))
            if more <= out:
                break
            out |= more
        return out, opaque


def _items_of(chain: Tuple[str, str, Tuple], step: Tuple) -> Optional[Tuple[str, str, Tuple]]:
    """The chain of what iterating `chain` yields (None past the depth guarded)."""
    return (chain[0], chain[1], chain[2] + step) if len(chain[2]) < MAX_DEPTH else None


def _call_then_iter(ins_list: List, k: int, n_args: int, end: Optional[str] = "GET_ITER") -> int:
    """The index after the call ops (with n_args arguments) that start at k, when `end`
    follows them (0 if not)."""
    j = k
    while j < len(ins_list) and ins_list[j].opname in _CALLS and ins_list[j].arg == n_args:
        j += 1
    if j == k:
        return 0
    if end is None:
        return j
    return j if j < len(ins_list) and ins_list[j].opname == end else 0


def _type_call(ins_list: List, k: int) -> int:
    """How many instructions from k make the call `type(<path>)` (0 if they do not)."""
    n = 0
    while k + n < len(ins_list) and ins_list[k + n].opname in _CALLS and \
            ins_list[k + n].arg == 1:
        n += 1
    return n


def _hashable(value: object) -> bool:
    return isinstance(value, (int, str, bytes, bool)) and not isinstance(value, float)


def _walk(code: types.CodeType, free: FrozenSet[str], top: bool,
          out: Tuple[set, set, set, set], dot0: Any = None) -> None:
    """The reads of `code` into `out`; the locals of code nested in it (a lambda, a
    comprehension, an inner def) are opaque: a trace captures their objects by name."""
    w = _Walk(free, top, dot0)
    w.run(code)
    globals_, cells, chains, opaque = out
    globals_ |= w.globals
    cells |= w.cells
    params = frozenset(parameter_names(code)) if top else frozenset()
    resolved, unknown = w.resolved(params)
    opaque |= unknown
    for kind, name, path in resolved:
        chains.add((kind, name, path))
        # a path guards its prefixes too (an alias's own target is read)
        for n in range(1, len(path)):
            chains.add((kind, name, path[:n]))
    if top:         # parameters never assigned in the body: bound by the call, not captured
        opaque -= {p for p in params if p not in w.aliases}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            for dot0 in w.comprehensions.get(const, [None]):
                _walk(const, free, False, out, dot0)


@lru_cache(maxsize=2048)
def reads_of(code: types.CodeType) -> CodeReads:
    """The outside reads of `code` (cached per code object)."""
    out: Tuple[set, set, set, set] = (set(), set(), set(), set())
    _walk(code, frozenset(code.co_freevars), True, out)
    globals_, cells, chains, opaque = out
    return CodeReads(frozenset(globals_), frozenset(cells), frozenset(chains), frozenset(opaque))


@lru_cache(maxsize=2048)
def rebound_cells(code: types.CodeType) -> FrozenSet[str]:
    """The closure variables of the code around it that `code` rebinds (`nonlocal n; n += 1`):
    a change the trace makes once, that no guard can see happen again."""
    free = frozenset(code.co_freevars)
    return frozenset(ins.argval for ins in instructions(code)
                     if ins.opname == "STORE_DEREF" and ins.argval in free)


def parameter_names(code: types.CodeType) -> Tuple[str, ...]:
    """Names of the parameters of `code`, in order (positional, *args, keyword-only, **kw)."""
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    return code.co_varnames[:n]
