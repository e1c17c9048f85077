"""Deterministic fresh names that avoid every name the function already uses."""
from __future__ import annotations

from typing import Dict, Iterable, Optional, Set

import gast

from .walk import all_nodes


def names_in(tree: gast.AST, nodes: Optional[Iterable[gast.AST]] = None) -> Set[str]:
    found: Set[str] = set()
    for node in nodes if nodes is not None else all_nodes(tree):
        if isinstance(node, gast.Name):
            found.add(node.id)
        elif isinstance(node, (gast.FunctionDef, gast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, gast.alias):
            found.add((node.asname or node.name).split(".")[0])
    return found


class Namer:
    """`new('true_fn')` -> 'true_fn_0', 'true_fn_1', ...; never a name in `taken`."""

    def __init__(self, taken: Iterable[str]) -> None:
        self.taken = set(taken)
        self.counts: Dict[str, int] = {}

    def new(self, base: str) -> str:
        n = self.counts.get(base, 0)
        while f"{base}_{n}" in self.taken:
            n += 1
        self.counts[base] = n + 1
        name = f"{base}_{n}"
        self.taken.add(name)
        return name
