"""Outputs whose need of a gradient depends on the path a tensor `if` takes (`with no_grad():`
on one path only): the program fetches the `if`'s predicate and the call gives such an output
`stop_gradient=True` on the paths where eager code computed it without gradients."""
from __future__ import annotations

from typing import Any, Dict, List, Set, Union

import numpy as np

from ..runtime.program import Program

# True / False, or (predicate name, rule of the true path, rule of the false path)
Rule = Union[bool, tuple]


def _rule(program: Program, name: str, req: Set[str], made: Dict[str, tuple], depth: int) -> Rule:
    if name not in req:
        return False
    found = made.get(name)
    if found is None or depth > 8:
        return True
    op, i = found
    sides: List[Rule] = []
    for key in ("true_block", "false_block"):
        block = program.blocks[op.attrs[key]]
        r = block.results[i]
        if r not in req:
            sides.append(False)
        elif r in block.params:     # a value from before the `if`, passed through this path
            sides.append(_rule(program, op.inputs[1 + block.params.index(r)], req, made,
                               depth + 1))
        else:
            sides.append(True)
    return sides[0] if sides[0] == sides[1] else (op.inputs[0], sides[0], sides[1])


def path_rules(program: Program, outputs: List[str], req: Set[str]) -> Dict[int, Rule]:
    """Per output (fetch index) whose need of a gradient depends on the path taken: its rule.
    `req` holds the names that depend differentiably on what needs a gradient."""
    made: Dict[str, tuple] = {}
    for op in program.global_block().ops:
        if op.type == "cond":
            for i, o in enumerate(op.outputs):
                made[o] = (op, i)
    rules = {}
    for k, name in enumerate(outputs):
        if name in made:
            rule = _rule(program, name, req, made, 0)
            if isinstance(rule, tuple):
                rules[k] = rule
    return rules


def predicates(rules: Dict[int, Rule]) -> List[str]:
    """The predicate names the rules read, each once."""
    out: List[str] = []

    def walk(rule: Rule) -> None:
        if isinstance(rule, tuple):
            if rule[0] not in out:
                out.append(rule[0])
            walk(rule[1])
            walk(rule[2])
    for rule in rules.values():
        walk(rule)
    return out


def needs_grad(rule: Rule, values: Dict[str, Any]) -> bool:
    """Whether the output of `rule` needs a gradient on this call's path (predicate values)."""
    while isinstance(rule, tuple):
        rule = rule[1] if bool(np.asarray(values[rule[0]])) else rule[2]
    return rule


