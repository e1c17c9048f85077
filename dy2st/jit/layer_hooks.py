"""The forward pre/post hooks registered on the Layer a program is exported from: Layer.__call__
runs them around forward, so an exported forward (jit.save, onnx.export) runs them too."""
from __future__ import annotations

from typing import Any, Callable

from ..runtime.control_flow import cond
from ..runtime.control_flow.loop_growth import none_structures
from ..runtime.program import Variable
from ..runtime.pytree import flatten
from ..runtime.side_effects import IS_NONE
from .convert_call import convert_call


def has_forward_hooks(layer: Any) -> bool:
    return bool(getattr(layer, "_forward_pre_hooks", None) or
                getattr(layer, "_forward_post_hooks", None))


def _none_flag(result: Any) -> Any:
    """The "is it not None?" flag of a hook's result that is a tensor (or a tuple of tensors)
    on some paths of a tensor `if` and None on the others (`if c: return outputs * 2.0`, then
    the end of the hook), else None."""
    first = flatten(result)[0][:1]
    if not first or not isinstance(first[0], Variable):
        return None
    entry = first[0].block.program.maybe_undefined.get(first[0].name)
    return entry[0] if entry is not None and entry[1] == IS_NONE else None


def _kept_where_none(result: Any, kept: Any) -> Any:
    """`result`, or `kept` on the paths where the hook returned None (Paddle keeps the value)."""
    flag = _none_flag(result)
    if flag is None:
        return result
    return cond(flag, lambda: result, lambda: kept)


def with_forward_hooks(converted: Callable) -> Callable:
    """converted (a Layer's converted forward, unbound) with the layer's own hooks around it,
    as Layer.__call__ runs them; the hooks are converted as any called function is. A hook
    returning None keeps the value, also on the paths of a tensor `if` where it does."""
    def hooked(layer: Any, *inputs: Any, **kwargs: Any) -> Any:
        for hook in list(layer._forward_pre_hooks.values()):
            with none_structures():
                result = convert_call(hook)(layer, inputs)
            if result is not None:
                inputs = _kept_where_none(result if isinstance(result, tuple) else (result,),
                                          inputs)
        outputs = converted(layer, *inputs, **kwargs)
        for hook in list(layer._forward_post_hooks.values()):
            with none_structures():
                result = convert_call(hook)(layer, inputs, outputs)
            if result is not None:
                outputs = _kept_where_none(result, outputs)
        return outputs
    hooked.__name__ = getattr(converted, "__name__", "forward")
    return hooked
