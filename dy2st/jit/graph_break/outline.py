"""Cut a function at its top-level statements: runs of statements that trace become region
functions (compiled), the statements holding a break (islands) stay Python in a driver."""
from __future__ import annotations

import ast
import copy
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

import gast
import numpy as np

from ...transformers.analysis import read_names, written_names
from ...transformers.gast_bridge import gast_to_ast

REGIONS = "__dy2st_regions"
FEED = "__dy2st_feed"


class FedScalar(np.ndarray):
    """A numpy float scalar made a 0-d array to enter a region as an input (fed, not baked in
    as a constant and guarded by value); `scalar()` gives the original back for eager runs."""

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

    @property
    def first_line(self) -> int:
        return self.stmts[0].lineno


@dataclass
class Outline:
    """A function split into regions and islands, and the driver that runs them in order."""
    driver: types.FunctionType
    regions: List[Region] = field(default_factory=list)


def statement_at(body: Sequence[gast.stmt], line: int) -> Optional[int]:
    """Index of the top-level statement whose lines hold `line` (block-relative)."""
    for i, s in enumerate(body):
        if s.lineno <= line <= (s.end_lineno or s.lineno):
            return i
    return None


def _returns_inside(s: gast.stmt) -> bool:
    stack = [s]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Return):
            return True
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)) \
                and n is not s:
            continue
        stack.extend(gast.iter_child_nodes(n))
    return False


def _is_print(s: gast.stmt) -> bool:
    """A top-level `print(...)`: once a function breaks anyway, it runs as Python, which prints
    what eager code prints on every call (a region would print its traced values)."""
    return (isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and
            isinstance(s.value.func, gast.Name) and s.value.func.id == "print")


def plan(body: Sequence[gast.stmt], islands: Set[int]) -> List[Tuple[str, List[int]]]:
    """[("region" | "island", statement indices)] in order. A statement that may `return` from
    the middle of the function goes to a region only when everything after it does too
    (a region cannot end the function early); otherwise it joins the islands."""
    islands = set(islands) | {i for i, s in enumerate(body) if _is_print(s)}
    n = len(body)
    changed = True
    while changed:
        changed = False
        last_island = max(islands) if islands else -1
        for i in range(n):
            if i in islands or i == n - 1:
                continue
            if i < last_island and _returns_inside(body[i]):
                islands.add(i)
                changed = True
    out: List[Tuple[str, List[int]]] = []
    for i in range(n):
        kind = "island" if i in islands else "region"
        if out and out[-1][0] == kind == "region":
            out[-1][1].append(i)
        else:
            out.append((kind, [i]))
    return out


def _names(stmts: Sequence[gast.stmt]) -> Tuple[Set[str], Set[str]]:
    reads: Set[str] = set()
    for s in stmts:
        reads |= read_names(s)
    return reads, written_names(stmts, mutations=False)


def build(fdef: gast.FunctionDef, parsed: Tuple, islands: Set[int], fn: types.FunctionType,
          bound: bool) -> Tuple[Outline, List[Tuple[str, List[int]]]]:
    """The outline of fdef (the gast tree of fn) with the given island statements."""
    _node, _nodes, lines, start, filename = parsed
    body = list(fdef.body)
    a = fdef.args
    params = [x.id for x in a.posonlyargs + a.args + a.kwonlyargs]
    params += [x.id for x in (a.vararg, a.kwarg) if x is not None]
    self_name = params[0] if bound and params else None
    declared = {n for s in gast.walk(fdef) if isinstance(s, (gast.Global, gast.Nonlocal))
                for n in s.names}
    scope_decls = [s for s in body if isinstance(s, (gast.Global, gast.Nonlocal))]
    local = (set(params) | written_names(body, mutations=False)) - declared
    steps = plan(body, islands)
    reads_after: List[Set[str]] = [set() for _ in steps]
    acc: Set[str] = set()
    for k in range(len(steps) - 1, -1, -1):
        reads_after[k] = set(acc)
        acc |= _names([body[i] for i in steps[k][1]])[0]
    defined: Set[str] = set(params)
    from_islands: Set[str] = set()
    regions: List[Region] = []
    driver_body: List[ast.stmt] = []
    for k, (kind, idx) in enumerate(steps):
        stmts = [body[i] for i in idx]
        reads, writes = _names(stmts)
        if kind == "island":
            driver_body.extend(_to_ast(s) for s in stmts if s not in scope_decls)
            defined |= writes
            from_islands |= writes
            continue
        returns = _returns_inside(stmts[-1]) or any(_returns_inside(s) for s in stmts)
        ins = sorted((reads & local & defined) - {self_name})
        outs = [] if returns and k == len(steps) - 1 else sorted(writes & local & reads_after[k])
        returns = returns and k == len(steps) - 1
        region = Region(len(regions), stmts, ins, outs, returns)
        region.parsed, region.plain = _region_function(fdef, region, parsed, fn, self_name,
                                                       scope_decls)
        regions.append(region)
        driver_body.extend(_region_call(region, stmts, from_islands))
        defined |= writes
        from_islands -= writes
    driver = _driver_function(fdef, driver_body, scope_decls, start, filename, fn)
    return Outline(driver, regions), steps


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
    names = ([self_name] if self_name else []) + region.params
    args = gast.arguments(args=[_name(n, store=False) for n in names], posonlyargs=[],
                          vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    for a in args.args:
        a.ctx = gast.Param()
    body = [copy.deepcopy(s) for s in scope_decls]
    body += [copy.deepcopy(s) for s in region.stmts if s not in scope_decls]
    last = region.stmts[-1]
    if not region.returns:
        value = gast.Tuple(elts=[_name(n) for n in region.outputs], ctx=gast.Load())
        body.append(_located(gast.Return(value=value), last.end_lineno or last.lineno))
    node = gast.FunctionDef(name=fdef.name, args=args, body=body, decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    _located_header(node, region.first_line)
    nodes = list(gast.walk(node))
    plain = _compile_function(copy.deepcopy(node), start, filename, fn,
                              f"{fn.__qualname__}.<region {region.index}>")
    return (node, nodes, lines, start, filename), plain


def _located_header(node: gast.AST, line: int) -> None:
    node.lineno = node.end_lineno = line
    node.col_offset = node.end_col_offset = 0
    for n in gast.walk(node.args):
        n.lineno = n.end_lineno = line
        n.col_offset = n.end_col_offset = 0


def _call(fn: str, *args: gast.expr) -> gast.Call:
    return gast.Call(func=_name(fn), args=list(args), keywords=[])


def _region_call(region: Region, stmts: Sequence[gast.stmt], from_islands: Set[str]) -> List[ast.stmt]:
    """`outs, = __dy2st_regions[k](*ins)` (or `return ...`) at the region's first line; the
    region is bound to the instance, so `self` is not passed."""
    callee = gast.Subscript(value=_name(REGIONS), slice=gast.Constant(value=region.index, kind=None),
                            ctx=gast.Load())
    args = [_call(FEED, _name(n)) if n in from_islands else _name(n) for n in region.params]
    call = gast.Call(func=callee, args=args, keywords=[])
    if region.returns:
        out: List[gast.stmt] = [gast.Return(value=call)]
    else:
        target = gast.Tuple(elts=[_name(n, store=True) for n in region.outputs], ctx=gast.Store())
        out = [gast.Assign(targets=[target], value=call, type_comment=None)]
    return [_to_ast(_located(s, stmts[0].lineno)) for s in out]


def _driver_function(fdef: gast.FunctionDef, body: List[ast.stmt], scope_decls, start: int,
                     filename: str, fn: types.FunctionType) -> types.FunctionType:
    node = copy.deepcopy(fdef)
    node.decorator_list, node.returns = [], None
    node.body = []
    tree = gast_to_ast(node)
    tree.body = [_to_ast(s) for s in scope_decls] + body or [ast.Pass()]
    return _compile_ast_function(tree, start, filename, fn, fn.__qualname__,
                                 extra={REGIONS: None, FEED: feed})


def _compile_function(node: gast.FunctionDef, start: int, filename: str,
                      fn: types.FunctionType, qualname: str) -> types.FunctionType:
    return _compile_ast_function(gast_to_ast(node), start, filename, fn, qualname)


def _compile_ast_function(tree: ast.FunctionDef, start: int, filename: str,
                          fn: types.FunctionType, qualname: str,
                          extra: Optional[Dict[str, Any]] = None) -> types.FunctionType:
    """Compile `tree` at the user's file and lines, with fn's globals and closure cells (and
    `extra` names as fresh cells holding the given values)."""
    extra = extra or {}
    freevars = tuple(fn.__code__.co_freevars) + tuple(extra)
    factory = ast.parse(f"def __dy2st_outline({', '.join(freevars)}):\n    pass\n").body[0]
    factory.body = [tree, ast.Return(value=ast.Name(id=tree.name, ctx=ast.Load()))]
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(tree, start - 1)
    code = compile(module, filename, "exec")
    outer = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in outer.co_consts if isinstance(c, types.CodeType) and c.co_name == tree.name)
    original = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells = tuple(original[n] if n in original else types.CellType(extra[n])
                  for n in inner.co_freevars)
    new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, cells)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = qualname
    return new


def set_cell(fn: types.FunctionType, name: str, value: Any) -> None:
    """Fill the free variable `name` of a function compiled by this module."""
    if name in fn.__code__.co_freevars:
        fn.__closure__[fn.__code__.co_freevars.index(name)].cell_contents = value
