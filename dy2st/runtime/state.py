"""Per-thread build state: which Block ops are appended to (None means eager), and whether eager
ops record gradients."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Iterator, List, Optional


class _BuildState(threading.local):
    def __init__(self) -> None:
        self.blocks: List[Any] = []     # innermost last; empty means eager execution
        self.programs: List[Any] = []   # program_guard stack (main programs)
        self.grad_enabled = True        # paddle.no_grad() / set_grad_enabled(False) clear it
        self.journals: List[Any] = []   # in-place rebinds under way (runtime/inplace.py)
        self.static_program: Any = None  # the default main program while enable_static() holds
        # > 0 while a full_graph=False function is traced: in_dynamic_mode() says True there, as
        # in Paddle's default mode (SOT), whose traces run in dynamic mode
        self.dynamic_view = 0
        # > 0 while a model file is traced (jit.save, export): what a graph break would run as
        # Python is checked when the program runs instead
        self.exporting = 0
        # > 0 while a to_static trace runs whose program later calls reuse (no side effect makes
        # them run eagerly): a parameter made there would keep the values of the trace
        self.reused_trace = 0


build_state = _BuildState()


@contextmanager
def dynamic_view(on: bool = True) -> Iterator[None]:
    """While it holds (and `on`), in_dynamic_mode() answers True even inside a trace."""
    if not on:
        yield
        return
    build_state.dynamic_view += 1
    try:
        yield
    finally:
        build_state.dynamic_view -= 1


@contextmanager
def exporting() -> Iterator[None]:
    """Traces inside give a model file (one graph, no Python between regions)."""
    build_state.exporting += 1
    try:
        yield
    finally:
        build_state.exporting -= 1


@contextmanager
def reused_trace(on: bool = True) -> Iterator[None]:
    """While it holds (and `on`), the program being traced serves later calls too."""
    if not on:
        yield
        return
    build_state.reused_trace += 1
    try:
        yield
    finally:
        build_state.reused_trace -= 1


def is_exporting() -> bool:
    return build_state.exporting > 0


def breaks_allowed() -> bool:
    """Whether the trace under way may stop at a graph break (full_graph=False, no export):
    code whose result one graph cannot give then runs as Python."""
    return build_state.dynamic_view > 0 and build_state.exporting == 0


def current_block() -> Optional[Any]:
    blocks = build_state.blocks
    return blocks[-1] if blocks else None


def push_block(block: Any) -> None:
    build_state.blocks.append(block)


def pop_block() -> Any:
    return build_state.blocks.pop()


def push_program(program: Any) -> None:
    build_state.programs.append(program)


def pop_program() -> Any:
    return build_state.programs.pop()


def current_program() -> Optional[Any]:
    return build_state.programs[-1] if build_state.programs else None


def in_static_mode() -> bool:
    return bool(build_state.blocks)


def at_static_mode_top() -> bool:
    """enable_static() holds and no program_guard or trace is open: Python code between
    Executor runs (a scheduler's step) acts at once, as in eager mode."""
    return build_state.static_program is not None and len(build_state.blocks) == 1


def reset() -> None:
    """Forget every open program and block (for tests and after a failed trace)."""
    build_state.blocks.clear()
    build_state.programs.clear()
    build_state.grad_enabled = True
    build_state.journals.clear()
    build_state.static_program = None
