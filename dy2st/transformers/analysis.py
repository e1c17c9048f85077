"""Which names a statement reads and writes, and which are live after each if / loop.

Loop-carried names are those written in the body and read before being written there, in the
condition, or after the loop; names local to a body are not carried. Liveness is textual and
conservative: a name read anywhere later (or anywhere in an enclosing loop) is live."""
from __future__ import annotations

from typing import Dict, Iterable, List, NamedTuple, Optional, Set, Tuple

import gast

from . import anno
from .walk import CHILD_FIELDS, all_nodes, child_fields, child_nodes

# Methods that change the object they are called on: `x.append(v)` counts as a write of x.
MUTATING_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "update",
                    "setdefault", "popitem", "add", "discard", "sort", "reverse"}

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def target_names(target: gast.AST, out: Set[str]) -> None:
    if isinstance(target, gast.Name):
        out.add(target.id)
    elif isinstance(target, (gast.Tuple, gast.List)):
        for e in target.elts:
            target_names(e, out)
    elif isinstance(target, gast.Starred):
        target_names(target.value, out)


def _mutating_call_target(node: gast.AST) -> str:
    """x for a call `x.append(v)` or `x["key"].append(v)` (any mutating method), else ''."""
    func = node.func
    if type(func) is gast.Attribute and func.attr in MUTATING_METHODS:
        if type(func.value) is gast.Name:
            return func.value.id
        entry = _constant_entry(func.value)
        if entry is not None:
            return entry[0]
    return ""


def _constant_entry(node: gast.AST) -> Optional[tuple]:
    """(name, keys) for `name[k1][k2]...` with constant keys, else None."""
    keys = []
    while type(node) is gast.Subscript and type(node.slice) is gast.Constant and \
            isinstance(node.slice.value, (str, int)):
        keys.append(node.slice.value)
        node = node.value
    if keys and type(node) is gast.Name:
        return node.id, tuple(reversed(keys))
    return None


def mutated_names(stmts: Iterable[gast.AST]) -> Set[str]:
    """Names whose mutating methods the statements call (`x.append(v)`), nested scopes included."""
    out: Set[str] = set()
    for s in stmts:
        for node in all_nodes(s, contexts=False):
            if type(node) is gast.Call:
                name = _mutating_call_target(node)
                if name:
                    out.add(name)
    return out


_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def _assigned_targets(node: gast.AST) -> List[gast.AST]:
    """The binding targets of one node, [] when it binds none (calls are looked at apart)."""
    t = type(node)
    if t is gast.Assign or t is gast.Delete:
        return node.targets
    if t is gast.AugAssign or t is gast.AnnAssign or t is gast.NamedExpr or t is gast.For or \
            t is gast.AsyncFor:
        return [node.target]
    if t is gast.withitem:
        return [node.optional_vars] if node.optional_vars is not None else []
    if t is gast.ExceptHandler:
        return [node.name] if node.name is not None else []
    return []


def written_names(stmts: Iterable[gast.AST], mutations: bool = True) -> Set[str]:
    """Plain names bound by the statements (not inside nested scopes, except their `nonlocal`);
    with `mutations`, also names whose mutating methods are called (`x.append(v)`)."""
    out: Set[str] = set()
    stack = list(stmts)
    while stack:
        node = stack.pop()
        t = type(node)
        if t in _DEFS:
            out.add(node.name)
            # A nested helper's `nonlocal` names are writes of this scope.
            for sub in node.body:
                if type(sub) is gast.Nonlocal:
                    out.update(sub.names)
            continue
        if t is gast.Lambda:
            continue
        if t is gast.Call:
            name = _mutating_call_target(node) if mutations else ""
            if name:
                out.add(name)
            elif _callee_name(node.func) == "array_write":
                target = node.args[2] if len(node.args) > 2 else next(
                    (k.value for k in node.keywords if k.arg == "array"), None)
                if type(target) is gast.Name:
                    out.add(target.id)        # array_write(x, i, array=a) writes into a
        elif t is gast.alias:
            out.add((node.asname or node.name).split(".")[0])
        elif t is gast.Name:
            # binds nothing by itself; its children are a ctx and (a parameter's, in a nested
            # def, which is not looked into) annotation
            continue
        else:
            for target in _assigned_targets(node):
                target_names(target, out)
        stack.extend(child_nodes(node))
    return out


def declarations(fn: gast.FunctionDef) -> Tuple[Set[str], Set[str]]:
    """(nonlocal, global) names fn itself declares, in one walk of its statements (expressions
    and nested scopes hold no declarations of fn)."""
    nonlocals: Set[str] = set()
    globals_: Set[str] = set()
    stack = list(fn.body)
    while stack:
        n = stack.pop()
        t = type(n)
        if t is gast.Nonlocal:
            nonlocals.update(n.names)
        elif t is gast.Global:
            globals_.update(n.names)
        elif t not in _NO_DECLARATIONS and not isinstance(n, gast.expr):
            stack.extend(child_nodes(n))
    return nonlocals, globals_


_NO_DECLARATIONS = frozenset((gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef))


class FunctionFacts(NamedTuple):
    """What the if/loop passes read of a function before converting it, from one walk."""
    written: Set[str]      # written_names(fn.body, mutations=False)
    mutated: Set[str]      # mutated_names(fn.body)
    loads: Set[str]        # names loaded anywhere in fn (nested scopes and signature included)
    nonlocals: Set[str]    # declarations(fn)
    globals: Set[str]


def function_facts(fn: gast.FunctionDef) -> FunctionFacts:
    """written_names, mutated_names, the loaded names and the declarations of fn in one walk of
    its own scope (the rules of each, unchanged) and one of its nested scopes and signature,
    where only calls and loads count."""
    written: Set[str] = set()
    mutated: Set[str] = set()
    loads: Set[str] = set()
    nonlocals: Set[str] = set()
    globals_: Set[str] = set()
    nested: List[gast.AST] = []
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        t = type(node)
        if t is gast.Name:
            if type(node.ctx) is gast.Load:
                loads.add(node.id)
            if node.annotation is not None:
                nested.append(node.annotation)
            continue
        if t in _DEFS:
            written.add(node.name)
            for sub in node.body:             # a nested helper's nonlocal names: writes here
                if type(sub) is gast.Nonlocal:
                    written.update(sub.names)
            nested.append(node)
            continue
        if t is gast.Lambda:
            nested.append(node)
            continue
        if t is gast.Call:
            name = _mutating_call_target(node)
            if name:
                mutated.add(name)
            if _callee_name(node.func) == "array_write":
                target = node.args[2] if len(node.args) > 2 else next(
                    (k.value for k in node.keywords if k.arg == "array"), None)
                if type(target) is gast.Name:
                    written.add(target.id)
        elif t is gast.alias:
            written.add((node.asname or node.name).split(".")[0])
        elif t is gast.Nonlocal:
            nonlocals.update(node.names)
        elif t is gast.Global:
            globals_.update(node.names)
        else:
            for target in _assigned_targets(node):
                target_names(target, written)
        stack.extend(child_nodes(node))
    for root in nested:
        for n in all_nodes(root, contexts=False):
            t = type(n)
            if t is gast.Name:
                if type(n.ctx) is gast.Load:
                    loads.add(n.id)
            elif t is gast.Call:
                name = _mutating_call_target(n)
                if name:
                    mutated.add(name)
    fields = fn.__dict__
    for field in CHILD_FIELDS.get(type(fn)) or child_fields(type(fn)):
        if field != "body":               # the signature: its loads only
            value = fields.get(field)
            for part in value if type(value) is list else [value]:
                if isinstance(part, gast.AST):
                    loads.update(n.id for n in all_nodes(part, contexts=False)
                                 if type(n) is gast.Name and type(n.ctx) is gast.Load)
    return FunctionFacts(written, mutated, loads, nonlocals, globals_)


def _callee_name(func: gast.AST) -> str:
    if isinstance(func, gast.Name):
        return func.id
    if isinstance(func, gast.Attribute):
        return func.attr
    return ""


def written_attributes(stmts: Iterable[gast.AST]) -> List[str]:
    """Attribute targets like `self.x`, `st.total` or `d['k'].v` assigned by the statements (in
    order), as source text; those of an `if` or loop nested in them count too, though its
    conversion has moved them into generated branch and body functions."""
    found: List[str] = []
    stack = list(stmts)[::-1]         # pre-order, as written
    while stack:
        node = stack.pop()
        t = type(node)
        if t in _SCOPE_TYPES and not anno.getanno(node, anno.SKIP):
            continue
        if t is gast.Assign:
            targets = node.targets
        elif t is gast.AugAssign or t is gast.AnnAssign:
            targets = [node.target]
        else:
            targets = []
        for target in targets:
            for sub in (target.elts if type(target) in _DISPLAYS else [target]):
                dotted = dotted_name(sub) if type(sub) is gast.Attribute else ""
                # `y.stop_gradient = True` changes the tensor y in place (a `detach` y stands
                # for), which the `if` or loop carries as y: carried as a flag too, its merged
                # value would be set again after the `if`, on every path
                if dotted and dotted not in found and sub.attr != "stop_gradient":
                    found.append(dotted)
        # assignments are statements: expressions (lambdas included) hold none to look into
        stack.extend([c for c in child_nodes(node) if not isinstance(c, gast.expr)][::-1])
    return found


_SCOPE_TYPES = frozenset(_SCOPES)
_DISPLAYS = (gast.Tuple, gast.List)


def dotted_name(node: gast.AST) -> str:
    """`a.b.c`, `a[0].b` or `a['k'][1].b` as text; "" for other expressions, which a helper
    evaluating the text again might not find the same (calls, indices by names the code may
    rebind in between)."""
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr}" if base else ""
    if isinstance(node, gast.Subscript):
        base = dotted_name(node.value)
        index = node.slice
        if not (isinstance(index, gast.Constant) and type(index.value) in (int, str)):
            return ""
        return f"{base}[{index.value!r}]" if base else ""
    return ""


def read_names(node: gast.AST, calls: Optional[Set[str]] = None) -> Set[str]:
    """Every name loaded anywhere inside node (nested functions and lambdas included); with
    `calls`, the names called as `name(...)` are added to it in the same walk."""
    out: Set[str] = set()
    for n in all_nodes(node, contexts=False):
        t = type(n)
        if t is gast.Name:
            if type(n.ctx) is gast.Load:
                out.add(n.id)
        elif t is gast.AugAssign:
            if type(n.target) is gast.Name:
                out.add(n.target.id)
        elif t is gast.Nonlocal:
            out.update(n.names)   # a nested helper's nonlocal names are read back after it runs
        elif calls is not None and t is gast.Call and type(n.func) is gast.Name:
            calls.add(n.func.id)
    return out


def _reads_of(nodes: Iterable[gast.AST], reads: Dict[int, Set[str]]) -> Set[str]:
    out: Set[str] = set()
    for n in nodes:
        out |= _read(n, reads)
    return out


def _read(node: gast.AST, reads: Dict[int, Set[str]]) -> Set[str]:
    """read_names(node), once per node during one liveness analysis (the tree does not change
    meanwhile; a loop body is analysed twice, and nested loops more often), plus the outer
    names a nested function called there reads (`_Reads`)."""
    found = reads.get(id(node))
    if found is None:
        defs = getattr(reads, "defs", None)
        if defs:
            calls: Set[str] = set()
            found = read_names(node, calls)
            for name in calls & defs.keys():
                found = found | reads.closure_reads(name)
        else:
            found = read_names(node)
        reads[id(node)] = found
    return found


class _Reads(dict):
    """The per-analysis read cache, knowing the function's nested functions: a call of one
    reads the outer names its body reads (a closure sees their values when it is called, not
    where it is defined). What a nested function reads is worked out at its first direct call:
    generated loop and branch bodies are passed to helpers, never called, and cost nothing."""

    def __init__(self, defs: Dict[str, List[gast.FunctionDef]]) -> None:
        super().__init__()
        self.defs = defs
        self._free: Dict[str, Set[str]] = {}

    def closure_reads(self, name: str) -> Set[str]:
        found = self._free.get(name)
        if found is not None:
            return found
        self._free[name] = set()            # a recursive call reads nothing more
        found = set()
        for fdef in self.defs[name]:
            args = fdef.args
            own = {a.id for a in args.args + args.kwonlyargs + args.posonlyargs
                   if type(a) is gast.Name}
            own |= {a.id for a in (args.vararg, args.kwarg) if type(a) is gast.Name}
            declared = {x for st in fdef.body if type(st) is gast.Nonlocal for x in st.names}
            local = written_names(fdef.body, mutations=False) - declared
            calls: Set[str] = set()
            found |= read_names(fdef, calls) - own - local
            for callee in (calls & self.defs.keys()) - {name}:
                found |= self.closure_reads(callee)
        self._free[name] = found
        return found


def _nested_defs(stmts: List[gast.stmt], out: Dict[str, List[gast.FunctionDef]]) -> None:
    """The functions defined by statements of stmts, at any depth (generated accessors left
    out): a statement walk, not one over every expression."""
    for st in stmts:
        if type(st) in (gast.FunctionDef, gast.AsyncFunctionDef):
            if not anno.getanno(st, anno.ACCESSOR):
                out.setdefault(st.name, []).append(st)
            _nested_defs(st.body, out)
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(st, field, None)
            if type(inner) is list:
                _nested_defs(inner, out)
        for handler in getattr(st, "handlers", None) or ():
            _nested_defs(handler.body, out)


def live_in_block(stmts: List[gast.stmt], live_out: Set[str],
                  reads: Optional[Dict[int, Set[str]]] = None) -> Set[str]:
    reads = {} if reads is None else reads
    live = set(live_out)
    for s in reversed(stmts):
        live = live_in_stmt(s, live, reads)
    return live


def live_in_stmt(s: gast.stmt, live_out: Set[str],
                 reads: Optional[Dict[int, Set[str]]] = None) -> Set[str]:
    reads = {} if reads is None else reads
    anno.setanno(s, anno.LIVE_OUT, frozenset(live_out))
    if isinstance(s, gast.If):
        return _read(s.test, reads) | live_in_block(s.body, live_out, reads) | \
            live_in_block(s.orelse, live_out, reads)
    if isinstance(s, (gast.While, gast.For)):
        head = _read(s.test, reads) if isinstance(s, gast.While) else _read(s.iter, reads)
        after_else = live_in_block(s.orelse, live_out, reads)
        inner = set(live_out) | after_else | head
        body_in = live_in_block(s.body, inner, reads)
        body_in = live_in_block(s.body, inner | body_in, reads)   # a second round: back edge
        if isinstance(s, gast.For):
            targets: Set[str] = set()
            target_names(s.target, targets)
            body_in = body_in - targets
        anno.setanno(s, anno.BODY_LIVE_IN, frozenset(body_in))
        return inner | body_in
    if isinstance(s, (gast.Try, gast.With)):
        inner = set(live_out)
        for field in ("finalbody", "orelse", "body"):
            inner |= live_in_block(getattr(s, field, []) or [], live_out, reads)
        for h in getattr(s, "handlers", []) or []:
            inner |= live_in_block(h.body, live_out, reads)
        return inner | _reads_of(getattr(s, "items", []) or [], reads)
    if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef)):
        declared = {n for st in s.body if isinstance(st, gast.Nonlocal) for n in st.names}
        live_in_block(s.body, declared, reads)   # nonlocal names are read back by the caller
        return (set(live_out) - {s.name}) | _read(s, reads)
    kills: Set[str] = set()
    if isinstance(s, gast.Assign):
        for t in s.targets:
            if isinstance(t, gast.Name):
                kills.add(t.id)
    return (set(live_out) - kills) | _read(s, reads)


# A FunctionDef attribute: names whose objects the caller reads back after the function (a
# graph-break region's inputs it changes in place), live at its end as if read there
LIVE_AT_EXIT = "dy2st_live_at_exit"


def analyze_function(fn: gast.FunctionDef) -> None:
    """Annotate every statement of fn (nested functions included) with LIVE_OUT."""
    defs: Dict[str, List[gast.FunctionDef]] = {}
    _nested_defs(fn.body, defs)
    live_in_block(fn.body, set(getattr(fn, LIVE_AT_EXIT, ())), _Reads(defs) if defs else None)


def closure_reads(nodes: Iterable[gast.AST]) -> Set[str]:
    """Names read inside the lambdas and functions the user defines in `nodes` (not the helpers
    the converter writes, marked SKIP): such a closure reads the enclosing function's variable
    when it is called, not its value when it was made, so a loop or comprehension that makes
    it must keep that variable the function's own (Python's late binding)."""
    out: Set[str] = set()
    for root in nodes:
        for node in all_nodes(root, contexts=False):
            if isinstance(node, (gast.Lambda, gast.FunctionDef, gast.AsyncFunctionDef)) and \
                    not anno.getanno(node, anno.SKIP):
                a = node.args
                own = {x.id for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                       if isinstance(x, gast.Name)}
                out |= {n.id for n in all_nodes(node, contexts=False) if isinstance(n, gast.Name) and
                        isinstance(n.ctx, gast.Load)} - own
    return out
