"""The ordered list of passes: the one place that says what runs."""
from __future__ import annotations

import importlib
from typing import Any, Callable, Iterable, List, Optional, Tuple

import gast

from .context import PassContext
from .presence import presence_test
from .walk import all_nodes


class _PassModule:
    """A pass module imported when its pass first runs: most functions trigger few passes, and
    importing all of them was most of a first conversion's cost. `.transform` is the pass."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._transform: Optional[Callable[[gast.AST, PassContext], Any]] = None

    def transform(self, tree: gast.AST, ctx: PassContext) -> Any:
        fn = self._transform
        if fn is None:
            fn = self._transform = importlib.import_module(f"{__package__}.{self.name}").transform
        return fn(tree, ctx)


(assert_, break_continue, call, cast, comprehension, delete, ifelse, logical, loop, print_,
 return_, setitem, try_, unbound_reads, walrus) = map(_PassModule, (
    "assert_", "break_continue", "call", "cast", "comprehension", "delete", "ifelse", "logical",
    "loop", "print_", "return_", "setitem", "try_", "unbound_reads", "walrus"))

# A pass only runs when the tree has something it rewrites (most functions have no loops, say);
# `features` finds all of that in one walk.
TRIGGERS = {
    "setitem": "store_subscript", "delete": "delete", "return": "return",
    "break_continue": "break_continue",
    "logical": "logical", "loop": "loop", "ifelse": "if", "try": "try", "print": "print",
    "assert": "assert", "cast": "cast", "call": "call", "comprehension": "listcomp",
    "unbound_reads": "control", "walrus": "walrus",
}
# Passes that can add what a later pass rewrites (ifs, loops, `not`): features are re-read after.
ADDS_FEATURES = {"return", "break_continue", "walrus"}
_CASTS = {"int", "float", "bool", "str", "len", "sum", "all", "any", "max", "min", "round",
          "isinstance", "type", "repr", "divmod"}
# Node kinds whose mere presence is a feature ("global" and "unsupported" are read by the
# checks before the passes).
_KIND_FEATURES = {
    gast.If: "if", gast.IfExp: "ifexp", gast.Break: "break_continue",
    gast.Continue: "break_continue", gast.Return: "return", gast.Delete: "delete",
    gast.Try: "try", gast.Assert: "assert", gast.ListComp: "listcomp", gast.Global: "global",
    gast.BoolOp: "logical", gast.NamedExpr: "walrus", gast.Yield: "unsupported",
    gast.YieldFrom: "unsupported",
    gast.Await: "unsupported", gast.AsyncFor: "unsupported", gast.AsyncWith: "unsupported",
}


def features(tree: gast.AST, nodes: Optional[Iterable[gast.AST]] = None) -> set:
    found = set()
    for n in nodes if nodes is not None else all_nodes(tree):
        t = type(n)
        kind = _KIND_FEATURES.get(t)
        if kind is not None:
            found.add(kind)
        elif t is gast.Call:
            found.add("call")
            f = n.func
            if type(f) is gast.Name:
                if f.id == "print":
                    found.add("print")
                elif f.id in _CASTS:
                    found.add("cast")
        elif t is gast.Subscript:
            if type(n.ctx) is gast.Store:
                found.add("store_subscript")
        elif t is gast.For or t is gast.While:
            found.add("loop")
            if n.orelse:
                found.add("break_continue")
        elif (t is gast.UnaryOp and type(n.op) is gast.Not) or (
                t is gast.Compare and (len(n.ops) > 1 or presence_test(n))):
            found.add("logical")
    if "ifexp" in found:
        found.add("if")              # the ifelse pass converts both
    if found & {"if", "loop", "delete", "try"}:
        found.add("control")         # a name may be assigned on some paths only
    return found


PASSES: List[Tuple[str, Callable]] = [
    ("walrus", walrus.transform),            # a `while` test's `:=` becomes a body statement
    ("setitem", setitem.transform),          # first: `x[i] = v` must read as a write of x
    ("delete", delete.transform),            # `del x` too
    ("unbound_reads", unbound_reads.transform),  # reads of maybe-unassigned names, as written
    ("return", return_.transform),           # emits `break` inside loops for break_continue
    ("break_continue", break_continue.transform),  # emits `not flag and test` for logical
    ("logical", logical.transform),
    ("loop", loop.transform),                # before ifelse: loop bodies become functions
    ("ifelse", ifelse.transform),            # whose ifs then see the body function's scope
    ("comprehension", comprehension.transform),
    ("try", try_.transform),                 # after the control-flow passes it guards
    ("print", print_.transform),
    ("assert", assert_.transform),
    ("cast", cast.transform),                # before call, which would wrap int()/len()
    ("call", call.transform),                # last: wraps every call still left as is
]

PASS_NAMES = [name for name, _ in PASSES]


def run_passes(tree: gast.AST, ctx: PassContext, until: Optional[str] = None,
               on_pass: Optional[Callable[[str, gast.AST], None]] = None,
               present: Optional[set] = None) -> gast.AST:
    """Apply the passes in order (stopping after `until` when given)."""
    if until is not None and until not in PASS_NAMES:
        raise ValueError(f"unknown pass {until!r}; passes are: {', '.join(PASS_NAMES)}")
    present = features(tree) if present is None else present
    for name, fn in PASSES:
        if TRIGGERS[name] not in present:
            if name == until:
                break
            continue
        named = dict(ctx.namer.counts)
        ctx.features = present
        tree = fn(tree, ctx)
        # it rewrote (with new flags; the walrus pass adds an `if` and a `break` without any)
        if name in ADDS_FEATURES and (ctx.namer.counts != named or name == "walrus"):
            present = features(tree)
        if on_pass is not None:
            on_pass(name, tree)
        if name == until:
            break
    ctx.features = None
    return tree

