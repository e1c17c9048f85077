"""All nodes of a tree, breadth first like gast.walk, at a fraction of its cost (node fields
are read straight from each node's __dict__)."""
from __future__ import annotations

from typing import List

import gast

_AST = gast.AST


def all_nodes(tree: gast.AST) -> List[gast.AST]:
    """tree and every node below it, in gast.walk's order."""
    out = [tree]
    i = 0
    while i < len(out):
        for value in out[i].__dict__.values():
            if type(value) is list:
                out.extend([v for v in value if isinstance(v, _AST)])
            elif isinstance(value, _AST):
                out.append(value)
        i += 1
    return out


def child_nodes(node: gast.AST) -> List[gast.AST]:
    """node's direct children, in gast.iter_child_nodes's order."""
    out: List[gast.AST] = []
    for value in node.__dict__.values():
        if type(value) is list:
            out.extend([v for v in value if isinstance(v, _AST)])
        elif isinstance(value, _AST):
            out.append(value)
    return out


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
