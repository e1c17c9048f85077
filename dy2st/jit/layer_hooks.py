"""The forward pre/post hooks registered on the Layer a program is exported from: Layer.__call__
runs them around forward, so an exported forward (jit.save, onnx.export) runs them too."""
from __future__ import annotations

from typing import Any, Callable

from .convert_call import convert_call


def has_forward_hooks(layer: Any) -> bool:
    return bool(getattr(layer, "_forward_pre_hooks", None) or
                getattr(layer, "_forward_post_hooks", None))


def with_forward_hooks(converted: Callable) -> Callable:
    """converted (a Layer's converted forward, unbound) with the layer's own hooks around it,
    as Layer.__call__ runs them; the hooks are converted as any called function is."""
    def hooked(layer: Any, *inputs: Any, **kwargs: Any) -> Any:
        for hook in list(layer._forward_pre_hooks.values()):
            result = convert_call(hook)(layer, inputs)
            if result is not None:
                inputs = result if isinstance(result, tuple) else (result,)
        outputs = converted(layer, *inputs, **kwargs)
        for hook in list(layer._forward_post_hooks.values()):
            result = convert_call(hook)(layer, inputs, outputs)
            if result is not None:
                outputs = result
        return outputs
    hooked.__name__ = getattr(converted, "__name__", "forward")
    return hooked
