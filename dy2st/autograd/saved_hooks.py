"""paddle.autograd.saved_tensors_hooks: pack / unpack the tensors an op keeps for backward.

While the block runs, each eager op recorded for backward passes its tensor inputs through
pack_hook; its gradient rule later reads unpack_hook(packed) instead of the tensors."""
from __future__ import annotations

from typing import Any, Callable, List, Tuple

HOOKS: List[Tuple[Callable[[Any], Any], Callable[[Any], Any]]] = []


class saved_tensors_hooks:
    """Context manager (Paddle's paddle.autograd.saved_tensors_hooks(pack_hook, unpack_hook))."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callable")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> "saved_tensors_hooks":
        HOOKS.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc: Any) -> None:
        HOOKS.pop()


def pack(inputs: List[Any]) -> Any:
    """(packed values, unpack hook) of the innermost hooks, or None outside any."""
    if not HOOKS:
        return None
    pack_hook, unpack_hook = HOOKS[-1]
    return [pack_hook(x) if type(x) is not list else x for x in inputs], unpack_hook


def unpack(packed: Any, inputs: List[Any]) -> List[Any]:
    values, unpack_hook = packed
    out = []
    for value, original in zip(values, inputs):
        if type(original) is list:
            out.append(original)
            continue
        t = unpack_hook(value)
        if not hasattr(t, "_value"):
            raise TypeError(f"saved_tensors_hooks: unpack_hook must return a Tensor, got "
                            f"{type(t).__name__}")
        out.append(t)
    return out
