"""What a function's code reads from outside its frame, found from its bytecode: the globals,
the closure cells, and the access paths rooted at a global, a cell or a parameter (through
local aliases, constant subscripts, loops over them and getattr/vars/hasattr)."""
from __future__ import annotations

import dis
import types
from functools import lru_cache
from typing import Dict, FrozenSet, List, NamedTuple, Optional, Tuple

# ops that load a root an access path may start from
_ROOTS = {"LOAD_GLOBAL": "global", "LOAD_DEREF": "cell", "LOAD_CLASSDEREF": "cell",
          "LOAD_FAST": "local", "LOAD_FAST_CHECK": "local"}
_ATTRS = frozenset(("LOAD_ATTR", "LOAD_METHOD"))
_STORES = frozenset(("STORE_FAST", "STORE_DEREF"))
# builtins whose first argument may have any of its attributes read (a computed name, or all)
WHOLE_OBJECT_READERS = frozenset(("getattr", "hasattr", "vars"))
MAX_DEPTH = 4        # access paths longer than this are guarded up to this depth
# path steps besides attribute names: ("[]", constant) an item, ITEMS every item of an
# iteration, ALL_ATTRIBUTES the object's instance attributes (its __dict__, for getattr & co)
ITEMS = ("[*]",)
ALL_ATTRIBUTES = "__dict__"
_ELSEWHERE = ("", "", ())   # a local assigned from something that is no access path


class CodeReads(NamedTuple):
    """The outside reads of one code object (and of the code nested in it)."""
    globals: FrozenSet[str]
    cells: FrozenSet[str]
    # (root kind "global" | "cell" | "local", root name, path of attribute names and steps)
    chains: FrozenSet[Tuple[str, str, Tuple]]


class _Walk:
    """One pass over a code object: the reads, and which locals alias an access path."""

    def __init__(self, free: FrozenSet[str], top: bool) -> None:
        self.free, self.top = free, top
        self.globals: set = set()
        self.cells: set = set()
        self.chains: set = set()
        self.aliases: Dict[str, List[Tuple[str, str, Tuple]]] = {}
        self.stores: Dict[str, int] = {}

    def run(self, code: types.CodeType) -> None:
        root: Optional[Tuple[str, str]] = None
        path: Tuple = ()
        whole = False               # the next path is the first argument of getattr & co
        pending_iter: Optional[Tuple[str, str, Tuple]] = None
        ins_list = list(dis.get_instructions(code))
        for k, ins in enumerate(ins_list):
            op = ins.opname
            if root is not None:
                if len(path) < MAX_DEPTH and self._extends(ins_list, k):
                    if op != "LOAD_CONST":
                        step = ins.argval if op in _ATTRS else ("[]", ins_list[k - 1].argval)
                        path = path + (step,)
                        self.chains.add((root[0], root[1], path))
                    continue
                # the path ends here
                chain = (root[0], root[1], path)
                root, path = None, ()
                if whole:
                    self.chains.add(chain[:2] + (chain[2] + (ALL_ATTRIBUTES,),))
                    whole = False
                if op in _STORES:
                    self._alias(ins.argval, chain)
                    continue
                if op == "GET_ITER":
                    pending_iter = chain
                    continue
            elif whole and op not in _ROOTS:
                whole = False       # getattr of a computed object: its own reads are guarded
            if op in _STORES:
                if pending_iter is not None and k >= 2 and ins_list[k - 1].opname == "FOR_ITER" \
                        and ins_list[k - 2].opname == "GET_ITER":
                    kind, name, ipath = pending_iter
                    if len(ipath) < MAX_DEPTH:
                        self.aliases.setdefault(ins.argval, []).append((kind, name, ipath + ITEMS))
                else:
                    self.stores[ins.argval] = self.stores.get(ins.argval, 0) + 1
                    self.aliases.setdefault(ins.argval, []).append(_ELSEWHERE)
                continue
            if op not in ("GET_ITER", "FOR_ITER"):
                pending_iter = None
            kind = _ROOTS.get(op)
            if kind is None:
                continue
            name = ins.argval
            if kind == "global":
                self.globals.add(name)
                if name in WHOLE_OBJECT_READERS:
                    whole = True
                    continue
            elif kind == "cell":
                if name not in self.free:
                    continue        # a cell of this frame: a local variable
                self.cells.add(name)
            elif not self.top:
                continue            # a nested function's own local
            root = (kind, name)
        if root is not None and whole:
            self.chains.add((root[0], root[1], path + (ALL_ATTRIBUTES,)))

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

    def _alias(self, local: str, chain: Tuple[str, str, Tuple]) -> None:
        """`local = <root>.<path>`: the local's reads are the path's reads."""
        self.stores[local] = self.stores.get(local, 0) + 1
        if chain[:2] != ("local", local):
            self.aliases.setdefault(local, []).append(chain)

    def resolved(self, params: FrozenSet[str]) -> set:
        """The chains, with those rooted at an alias (a local assigned only from access paths,
        or a parameter assigned so in the body) also rooted where the alias may point."""
        out = set(self.chains)
        for _ in range(3):          # an alias of an alias
            more = set()
            for kind, name, path in out:
                if kind != "local" or name in params and name not in self.aliases:
                    continue
                targets = self.aliases.get(name, ())
                if _ELSEWHERE in targets:
                    continue        # also assigned from a call or an expression: not followed
                for tkind, tname, tpath in targets:     # each path it may hold is guarded
                    full = (tpath + path)[:MAX_DEPTH]
                    if full:
                        more.add((tkind, tname, full))
            if more <= out:
                break
            out |= more
        return out


def _hashable(value: object) -> bool:
    return isinstance(value, (int, str, bytes, bool)) and not isinstance(value, float)


def _walk(code: types.CodeType, free: FrozenSet[str], top: bool,
          out: Tuple[set, set, set]) -> None:
    w = _Walk(free, top)
    w.run(code)
    globals_, cells, chains = out
    globals_ |= w.globals
    cells |= w.cells
    params = frozenset(parameter_names(code)) if top else frozenset()
    for kind, name, path in w.resolved(params):
        if kind == "local" and not top:
            continue
        chains.add((kind, name, path))
        # a path guards its prefixes too (an alias's own target is read)
        for n in range(1, len(path)):
            chains.add((kind, name, path[:n]))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _walk(const, free, False, out)


@lru_cache(maxsize=2048)
def reads_of(code: types.CodeType) -> CodeReads:
    """The outside reads of `code` (cached per code object)."""
    out: Tuple[set, set, set] = (set(), set(), set())
    _walk(code, frozenset(code.co_freevars), True, out)
    globals_, cells, chains = out
    return CodeReads(frozenset(globals_), frozenset(cells), frozenset(chains))


def parameter_names(code: types.CodeType) -> Tuple[str, ...]:
    """Names of the parameters of `code`, in order (positional, *args, keyword-only, **kw)."""
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    return code.co_varnames[:n]
