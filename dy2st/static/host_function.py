"""paddle.static.py_func (also static.nn.py_func): a Python function as an op of a static
Program, run on the host each time the program runs, with an optional Python backward that gives
the op its gradient."""
from __future__ import annotations

from typing import Any, Callable, List, Optional

from ..runtime import state
from ..runtime.dtype import convert_dtype, dtype_name
from ..runtime.ops.host_call import register_function
from ..runtime.origin import user_origin
from ..runtime.program import Variable
from ..runtime.registry import to_local

__all__ = ["py_func"]


def _as_list(v: Any, what: str) -> List[Any]:
    items = [] if v is None else list(v) if isinstance(v, (list, tuple)) else [v]
    for item in items:
        if not isinstance(item, Variable):
            raise TypeError(f"py_func: {what} must be Variables of the program being built, got "
                            f"{type(item).__name__}")
    return items


def py_func(func: Callable[..., Any], x: Any, out: Any,
            backward_func: Optional[Callable[..., Any]] = None,
            skip_vars_in_backward_input: Any = None) -> Any:
    """Run `func(*x_arrays)` as an op each time the program runs, writing its results into the
    `out` Variables (created beforehand, e.g. with block.create_var(name=, dtype=, shape=)).
    `backward_func(*x, *out, *out_grads)` (minus the Variables in skip_vars_in_backward_input)
    returns the gradients of x. Returns `out`."""
    if not state.build_state.blocks:
        raise RuntimeError("py_func builds an op of a static Program: call it inside "
                           "static.program_guard (or with paddle.enable_static())")
    xs, outs = _as_list(x, "x"), _as_list(out, "out")
    for o in outs:
        if isinstance(o.dtype, str):
            o.dtype = convert_dtype(o.dtype)
    skip_vars = _as_list(skip_vars_in_backward_input, "skip_vars_in_backward_input")
    everything = xs + outs
    skip = []
    for v in skip_vars:
        found = [i for i, w in enumerate(everything) if w is v]
        if not found:
            raise ValueError(f"py_func: {v.name} in skip_vars_in_backward_input is neither an "
                             f"input nor an output")
        skip += found
    block = state.current_block()
    attrs = {"func": register_function(func), "backward": register_function(backward_func), "skip": skip,
             "out_shapes": [list(o._shape) for o in outs],
             "out_dtypes": [dtype_name(o.dtype) for o in outs]}
    block.append_op("py_func", [to_local(block, v) for v in xs], outs, attrs, user_origin(2))
    return out

