"""Cut a function at its top-level statements: runs of statements that trace become region
functions (compiled), the statements holding a break (islands) stay Python in a driver."""
from __future__ import annotations

import ast
import copy
import types
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import gast
import numpy as np

from ...runtime.control_flow.cond import UndefinedVar
from ...transformers.analysis import LIVE_AT_EXIT, read_names, written_names
from ...transformers.gast_bridge import gast_to_ast
from ..transform import conversion_lock
from .closures import closure_islands, statements_around

REGIONS = "__dy2st_regions"
FEED = "__dy2st_feed"
UNBOUND = "__dy2st_unbound"
OUTPUT = "__dy2st_out_"
ARG = "__dy2st_arg_"


class FedScalar(np.ndarray):
    """A numpy float scalar made a 0-d array to enter a region as an input (fed, not baked in
    as a constant and guarded by value); `scalar()` gives the original back for eager runs."""

    stop_gradient = True        # read like a Tensor's by the gradient check of a call

    def scalar(self) -> Any:
        return np.asarray(self)[()]


def feed(value: Any) -> Any:
    return np.asarray(value).view(FedScalar) if isinstance(value, np.floating) else value


def unfeed(value: Any) -> Any:
    return value.scalar() if type(value) is FedScalar else value


@dataclass
class Region:
    """A run of top-level statements compiled as one StaticFunction."""
    index: int
    stmts: List[gast.stmt]
    params: List[str]            # live-in names (after the bound instance, if any)
    outputs: List[str]           # live-out names; empty when the region returns
    returns: bool                # ends the function with its own `return`
    plain: Optional[types.FunctionType] = None     # its eager twin (the Python statements)
    parsed: Optional[Tuple] = None                 # the tree handed to the converter
    eager: bool = False            # runs its Python statements (recompile limit, odd outputs)
    unbound: Set[str] = field(default_factory=set)   # params that may come without a value
    unset: Set[str] = field(default_factory=set)     # params that never have one here

    @property
    def first_line(self) -> int:
        return self.stmts[0].lineno


@dataclass
class Outline:
    """A function split into regions and islands, and the driver that runs them in order."""
    driver: types.FunctionType
    regions: List[Region] = field(default_factory=list)


_OPENABLE = (gast.If, gast.For, gast.While)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def _lines(s: gast.stmt) -> Tuple[int, int]:
    return s.lineno, s.end_lineno or s.lineno


def _header_end(s: gast.stmt) -> int:
    head = s.iter if isinstance(s, gast.For) else s.test
    return head.end_lineno or head.lineno


def locate(body: Sequence[gast.stmt], line: int) -> Optional[Tuple[str, gast.stmt, List[gast.stmt]]]:
    """Where `line` (block-relative) is: ("header", an if/for/while whose test or iterable
    holds it) or ("stmt", the innermost statement holding it), with the if/for/while
    statements around it, outermost first."""
    ancestors: List[gast.stmt] = []
    block = list(body)
    while True:
        s = next((s for s in block if _lines(s)[0] <= line <= _lines(s)[1]), None)
        if s is None:
            return ("stmt", ancestors[-1], ancestors[:-1]) if ancestors else None
        if isinstance(s, _OPENABLE):
            if line <= _header_end(s):
                return "header", s, ancestors
            ancestors.append(s)
            block = s.body + s.orelse
            continue
        return "stmt", s, ancestors


def _walk_scope(s: gast.AST, into_loops: bool = True):
    """Nodes of s, not entering nested functions or classes (nor loops unless into_loops)."""
    stack = list(gast.iter_child_nodes(s))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, _SCOPES) or (not into_loops and isinstance(n, (gast.For, gast.While))):
            continue
        stack.extend(gast.iter_child_nodes(n))


def _jumps(s: gast.stmt) -> bool:
    """s holds a `break` / `continue` of the loop around it."""
    if isinstance(s, (gast.Break, gast.Continue)):
        return True
    if isinstance(s, (gast.For, gast.While)):
        return any(isinstance(n, (gast.Break, gast.Continue)) for o in s.orelse
                   for n in [o, *_walk_scope(o, into_loops=False)])
    return any(isinstance(n, (gast.Break, gast.Continue)) for n in _walk_scope(s, into_loops=False))


def _nested_return(s: gast.stmt) -> bool:
    return not isinstance(s, gast.Return) and any(isinstance(n, gast.Return) for n in _walk_scope(s))


def _is_print(s: gast.stmt) -> bool:
    """A `print(...)` statement: once a function breaks anyway, it runs as Python, which prints
    what eager code prints on every call (a region would print its traced values)."""
    return (isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and
            isinstance(s.value.func, gast.Name) and s.value.func.id == "print")


def _names(stmts: Sequence[gast.stmt]) -> Tuple[Set[str], Set[str]]:
    reads: Set[str] = set()
    for s in stmts:
        reads |= read_names(s)
    return reads, written_names(stmts, mutations=False)


def _live_in(stmts: Sequence[gast.stmt]) -> Set[str]:
    """Names the statements read before they assign them: a name assigned first (`k = ...`,
    at the top of the run) is not taken from before, where it may have no value on this path."""
    assigned: Set[str] = set()
    live: Set[str] = set()
    for s in stmts:
        live |= read_names(s) - assigned
        assigned |= _assigned_first([s])
    return live


def _assigned_first(stmts: Sequence[gast.stmt]) -> Set[str]:
    """Names the run's own top-level assignments bind (on every path through it)."""
    return {n for s in stmts if isinstance(s, (gast.Assign, gast.AnnAssign))
            for n in written_names([s], mutations=False)}


def _header_reads(s: gast.stmt) -> Set[str]:
    return read_names(s.iter if isinstance(s, gast.For) else s.test)


class _Outliner:
    """Builds the driver's body and the regions, block by block."""

    def __init__(self, fdef: gast.FunctionDef, parsed: Tuple, islands: Set[int],
                 opened: Set[int], fn: types.FunctionType, bound: bool) -> None:
        self.fdef, self.parsed, self.fn = fdef, parsed, fn
        self.islands, self.opened = islands, opened
        a = fdef.args
        params = [x.id for x in a.posonlyargs + a.args + a.kwonlyargs]
        params += [x.id for x in (a.vararg, a.kwarg) if x is not None]
        self.params = params
        self.self_name = params[0] if bound and params else None
        declared = {n for s in gast.walk(fdef) if isinstance(s, (gast.Global, gast.Nonlocal))
                    for n in s.names}
        self.scope_decls = [s for s in fdef.body if isinstance(s, (gast.Global, gast.Nonlocal))]
        self.local = (set(params) | written_names(fdef.body, mutations=False)) - declared
        self.declared = declared
        closures = closure_islands(fdef.body, self.local)
        self.islands = islands | closures
        self.opened = opened | statements_around(fdef.body, closures)
        self.guarded = _plain_outer_values(fdef, fn, self.local | declared)
        self.regions: List[Region] = []
        self.from_islands: Set[str] = set()
        # names with a value on every path so far (the function's parameters and what its
        # top-level assignments bind); a region's other live-in names may have none
        self.bound: Set[str] = set(params)
        self.steps: List[Tuple[str, List[int]]] = []

    # -- what each statement becomes --------------------------------------------------------
    def _kinds(self, stmts: Sequence[gast.stmt], in_loop: bool, top: bool) -> List[str]:
        kinds = []
        for s in stmts:
            if id(s) in self.islands or _is_print(s) or isinstance(
                    s, (gast.Break, gast.Continue, gast.Global, gast.Nonlocal)):
                kinds.append("python")
            elif id(s) in self.opened or (in_loop and _jumps(s)) or \
                    (not top and _nested_return(s)) or \
                    written_names([s], mutations=False) & self.declared:
                # a global / nonlocal write is a side effect a program would not repeat
                kinds.append("open" if isinstance(s, _OPENABLE) else "python")
            else:
                kinds.append("region")
        if top:
            # a region cannot end the function early unless nothing but regions follow it
            for i in range(len(stmts) - 2, -1, -1):
                if kinds[i] == "region" and _nested_return(stmts[i]) and \
                        any(k != "region" for k in kinds[i + 1:]):
                    kinds[i] = "open" if isinstance(stmts[i], _OPENABLE) else "python"
        return kinds

    # -- emitting ---------------------------------------------------------------------------
    def block(self, stmts: Sequence[gast.stmt], defined: Set[str], in_loop: bool,
              top: bool = False) -> List[ast.stmt]:
        kinds = self._kinds(stmts, in_loop, top)
        out: List[ast.stmt] = []
        run: List[gast.stmt] = []
        index = {id(s): i for i, s in enumerate(stmts)}

        bound_at_run = set(self.bound)

        def flush(tail: bool) -> None:
            if run:
                out.extend(self._region(list(run), defined, in_loop, top and tail,
                                        bound_at_run))
                if top:
                    self.steps.append(("region", [index[id(s)] for s in run]))
                run.clear()

        for k, (s, kind) in enumerate(zip(stmts, kinds)):
            if kind == "region" and not run:
                bound_at_run = set(self.bound)
            if top:
                self._note_bound(s)
            if kind == "region":
                run.append(s)
                if isinstance(s, gast.Return):
                    break                           # what follows a return never runs
                continue
            flush(False)
            if top:
                self.steps.append(("island" if kind == "python" else "open", [k]))
            if kind == "python":
                if s not in self.scope_decls:
                    out.append(_to_ast(s))
                written = written_names([s], mutations=False)
                defined |= written
                self.from_islands |= written
            else:
                out.append(self._opened(s, defined, in_loop))
        flush(True)
        return out

    def _note_bound(self, s: gast.stmt) -> None:
        """A top-level statement's plain assignments bind their names on every path after it."""
        if isinstance(s, gast.Delete):
            self.bound -= written_names([s], mutations=False)
        self.bound |= _bound_by(s)

    def _opened(self, s: gast.stmt, defined: Set[str], in_loop: bool) -> ast.stmt:
        """The statement's header as Python, its bodies outlined in turn."""
        if isinstance(s, gast.For):
            header = gast.For(target=copy.deepcopy(s.target), iter=copy.deepcopy(s.iter),
                              body=[], orelse=[], type_comment=None)
            targets = written_names([gast.Assign(targets=[s.target], value=s.iter,
                                                 type_comment=None)], mutations=False)
            self.from_islands |= targets
            inside = defined | targets
        else:
            cls = gast.If if isinstance(s, gast.If) else gast.While
            header = cls(test=copy.deepcopy(s.test), body=[], orelse=[])
            inside = set(defined)
        loop = not isinstance(s, gast.If)
        if loop:    # a later turn sees what an earlier one assigned
            inside |= written_names(s.body, mutations=False) & self.local
        tree = _to_ast(header)
        body_defined = set(inside)
        tree.body = self.block(s.body, body_defined, in_loop or loop) or [ast.Pass()]
        else_defined = set(body_defined if loop else inside)
        tree.orelse = self.block(s.orelse, else_defined, in_loop)
        defined |= body_defined | else_defined
        tree.lineno, tree.end_lineno = s.lineno, s.end_lineno or s.lineno
        tree.col_offset, tree.end_col_offset = 0, 0
        return ast.fix_missing_locations(tree)

    def _region(self, stmts: List[gast.stmt], defined: Set[str], in_loop: bool,
                tail: bool, bound: Set[str]) -> List[ast.stmt]:
        reads, writes = _names(stmts)
        returns = isinstance(stmts[-1], gast.Return) or (
            tail and any(_nested_return(s) for s in stmts))
        if returns:
            outs: List[str] = []
        else:
            later = _reads_excluding(self.fdef.body, stmts)
            if in_loop:
                later |= reads                    # read again on the next turn
            outs = sorted(writes & self.local & later)
        # an output the statements may leave as it was (assigned on one path of an `if`) is
        # handed through, so it comes in too (fuzz seed 8000322: `if not FLAG: h = ...`)
        live = (_live_in(stmts) | (set(outs) - _assigned_first(stmts))) & self.local
        # a local no earlier statement assigns has no value here: it enters as an UndefinedVar,
        # so a read fails with eager's UnboundLocalError, not as a global (fuzz seed 8000536)
        unset = live - defined - {self.self_name}
        ins = sorted(((live & defined) | unset | (reads & self.guarded)) - {self.self_name})
        region = Region(len(self.regions), stmts, ins, outs, returns,
                        unbound=set(ins) - bound - self.guarded, unset=unset)
        region.parsed, region.plain = _region_function(self.fdef, region, self.parsed, self.fn,
                                                       self.self_name, self.scope_decls)
        self.regions.append(region)
        call = _region_call(region, stmts, self.from_islands)
        defined |= writes
        self.from_islands -= writes
        return call


_PLAIN = (int, float, bool, str, bytes, type(None), tuple)


def _plain_outer_values(fdef: gast.FunctionDef, fn: types.FunctionType, own: Set[str]) -> Set[str]:
    """Globals and closure variables the function reads that hold plain Python values: regions
    take them as arguments, so their values are guards (a changed flag traces again)."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    out = set()
    for name in read_names(fdef) - own:
        if name in cells:
            try:
                value = cells[name].cell_contents
            except ValueError:
                continue
        elif name in fn.__globals__:
            value = fn.__globals__[name]
        else:
            continue
        if type(value) in _PLAIN:
            out.add(name)
    return out


def _reads_excluding(stmts: Sequence[gast.stmt], skip: List[gast.stmt]) -> Set[str]:
    """Names read by the statements outside `skip` (a run of statements somewhere inside)."""
    first, last = _lines(skip[0])[0], _lines(skip[-1])[1]
    ids = {id(s) for s in skip}
    out: Set[str] = set()
    for s in stmts:
        if id(s) in ids:
            continue
        lo, hi = _lines(s)
        if isinstance(s, _OPENABLE) and lo <= first and last <= hi:
            out |= _header_reads(s)
            out |= _reads_excluding(s.body + s.orelse, skip)
        else:
            out |= read_names(s)
    return out


def build(fdef: gast.FunctionDef, parsed: Tuple, islands: Set[int], opened: Set[int],
          fn: types.FunctionType, bound: bool) -> Tuple[Outline, List[Tuple[str, List[int]]]]:
    """The outline of fdef (the gast tree of fn): `islands` and `opened` hold the ids of the
    statements that stay Python and of the if/for/while statements whose header stays Python
    while their bodies are outlined."""
    _node, _nodes, lines, start, filename = parsed
    with conversion_lock:           # it parses and compiles ast trees (see transform)
        outliner = _Outliner(fdef, parsed, islands, opened, fn, bound)
        body = outliner.block(fdef.body, set(outliner.params), in_loop=False, top=True)
        driver = _driver_function(fdef, body, outliner.scope_decls, start, filename, fn)
    return Outline(driver, outliner.regions), outliner.steps


def _to_ast(node: gast.AST) -> ast.AST:
    return gast_to_ast(copy.deepcopy(node))


def _name(id_: str, store: bool = False) -> gast.Name:
    return gast.Name(id=id_, ctx=gast.Store() if store else gast.Load(), annotation=None,
                     type_comment=None)


def _located(node: gast.AST, line: int, end: Optional[int] = None) -> gast.AST:
    for n in gast.walk(node):
        n.lineno, n.end_lineno = line, end or line
        n.col_offset, n.end_col_offset = 0, 0
    return node


def _region_function(fdef: gast.FunctionDef, region: Region, parsed: Tuple,
                     fn: types.FunctionType, self_name: Optional[str],
                     scope_decls: List[gast.stmt]) -> Tuple[Tuple, types.FunctionType]:
    """The region as `def <f's name>(self?, *ins): stmts; return outs` in gast (for the
    converter, with the user's line numbers) and as a plain Python function."""
    _node, _nodes, lines, start, filename = parsed
    names = ([self_name] if self_name else []) + [ARG + n if n in region.unbound else n
                                                  for n in region.params]
    args = gast.arguments(args=[_name(n, store=False) for n in names], posonlyargs=[],
                          vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    for a in args.args:
        a.ctx = gast.Param()
    body = [copy.deepcopy(s) for s in scope_decls]
    # a parameter that may come without a value (an UndefinedVar) is a local assigned on the
    # other path only: a read fails at its own line (UnboundLocalError), as in eager code
    for n in sorted(region.unbound):
        source = f"if type({ARG}{n}) is not {UNBOUND}:\n    {n} = {ARG}{n}\n"
        body.append(_located(gast.ast_to_gast(ast.parse(source).body[0]), region.first_line))
    body += [copy.deepcopy(s) for s in region.stmts if s not in scope_decls]
    last = region.stmts[-1]
    end = last.end_lineno or last.lineno
    plain_body = list(body)
    if not region.returns:
        value = gast.Tuple(elts=[_name(n) for n in region.outputs], ctx=gast.Load())
        ret = _located(gast.Return(value=value), end)
        # an output may have no value on the path taken (`if flag: z = ...`): it leaves as an
        # UndefinedVar, and the read that needs it fails at its own line, as in eager code
        ret.dy2st_region_outputs = True         # (unbound_reads leaves it unchecked)
        body.append(ret)
        plain_body = [copy.deepcopy(s) for s in body[:-1]] + _unchecked_return(region, end)
    node = gast.FunctionDef(name=fdef.name, args=args, body=body, decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    # the caller reads back the inputs the region changes in place, so a tensor `if` or loop
    # that changes one (or makes it an alias) must merge it, read later or not (fuzz seed
    # 9000854: `d['a'] = h; h[0] += s` under a tensor `if`, `d['a'][0] += s` in a later region)
    setattr(node, LIVE_AT_EXIT, _changed_in_place(region.stmts) & set(region.params))
    _located_header(node, region.first_line)
    nodes = list(gast.walk(node))
    plain_node = copy.deepcopy(node)
    plain_node.body = plain_body
    plain = _compile_function(plain_node, start, filename, fn,
                              f"{fn.__qualname__}.<region {region.index}>",
                              extra={UNBOUND: UndefinedVar})
    return (node, nodes, lines, start, filename), plain


def _root_name(node: gast.AST) -> Optional[str]:
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _changed_in_place(stmts: Sequence[gast.stmt]) -> Set[str]:
    """Names whose objects the statements may change in place: item and attribute stores
    (`h[0] += v`, `d['a'] = h`), in-place methods (`h.add_(v)`) and mutating calls."""
    out = written_names(stmts, mutations=True) - written_names(stmts, mutations=False)
    for s in stmts:
        for n in [s, *_walk_scope(s)]:
            targets: List[gast.AST] = []
            if isinstance(n, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
                targets = n.targets if isinstance(n, gast.Assign) else [n.target]
            elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                    n.func.attr.endswith("_") and not n.func.attr.startswith("__"):
                targets = [n.func]
            for t in targets:
                for e in (t.elts if isinstance(t, (gast.Tuple, gast.List)) else [t]):
                    if isinstance(e, (gast.Subscript, gast.Attribute)):
                        name = _root_name(e)
                        if name is not None:
                            out.add(name)
    return out


def _unchecked_return(region: Region, line: int) -> List[gast.stmt]:
    """The eager twin's `return outs`, an output without a value an UndefinedVar."""
    out: List[gast.stmt] = []
    for n in region.outputs:
        source = (f"try:\n    {OUTPUT}{n} = {n}\nexcept NameError:\n"
                  f"    {OUTPUT}{n} = {UNBOUND}({n!r})\n")
        out.append(gast.ast_to_gast(ast.parse(source).body[0]))
    value = gast.Tuple(elts=[_name(OUTPUT + n) for n in region.outputs], ctx=gast.Load())
    out.append(gast.Return(value=value))
    return [_located(s, line) for s in out]


def _located_header(node: gast.AST, line: int) -> None:
    node.lineno = node.end_lineno = line
    node.col_offset = node.end_col_offset = 0
    for n in gast.walk(node.args):
        n.lineno = n.end_lineno = line
        n.col_offset = n.end_col_offset = 0


def _call(fn: str, *args: gast.expr) -> gast.Call:
    return gast.Call(func=_name(fn), args=list(args), keywords=[])


def _region_call(region: Region, stmts: Sequence[gast.stmt],
                 from_islands: Set[str]) -> List[ast.stmt]:
    """`outs, = __dy2st_regions[k](*ins)` (or `return ...`) at the region's first line; the
    region is bound to the instance, so `self` is not passed. A live-in name that may have no
    value on the path taken enters as an UndefinedVar: only a read of it in the region fails,
    at the reading line, as in eager code (fuzz seed 2001143: `if len(acc) > 2: g = g + z`)."""
    callee = gast.Subscript(value=_name(REGIONS), slice=gast.Constant(value=region.index, kind=None),
                            ctx=gast.Load())
    out: List[gast.stmt] = []
    args = []
    for n in region.params:
        arg = _name(n)
        if n in region.unset:
            arg = _call(UNBOUND, gast.Constant(value=n, kind=None))
        elif n in region.unbound:
            source = (f"try:\n    {ARG}{n} = {n}\nexcept NameError:\n"
                      f"    {ARG}{n} = {UNBOUND}({n!r})\n")
            out.append(gast.ast_to_gast(ast.parse(source).body[0]))
            arg = _name(ARG + n)
        args.append(_call(FEED, arg) if n in from_islands else arg)
    call = gast.Call(func=callee, args=args, keywords=[])
    if region.returns:
        out.append(gast.Return(value=call))
    else:
        target = gast.Tuple(elts=[_name(n, store=True) for n in region.outputs], ctx=gast.Store())
        out.append(gast.Assign(targets=[target], value=call, type_comment=None))
    return [_to_ast(_located(s, stmts[0].lineno)) for s in out]


def _bound_by(s: gast.stmt) -> Set[str]:
    """The names a plain assignment statement binds (on every path through it)."""
    if isinstance(s, (gast.Assign, gast.AnnAssign, gast.AugAssign)):
        return written_names([s], mutations=False)
    return set()


def _driver_function(fdef: gast.FunctionDef, body: List[ast.stmt], scope_decls, start: int,
                     filename: str, fn: types.FunctionType) -> types.FunctionType:
    node = copy.deepcopy(fdef)
    node.decorator_list, node.returns = [], None
    node.body = []
    tree = gast_to_ast(node)
    tree.body = [_to_ast(s) for s in scope_decls] + body or [ast.Pass()]
    return _compile_ast_function(tree, start, filename, fn, fn.__qualname__,
                                 extra={REGIONS: None, FEED: feed, UNBOUND: UndefinedVar})


def _compile_function(node: gast.FunctionDef, start: int, filename: str,
                      fn: types.FunctionType, qualname: str,
                      extra: Optional[Dict[str, Any]] = None) -> types.FunctionType:
    return _compile_ast_function(gast_to_ast(node), start, filename, fn, qualname, extra)


def _compile_ast_function(tree: ast.FunctionDef, start: int, filename: str,
                          fn: types.FunctionType, qualname: str,
                          extra: Optional[Dict[str, Any]] = None) -> types.FunctionType:
    """Compile `tree` at the user's file and lines, with fn's globals and closure cells (and
    `extra` names as fresh cells holding the given values)."""
    extra = extra or {}
    freevars = tuple(fn.__code__.co_freevars) + tuple(extra)
    with conversion_lock:
        factory = ast.parse(f"def __dy2st_outline({', '.join(freevars)}):\n    pass\n").body[0]
        # compiled under a name of its own: under the user's name, a recursive call in the body
        # would read the factory's local (a closure cell no function has) instead of the global
        name, tree.name = tree.name, _COMPILED_NAME
        factory.body = [tree, ast.Return(value=ast.Name(id=tree.name, ctx=ast.Load()))]
        module = ast.Module(body=[factory], type_ignores=[])
        ast.fix_missing_locations(module)
        ast.increment_lineno(tree, start - 1)
        code = compile(module, filename, "exec")
        tree.name = name
    outer = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in outer.co_consts if isinstance(c, types.CodeType) and
                 c.co_name == _COMPILED_NAME)
    inner = _renamed(inner, name)
    original = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells = tuple(original[n] if n in original else types.CellType(extra[n])
                  for n in inner.co_freevars)
    new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, cells)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = qualname
    return new


_COMPILED_NAME = "__dy2st_outlined"


def _renamed(code: types.CodeType, name: str) -> types.CodeType:
    """code under the user's function name again (tracebacks and break reports show it)."""
    if hasattr(code, "co_qualname"):
        return code.replace(co_name=name, co_qualname=name)
    return code.replace(co_name=name)


def set_cell(fn: types.FunctionType, name: str, value: Any) -> None:
    """Fill the free variable `name` of a function compiled by this module."""
    if name in fn.__code__.co_freevars:
        fn.__closure__[fn.__code__.co_freevars.index(name)].cell_contents = value
