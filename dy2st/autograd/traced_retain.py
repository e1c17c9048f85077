"""`retain_graph` in a traced step: a backward without it frees the graph it went through, so a
later traced backward through any of the same ops fails as eager backward does. A backward
inside a tensor `if` branch frees that branch: a later backward through the `if` is refused."""
from __future__ import annotations

from typing import Iterable, List, Set

from ..runtime import state
from ..runtime.program import Program
from .engine import GradientError


def backward_path(program: Program, outputs: Iterable[object], req: Set[str]) -> List[int]:
    """Positions of the global block's ops between what needs a gradient and the outputs
    (Variables or names). An op none of whose inputs needs one records nothing eagerly: its
    output is a new leaf (`stop_gradient = False`), where the graph starts."""
    ops = program.global_block().ops
    wanted = {getattr(o, "name", o) for o in outputs}
    found = []
    for i in range(len(ops) - 1, -1, -1):
        op = ops[i]
        if any(o in wanted and o in req for o in op.outputs) and \
                any(n in req for n in op.inputs):
            found.append(i)
            wanted.update(n for n in op.inputs if n in req)
    return found


def _blocks_within(program: Program, op: object) -> Set[int]:
    found: Set[int] = set()
    stack = list(op.sub_blocks())
    while stack:
        b = stack.pop()
        found.add(b)
        for inner in program.blocks[b].ops:
            stack.extend(inner.sub_blocks())
    return found


def check_not_freed(program: Program, outputs: Iterable[object], req: Set[str],
                    retain_graph: bool) -> None:
    """Raise eager's error when the backward of `outputs` goes through ops an earlier traced
    backward freed; without retain_graph, free the ops it goes through."""
    freed = program.__dict__.setdefault("freed_by_backward", set())
    freed_blocks = program.__dict__.get("freed_branches", {})
    ops = program.global_block().ops
    path = backward_path(program, outputs, req)
    for i in path:          # nearest the outputs first, as eager meets them
        op = ops[i]
        where = (f' (File "{op.origin.file}", line {op.origin.line}: {op.origin.source})'
                 if op.origin is not None else "")
        if id(op) in freed:
            raise GradientError(
                f"backward through the graph of {op.type}{where} a second time: its saved "
                "values were freed by the first backward; pass retain_graph=True to the first "
                "backward (or paddle.grad) to backward again")
        inner = _blocks_within(program, op) & set(freed_blocks) if freed_blocks else ()
        inner = {b for b in inner if _may_have_run(program, b)} if inner else ()
        maybe = program.__dict__.get("freed_if_taken", {}).get(id(op))
        maybe = maybe[0] if maybe and _may_have_run(program, maybe[1]) else None
        if inner or maybe:
            line = maybe or freed_blocks[min(inner)]
            raise GradientError(
                f"backward through the graph of {op.type}{where}, which a backward() in a "
                f"tensor `if` branch ({line}) freed when that branch is taken (eager raises "
                "then, and not otherwise: one graph cannot hold both outcomes); pass "
                "retain_graph=True to the backward() in the branch")
    if not retain_graph:
        freed.update(id(ops[i]) for i in path)


def free_branch(program: Program, block_idx: int, where: str, entered: List[str],
                req: Set[str]) -> None:
    """A backward without retain_graph inside the branch block `block_idx` (at `where`) that
    went on through the ops before the `if` that compute `entered`."""
    program.__dict__.setdefault("freed_branches", {})[block_idx] = where
    ops = program.global_block().ops
    maybe = program.__dict__.setdefault("freed_if_taken", {})
    for i in backward_path(program, entered, req):
        maybe.setdefault(id(ops[i]), (where, block_idx))


def _may_have_run(program: Program, block_idx: int) -> bool:
    """Whether branch block `block_idx` may have run before the point being traced: the trace
    is inside it, or its `if` is complete (not when the trace is in the other branch)."""
    b = state.current_block()
    while b is not None:
        if b.idx == block_idx:
            return True
        b = b.parent
    return any(op.type == "cond" and block_idx in (op.attrs["true_block"], op.attrs["false_block"])
               for blk in program.blocks for op in blk.ops)


def has_loop(program: Program, positions: List[int]) -> bool:
    """Whether any of the global block's ops at `positions` is or holds a `while`."""
    ops = program.global_block().ops
    return holds_loop(program, [ops[i] for i in positions])


def holds_loop(program: Program, ops: Iterable) -> bool:
    """Whether any of `ops` is or holds (in a sub-block, at any depth) a `while`."""
    stack = list(ops)
    while stack:
        op = stack.pop()
        if op.type == "while":
            return True
        for b in op.sub_blocks():
            stack.extend(program.blocks[b].ops)
    return False
