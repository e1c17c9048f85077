"""`static.CompiledProgram`, `BuildStrategy`, `ExecutionStrategy`: Paddle's wrappers for running a
Program with graph-level options. Every Program here is compiled on its first run anyway, so the
wrapper only carries the Program to `Executor.run`; the strategies keep the options set on them."""
from __future__ import annotations

from typing import Any, Optional

from ..runtime.program import Program


class BuildStrategy:
    """Graph-build options (fusions, memory reuse); accepted and kept, all are what dy2st does."""

    def __init__(self) -> None:
        self.enable_inplace = True
        self.memory_optimize = True
        self.fuse_elewise_add_act_ops = False
        self.fuse_bn_act_ops = False
        self.enable_addto = False
        self.build_cinn_pass = False


class ExecutionStrategy:
    """Execution options (threads, scope dropping); dy2st runs on one thread per call."""

    def __init__(self) -> None:
        self.num_threads = 1
        self.num_iteration_per_drop_scope = 100


class CompiledProgram:
    """A Program to be run by `Executor.run`, as Paddle's CompiledProgram."""

    def __init__(self, program_or_graph: Program,
                 build_strategy: Optional[BuildStrategy] = None) -> None:
        if not isinstance(program_or_graph, Program):
            raise TypeError(f"CompiledProgram expects a Program, got "
                            f"{type(program_or_graph).__name__}")
        self._program = program_or_graph
        self._build_strategy = build_strategy or BuildStrategy()

    @property
    def program(self) -> Program:
        return self._program

    def __getattr__(self, name: str) -> Any:
        # global_block(), clone(), ... as on the Program it wraps
        return getattr(self.__dict__["_program"], name)
