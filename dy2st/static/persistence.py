"""paddle.static.save / load / load_program_state / set_program_state: a program's persistable
values in `<path>.pdparams` (parameters) and `<path>.pdopt` (other persistables: running
statistics, optimizer state), in paddle.save's data-only format."""
from __future__ import annotations

import os
from typing import Any, Dict, Optional, Sequence

import numpy as np

from ..io.serialization import load as _load_file, save as _save_file
from ..runtime.program import Program
from ..runtime.tensor import Parameter, Tensor

__all__ = ["save", "load", "load_program_state", "set_program_state"]


def _named(program: Program) -> Dict[str, Tensor]:
    if not isinstance(program, Program):
        raise TypeError(f"expected a paddle.static.Program, got {type(program).__name__}")
    return dict(program.persistables)


def save(program: Program, model_path: str, protocol: int = 4, **configs: Any) -> None:
    """Write the program's parameters to model_path + '.pdparams' and its other persistables to
    model_path + '.pdopt'."""
    if not isinstance(model_path, str) or not os.path.basename(model_path):
        raise ValueError(f"static.save: model_path must end with a file name prefix, got "
                         f"{model_path!r}")
    params, others = {}, {}
    for name, t in _named(program).items():
        (params if isinstance(t, Parameter) else others)[name] = np.asarray(t._value)
    _save_file(params, model_path + ".pdparams", protocol=protocol)
    _save_file(others, model_path + ".pdopt", protocol=protocol)


def load_program_state(model_path: str, var_list: Optional[Sequence[Any]] = None
                       ) -> Dict[str, np.ndarray]:
    """name -> array from model_path's .pdparams and .pdopt files."""
    base = model_path[:-len(".pdparams")] if model_path.endswith(".pdparams") else model_path
    if not os.path.exists(base + ".pdparams"):
        raise FileNotFoundError(f"static.load: {base + '.pdparams'} does not exist (write it "
                                f"with paddle.static.save(program, {base!r}))")
    state = dict(_load_file(base + ".pdparams", return_numpy=True))
    if os.path.exists(base + ".pdopt"):
        state.update(_load_file(base + ".pdopt", return_numpy=True))
    if var_list is not None:
        wanted = {getattr(v, "name", v) for v in var_list}
        state = {k: v for k, v in state.items() if k in wanted}
    return state


def set_program_state(program: Program, state_dict: Dict[str, Any]) -> None:
    """Copy the arrays of state_dict into the program's persistables of those names (same shape;
    values are cast to the persistable's dtype)."""
    named = _named(program)
    for name, value in state_dict.items():
        t = named.get(name)
        if t is None:
            continue
        arr = np.asarray(getattr(value, "_value", value))
        if arr.shape != t._value.shape:
            raise ValueError(f"set_program_state: {name!r} has shape {list(t._value.shape)}, "
                             f"the saved value {list(arr.shape)}")
        t._value = arr.astype(t._value.dtype)
        t._version = getattr(t, "_version", 0) + 1


def load(program: Program, model_path: str, executor: Any = None,
         var_list: Optional[Sequence[Any]] = None) -> None:
    """Read what static.save wrote into the program's persistables."""
    set_program_state(program, load_program_state(model_path, var_list))
