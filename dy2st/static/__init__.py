"""Static-graph API: Program, program_guard, data, InputSpec, Executor, nn.cond / while_loop."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..autograd.static_api import append_backward, gradients
from ..runtime import state
from ..runtime.dtype import convert_dtype
from ..runtime.executor import Executor
from ..runtime.program import Program, Variable, default_main_program, program_guard
from . import io, nn
from .compiled_program import BuildStrategy, CompiledProgram, ExecutionStrategy
from .inference_model import load_inference_model, save_inference_model
from .input_spec import InputSpec
from .print_op import Print

__all__ = ["Program", "program_guard", "default_main_program", "data", "InputSpec", "Executor",
           "nn", "Print", "Variable", "default_startup_program", "append_backward", "gradients",
           "CompiledProgram", "BuildStrategy", "ExecutionStrategy", "save_inference_model",
           "load_inference_model"]


def data(name: str, shape: Sequence[Optional[int]], dtype: Any = None, lod_level: int = 0) -> Variable:
    """A named input of the current program (None or -1 for unknown dims)."""
    prog = state.current_program()
    if prog is None:
        raise RuntimeError("static.data must be called inside static.program_guard")
    g = prog.global_block()
    if name in g.vars:
        raise ValueError(f"the program already has a variable named {name!r}")
    d = convert_dtype(dtype or "float32")
    var = g.create_var([-1 if s is None else int(s) for s in shape], d, name=name)
    prog.feed_names.append(name)
    return var


def default_startup_program() -> Program:
    return Program()

from ..metric.metrics import accuracy  # noqa: E402,F401
