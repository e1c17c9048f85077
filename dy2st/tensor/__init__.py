"""dy2st.tensor: tensor arrays (create_array, array_write, array_read, array_length), Paddle's
submodules paddle.tensor.math, .manipulation, .creation, ... and their functions
(paddle.tensor.matmul, as older Paddle code spells them), loaded on first use."""
from ..runtime.ops.array import (array_concat, array_length, array_read, array_stack, array_write,
                                 create_array)

__all__ = ["create_array", "array_write", "array_read", "array_length", "array_stack",
           "array_concat"]

from ..runtime.ops.creation import full as _full  # noqa: E402


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """A tensor of `shape` filled with `value` (the fluid-era name of paddle.full)."""
    result = _full(shape, value, dtype)
    if out is not None:
        # here, not at the top: paddle.tensor's namespace holds Paddle's names only
        from ..runtime.ops import assign
        return assign(result, out)
    return result


__all__ += ["fill_constant"]

from ..runtime.lazy import lazy_getattr as _lazy_getattr  # noqa: E402
from .catalog import tensor_attribute as _tensor_attribute  # noqa: E402

SUBMODULES = ("attribute", "creation", "linalg", "logic", "manipulation", "math", "random",
              "search", "stat")
_submodule = _lazy_getattr(__name__, {m: m for m in SUBMODULES}, globals())


def __getattr__(name: str):
    if name in SUBMODULES:
        return _submodule(name)
    value = _tensor_attribute(name)
    globals()[name] = value
    return value
