"""paddle.static.nn.static_pylayer and paddle.static.device_guard."""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Optional, Sequence

from ..autograd.py_layer import PyLayer
from ..runtime import device as runtime_device

__all__ = ["static_pylayer", "device_guard"]


def static_pylayer(forward_fn: Callable, inputs: Sequence[Any],
                   backward_fn: Optional[Callable] = None, name: Optional[str] = None) -> Any:
    """forward_fn(*inputs), whose gradient is backward_fn(*output_grads) (one gradient per
    input); without backward_fn no gradient flows back through it (Paddle's static_pylayer).
    Built on paddle.autograd.PyLayer, so it works eagerly and in programs alike."""
    if not callable(forward_fn):
        raise TypeError(f"static_pylayer: forward_fn must be callable, got "
                        f"{type(forward_fn).__name__}")
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"static_pylayer: inputs must be a list of tensors, got "
                        f"{type(inputs).__name__}")
    if backward_fn is None:
        out = forward_fn(*[x.detach() for x in inputs])
        return out
    if not callable(backward_fn):
        raise TypeError(f"static_pylayer: backward_fn must be callable, got "
                        f"{type(backward_fn).__name__}")

    class _StaticPyLayer(PyLayer):
        @staticmethod
        def forward(ctx: Any, *xs: Any) -> Any:
            return forward_fn(*xs)

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> Any:
            return backward_fn(*grads)

    _StaticPyLayer.__qualname__ = f"static_pylayer.{getattr(forward_fn, '__name__', 'fn')}"
    return _StaticPyLayer.apply(*inputs)


@contextlib.contextmanager
def device_guard(device: Optional[str] = None) -> Iterator[None]:
    """Place the ops built in the block on `device` ('cpu', 'gpu', 'gpu:0', ...); dy2st
    computes on the current device, so this checks the device like set_device and changes it
    for the block."""
    if device is None:
        yield
        return
    with runtime_device.device_guard(device):
        yield
