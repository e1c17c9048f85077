"""All nodes of a tree, breadth first like gast.walk, at a fraction of its cost (each node's
_fields are read straight from its __dict__, with no generator per node): the passes walk
subtrees many times, and these walks are much of a first conversion's cost."""
from __future__ import annotations

from typing import List

import gast

_AST = gast.AST


def all_nodes(tree: gast.AST) -> List[gast.AST]:
    """tree and every node below it, in gast.walk's order."""
    out = [tree]
    append = out.append
    for node in out:                 # grows while iterated: breadth first
        fields = node.__dict__
        for name in node._fields:
            value = fields.get(name)
            if value is None or type(value) is str:
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
    for name in node._fields:
        value = fields.get(name)
        if value is None or type(value) is str:
            continue
        if type(value) is list:
            for v in value:
                if isinstance(v, _AST):
                    append(v)
        elif isinstance(value, _AST):
            append(value)
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
