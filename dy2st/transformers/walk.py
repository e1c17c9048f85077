"""All nodes of a tree, breadth first like gast.walk, at a fraction of its cost (each node's
_fields are read straight from its __dict__, with no generator per node): the passes walk
subtrees many times, and these walks are much of a first conversion's cost."""
from __future__ import annotations

from typing import Dict, List, Tuple

import gast

_AST = gast.AST


def all_nodes(tree: gast.AST, contexts: bool = True) -> List[gast.AST]:
    """tree and every node below it, in gast.walk's order; without the expression contexts
    (Load, Store, a third of all nodes) when `contexts` is False, for the many walks that look
    for other kinds of node."""
    out = [tree]
    append = out.append
    table = CHILD_FIELDS if contexts else NO_CONTEXT_FIELDS
    for node in out:                 # grows while iterated: breadth first
        fields = node.__dict__
        names = table.get(node.__class__)
        if names is None:
            names = child_fields(node.__class__)
            if not contexts:
                names = NO_CONTEXT_FIELDS[node.__class__] = tuple(n for n in names if n != "ctx")
        for name in names:
            value = fields.get(name)
            if value is None:
                continue
            if type(value) is list:
                for v in value:
                    if isinstance(v, _AST):
                        append(v)
            elif isinstance(value, _AST):
                append(value)
    return out


def child_nodes(node: gast.AST) -> List[gast.AST]:
    """node's direct children, in gast.iter_child_nodes's order."""
    out: List[gast.AST] = []
    append = out.append
    fields = node.__dict__
    names = CHILD_FIELDS.get(node.__class__)
    if names is None:
        names = child_fields(node.__class__)
    for name in names:
        value = fields.get(name)
        if value is None:
            continue
        if type(value) is list:
            for v in value:
                if isinstance(v, _AST):
                    append(v)
        elif isinstance(value, _AST):
            append(value)
    return out


# Fields that never hold a node (names, flags, comments): the walks skip them. Most nodes are
# Names and Constants, whose other fields are all of this kind.
_SCALAR_FIELDS = frozenset(("id", "attr", "type_comment", "kind", "arg", "asname", "module",
                            "level", "conversion", "is_async", "simple", "tag"))
_SCALAR_IN = {"Constant": ("value",), "FunctionDef": ("name",), "AsyncFunctionDef": ("name",),
              "ClassDef": ("name",), "alias": ("name",), "Global": ("names",),
              "Nonlocal": ("names",), "MatchAs": ("name",), "MatchStar": ("name",),
              "MatchMapping": ("rest",), "TypeIgnore": ("lineno",)}
CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}
NO_CONTEXT_FIELDS: Dict[type, Tuple[str, ...]] = {}     # the same without "ctx"


def child_fields(cls: type) -> Tuple[str, ...]:
    """The fields of node class cls that may hold nodes, in _fields order."""
    scalar = _SCALAR_IN.get(cls.__name__, ())
    names = tuple(f for f in cls._fields if f not in _SCALAR_FIELDS and f not in scalar)
    CHILD_FIELDS[cls] = names
    return names


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers")
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def all_statements(tree: gast.AST, nested_scopes: bool = True) -> List[gast.AST]:
    """tree and every statement (and except handler) below it, each before those inside it;
    nested defs and classes are looked into unless nested_scopes is False. Expressions are not
    looked into (they hold no statements), which makes this far cheaper than all_nodes for
    finding defs, returns or control flow."""
    out: List[gast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        out.append(node)
        if not nested_scopes and node is not tree and type(node) in _SCOPES:
            continue
        fields = node.__dict__
        for name in _STATEMENT_LISTS:
            inner = fields.get(name)
            if type(inner) is list:
                stack.extend(reversed(inner))
    return out
