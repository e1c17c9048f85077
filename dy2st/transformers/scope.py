"""Shared by the if and loop passes: helper functions that read and write the converted
statement's names (`get_args` / `set_args`), and `UndefinedVar` bindings that make those names
locals of the enclosing function so that helpers can declare them nonlocal."""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import gast

from . import analysis, anno, templates
from .base import Transformer
from .walk import all_nodes, all_statements, child_nodes


def params_of(fn: gast.FunctionDef) -> Set[str]:
    a = fn.args
    names = [x.id for x in a.posonlyargs + a.args + a.kwonlyargs if isinstance(x, gast.Name)]
    for extra in (a.vararg, a.kwarg):
        if extra is not None:
            names.append(extra.id)
    return set(names)


def declared(fn: gast.FunctionDef, kind: Any) -> Set[str]:
    """Names fn itself declares `nonlocal` / `global` (kind: gast.Nonlocal, gast.Global or
    both as a tuple; nested scopes are not looked into)."""
    nonlocals, globals_ = analysis.declarations(fn)
    if kind is gast.Nonlocal:
        return nonlocals
    if kind is gast.Global:
        return globals_
    return nonlocals | globals_


_HELPER_CALLS = {"IfElse", "While", "For"}
_HELPER_DEF = re.compile(r"(true_fn|false_fn|while_cond|while_body|for_body)_\d+$")


def _assigned_before_use(fn: gast.FunctionDef, names: Set[str]) -> Set[str]:
    """Names that a top-level statement of fn assigns before any control-flow helper call that
    reads or writes them runs (such names need no UndefinedVar binding)."""
    last = max((k for k, stmt in enumerate(fn.body) if isinstance(stmt, gast.Assign) and any(
        isinstance(t, gast.Name) and t.id in names for t in stmt.targets)), default=-1)
    assigned: Set[str] = set()
    used: Set[str] = set()
    # statements after the last such assignment cannot change the answer: not walked
    for stmt in fn.body[:last + 1]:
        used |= _helper_reads(stmt) & names
        if not isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef)):
            for node in all_nodes(stmt, contexts=False):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                        node.func.attr in _HELPER_CALLS and isinstance(node.func.value, gast.Name) \
                        and node.func.value.id == "_jst":
                    for arg in node.args:
                        if isinstance(arg, gast.Tuple):
                            used |= {e.value for e in arg.elts if isinstance(e, gast.Constant)}
        if isinstance(stmt, gast.Assign):
            for t in stmt.targets:
                if isinstance(t, gast.Name) and t.id in names and t.id not in used:
                    assigned.add(t.id)
    return assigned


def _helper_reads(stmt: gast.AST) -> Set[str]:
    """The names that the control-flow helpers written by the converter in stmt read without
    binding them: a local of the user's function read there before it is assigned must fail as
    unassigned (UnboundLocalError), not as a free variable without a value (NameError). One
    walk: each scope's nodes are seen once, nested scopes are walked on their own."""
    found: Set[str] = set()
    scopes: List[gast.AST] = [stmt]
    while scopes:
        scope = scopes.pop()
        t = type(scope)
        is_def = t is gast.FunctionDef or t is gast.AsyncFunctionDef
        helper = is_def and _HELPER_DEF.match(scope.name) is not None
        loads: Set[str] = set()
        bound: Set[str] = set(params_of(scope)) if helper else set()
        stack = list(scope.body) if is_def else \
            list(child_nodes(scope)) if t in _OTHER_SCOPES else [scope]
        while stack:
            n = stack.pop()
            tn = type(n)
            if tn is gast.Name:
                (loads if type(n.ctx) is gast.Load else bound).add(n.id)
            elif tn in _OTHER_SCOPES:
                bound.add(getattr(n, "name", ""))     # (its free reads: its own helper's)
                scopes.append(n)
            else:
                stack.extend(child_nodes(n))
        if helper:
            found |= loads - bound
    return found


def _read_locals(fn: gast.FunctionDef, facts: analysis.FunctionFacts) -> List[str]:
    """The names fn binds itself (Python's locals, not its params) that it also reads."""
    own = facts.written - params_of(fn) - facts.nonlocals - facts.globals
    return sorted(own & facts.loads)


_PASSED = (gast.Nonlocal, gast.Global)
# nodes whose insides are another scope: _read_as_globals does not look into them
_OTHER_SCOPES = frozenset((gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ListComp,
                           gast.SetComp, gast.DictComp, gast.GeneratorExp))


def _read_as_globals(fn: gast.FunctionDef, names: Set[str]) -> Tuple[List[str], List[str]]:
    """Those of `names` that some function of the converted fn reads without any enclosing
    function (fn included) binding them: Python would look them up as globals; and those that
    the converter's control-flow helpers read without binding them (_helper_reads)."""
    found: Set[str] = set()
    helper_found: Set[str] = set()

    def scan(stack: List[gast.AST], own: Set[str], loads: List[str], nested: List[gast.AST],
             passed: Optional[Set[str]]) -> None:
        """Walk one scope's nodes: the names bound there, those read, the nested functions, and
        (when `passed` is given) the names declared nonlocal / global, as `declared` finds
        them: a class body's are not, though its other nodes are walked (passed=None)."""
        while stack:
            node = stack.pop()
            t = type(node)
            if t is gast.Name:
                if type(node.ctx) is gast.Load:
                    if node.id in names:
                        loads.append(node.id)
                else:
                    own.add(node.id)
                annotation = getattr(node, "annotation", None)   # (a parameter's)
                if annotation is not None:
                    stack.append(annotation)
                continue           # its other child, ctx, holds nothing to see
            if t is gast.FunctionDef or t is gast.AsyncFunctionDef:
                own.add(node.name)
                nested.append(node)
                continue
            if t is gast.ClassDef:
                scan(child_nodes(node), own, loads, nested, None)
                continue
            if passed is not None and (t is gast.Nonlocal or t is gast.Global):
                passed.update(node.names)
            if t not in _OTHER_SCOPES:
                stack.extend(child_nodes(node))

    def walk(f: gast.AST, bound_outside: Set[str]) -> None:
        passed: Set[str] = set()
        own = set(params_of(f)) if isinstance(f, gast.FunctionDef) else set()
        nested: List[gast.AST] = []
        loads: List[str] = []
        scan(child_nodes(f), own, loads, nested, passed)
        bound = bound_outside | (own - passed)
        found.update(n for n in loads if n not in bound)
        if isinstance(f, gast.FunctionDef) and _HELPER_DEF.match(f.name):
            helper_found.update(n for n in loads if n not in own)
        for g in nested:
            walk(g, bound)

    walk(fn, set())
    return sorted(found), sorted(helper_found)


def _initialized(fn: gast.FunctionDef) -> Set[str]:
    """Names that an earlier pass already bound to UndefinedVar at the top of fn."""
    found: Set[str] = set()
    for stmt in fn.body:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call) and \
                isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "UndefinedVar" \
                and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name):
            found.add(stmt.targets[0].id)
    return found


def _tuple(items: Sequence[gast.expr], store: bool) -> gast.Tuple:
    return gast.Tuple(elts=list(items), ctx=gast.Store() if store else gast.Load())


def _target(dotted: str, store: bool) -> gast.expr:
    """The expression of analysis.dotted_name's text (a new tree each time)."""
    node = templates.replace_expr(dotted)
    if store:
        node.ctx = gast.Store()
    return node


class ControlFlowTransformer(Transformer):
    """Adds `x = _jst.UndefinedVar('x')` at the top of a function for every name that a
    generated helper declares nonlocal but that the function itself would not bind."""

    # Statements hold all the control flow a pass rewrites; expressions (but for `a if c else b`)
    # need no visit, and skipping them makes the pass several times cheaper.
    visit_expressions = False
    converts: Tuple[type, ...] = ()    # the statements the pass turns into helper calls

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self._mutated_only: Dict[int, Set[str]] = {}

    def generic_visit(self, node: gast.AST) -> Any:
        if not self.visit_expressions and isinstance(node, gast.expr):
            return node
        return super().generic_visit(node)

    def visit_FunctionDef(self, node: gast.FunctionDef) -> Any:
        if anno.getanno(node, anno.ACCESSOR):
            return node                  # generated reads / writes of names: nothing to convert
        analysis.analyze_function(node) if not self.func_stack else None
        self.ctx.pending_inits[id(node)] = []
        # `paddle.add(x, y)` looks like a mutation of `paddle` (as `lst.add(v)` would be): such
        # a name counts only when the function itself binds it (a local, not a module global).
        # Read once, before the function's statements move into helpers; needed only by the
        # statements this pass converts in the function's own body.
        converts = any(type(s) in self.converts for s in all_statements(node, nested_scopes=False))
        top = not self.func_stack
        # a nested function of the user's (not a helper the converter wrote) has locals too:
        # a helper reading one before it is assigned fails as Python's UnboundLocalError (fuzz
        # seed 7160021548: a NameError of a free variable)
        user = top or _HELPER_DEF.match(node.name) is None
        if converts or user:
            facts = analysis.function_facts(node)    # (one walk serves both reads below)
        if converts:
            self._mutated_only[id(node)] = facts.mutated - facts.written - params_of(node) - \
                facts.nonlocals
        # a local of the user's function read where a helper does not bind it (`z` assigned
        # only inside a loop body, read before the loop) must fail as unassigned when read, not
        # be looked up as a global: bind every local that is read to UndefinedVar first
        user_locals = _read_locals(node, facts) if user else []
        node = super().visit_FunctionDef(node)
        if user_locals:
            as_globals, by_helpers = _read_as_globals(node, set(user_locals))
            self.ctx.pending_inits[id(node)].extend(as_globals + by_helpers)
        pending = self.ctx.pending_inits.pop(id(node))
        if not pending:
            return node
        skip = params_of(node) | declared(node, _PASSED) | _initialized(node)
        skip |= _assigned_before_use(node, set(pending))
        inits: List[gast.stmt] = []
        free = sorted((set(pending) - skip) & self.ctx.freevars.get(node.name, frozenset()))
        if free:
            # a variable of an enclosing function that a nested function writes (`nonlocal acc`
            # in `inner`, called in a loop of this one): a local here would hide it
            inits.append(gast.Nonlocal(names=free))
        for n in dict.fromkeys(pending):
            if n not in skip and n not in free:
                inits += templates.replace("name = _jst.UndefinedVar(text)", name=n,
                                           text=gast.Constant(value=n, kind=None))
        if inits:
            k = 0
            while k < len(node.body) and (isinstance(node.body[k], gast.Nonlocal) or (
                    k == 0 and isinstance(node.body[k], gast.Expr) and
                    isinstance(node.body[k].value, gast.Constant))):
                k += 1
            node.body[k:k] = inits
        return node

    def called_local_writes(self, stmts: List[gast.stmt]) -> Set[str]:
        """Names that the statements write by calling a function of the enclosing one that
        declares them nonlocal (`def add(v): nonlocal total; ...` then `add(row)` in a loop)."""
        if self.current_function is None:
            return set()
        writers = {}
        # the enclosing functions too, outermost first: an earlier pass may have moved the
        # statements into a generated helper (a loop body) that does not define the writer
        for fn in self.func_stack:
            for node in all_statements(fn):
                if isinstance(node, gast.FunctionDef) and node is not fn and \
                        not anno.getanno(node, anno.SKIP):
                    writers[node.name] = declared(node, gast.Nonlocal)
        if not writers:
            return set()
        out: Set[str] = set()
        for s in stmts:
            for node in all_nodes(s):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
                    out |= writers.get(node.func.id, set())
        return out

    def nonlocal_names(self, names: Set[str]) -> List[str]:
        """The plain names a helper may rebind: not globals of the enclosing function."""
        fn = self.current_function
        if fn is None:
            return []
        glob = declared(fn, gast.Global)
        mutated_only = self._mutated_only.get(id(fn), set())
        out = sorted(n for n in names if n not in glob and n not in mutated_only)
        self.ctx.pending_inits[id(fn)].extend(out)
        return out

    def get_set_helpers(self, names: List[str], attrs: List[str]) -> Tuple[str, str, List[gast.stmt]]:
        get_name = self.ctx.namer.new("get_args")
        set_name = self.ctx.namer.new("set_args")
        loads = [templates.name(n) for n in names] + [
            templates.replace_expr("_jst.GetAttr(obj, attr)", obj=_target(a.rsplit(".", 1)[0], False),
                                   attr=gast.Constant(value=a.rsplit(".", 1)[1], kind=None))
            for a in attrs]
        stores = [templates.name(n, store=True) for n in names] + [_target(a, True) for a in attrs]
        get_fn = templates.replace("def get():\n    return values", get=get_name,
                                   values=_tuple(loads, False))
        if stores:
            set_fn = templates.replace("def set(args):\n    nonlocal names\n    targets = args",
                                       set=set_name, args="__args", names=list(names),
                                       targets=_tuple(stores, True))
        else:
            set_fn = templates.replace("def set(args):\n    pass", set=set_name, args="__args")
        for helper in get_fn + set_fn:
            anno.setanno(helper, anno.ACCESSOR, True)
        return get_name, set_name, get_fn + set_fn


def names_tuple(names: Sequence[str]) -> gast.Tuple:
    return gast.Tuple(elts=[gast.Constant(value=n, kind=None) for n in names], ctx=gast.Load())


def int_tuple(values: Sequence[int]) -> gast.Tuple:
    return gast.Tuple(elts=[gast.Constant(value=v, kind=None) for v in values], ctx=gast.Load())
