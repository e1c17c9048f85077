"""`retain_graph` in a traced step: a backward without it frees the graph it went through, so a
later traced backward through any of the same ops fails as eager backward does."""
from __future__ import annotations

from typing import List, Set

from ..runtime.program import Program, Variable
from .engine import GradientError


def backward_path(program: Program, outputs: List[Variable], req: Set[str]) -> List[int]:
    """Positions of the global block's ops between what needs a gradient and the outputs."""
    ops = program.global_block().ops
    wanted = {o.name for o in outputs}
    found = []
    for i in range(len(ops) - 1, -1, -1):
        op = ops[i]
        if any(o in wanted and o in req for o in op.outputs):
            found.append(i)
            wanted.update(n for n in op.inputs if n in req)
    return found


def check_not_freed(program: Program, outputs: List[Variable], req: Set[str],
                    retain_graph: bool) -> None:
    """Raise eager's error when the backward of `outputs` goes through ops an earlier traced
    backward freed; without retain_graph, free the ops it goes through."""
    freed = program.__dict__.setdefault("freed_by_backward", set())
    ops = program.global_block().ops
    path = backward_path(program, outputs, req)
    for i in path:          # nearest the outputs first, as eager meets them
        if id(ops[i]) in freed:
            op = ops[i]
            where = (f' (File "{op.origin.file}", line {op.origin.line}: {op.origin.source})'
                     if op.origin is not None else "")
            raise GradientError(
                f"backward through the graph of {op.type}{where} a second time: its saved "
                "values were freed by the first backward; pass retain_graph=True to the first "
                "backward (or paddle.grad) to backward again")
    if not retain_graph:
        freed.update(id(ops[i]) for i in path)


def has_loop(program: Program, positions: List[int]) -> bool:
    """Whether any of the global block's ops at `positions` is or holds a `while`."""
    ops = program.global_block().ops
    stack = [ops[i] for i in positions]
    while stack:
        op = stack.pop()
        if op.type == "while":
            return True
        for b in op.sub_blocks():
            stack.extend(program.blocks[b].ops)
    return False
