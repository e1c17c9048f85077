"""Static-graph API: Program, program_guard, data, InputSpec, Executor, nn.cond / while_loop."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..autograd.static_api import append_backward, gradients
from ..runtime import state
from ..runtime.dtype import convert_dtype
from ..runtime.executor import Executor
from ..runtime.program import Program, Variable, default_main_program, program_guard
from ..runtime.lazy import lazy_getattr as _lazy_getattr
from . import nn
from ..format.input_spec import InputSpec
from .print_op import Print

__all__ = ["Program", "program_guard", "default_main_program", "data", "InputSpec", "Executor",
           "nn", "Print", "Variable", "default_startup_program", "append_backward", "gradients",
           "CompiledProgram", "BuildStrategy", "ExecutionStrategy", "save_inference_model",
           "load_inference_model", "Scope", "global_scope", "scope_guard", "name_scope",
           "create_global_var", "create_parameter", "cpu_places", "save", "load",
           "load_program_state", "set_program_state", "device_guard",
           "ExponentialMovingAverage", "WeightNormParamAttr", "auc", "py_func"]


def data(name: str, shape: Sequence[Optional[int]], dtype: Any = None, lod_level: int = 0) -> Variable:
    """A named input of the current program (None or -1 for unknown dims)."""
    prog = state.current_program()
    if prog is None:
        raise RuntimeError("static.data must be called inside static.program_guard")
    convert_user_layers()
    return prog.add_input(name, shape, convert_dtype(dtype or "float32"))


def default_startup_program() -> Program:
    return Program()


# Loaded on first use (saving, CompiledProgram and the metrics are off the path of building a
# Program): one entry per line, "name": "module:attribute" or "module" (relative to dy2st).
_LAZY = {
    "io": "static.io",
    "amp": "static.amp",
    "BuildStrategy": "static.compiled_program:BuildStrategy",
    "CompiledProgram": "static.compiled_program:CompiledProgram",
    "ExecutionStrategy": "static.compiled_program:ExecutionStrategy",
    "load_inference_model": "static.inference_model:load_inference_model",
    "save_inference_model": "static.inference_model:save_inference_model",
    "accuracy": "metric.metrics:accuracy",
    "Scope": "static.scope:Scope",
    "global_scope": "static.scope:global_scope",
    "scope_guard": "static.scope:scope_guard",
    "name_scope": "static.scope:name_scope",
    "create_global_var": "static.scope:create_global_var",
    "create_parameter": "static.scope:create_parameter",
    "cpu_places": "static.scope:cpu_places",
    "device_guard": "static.pylayer:device_guard",
    "save": "static.persistence:save",
    "load": "static.persistence:load",
    "load_program_state": "static.persistence:load_program_state",
    "set_program_state": "static.persistence:set_program_state",
    "ExponentialMovingAverage": "static.ema:ExponentialMovingAverage",
    "WeightNormParamAttr": "nn.param_attr:WeightNormParamAttr",
    "auc": "static.auc_metric:auc",
    "py_func": "static.host_function:py_func",
}
__getattr__ = _lazy_getattr(__name__, _LAZY, globals(), root="dy2st")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def convert_user_layers() -> None:
    """User Layers called while a static Program is built run their converted forward (a tensor
    `if` in forward becomes a cond op): jit registers that converter when it loads."""
    # imported for its effect: loading jit installs the converter (jit stays lazy otherwise)
    from ..jit import convert_call  # noqa: F401
