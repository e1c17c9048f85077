"""paddle.base.dygraph: `to_variable` (the fluid-era to_tensor) and `guard`, the context that
runs its body in dynamic (eager) mode."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional

from ..runtime import state
from ..runtime.ops import to_tensor
from ..static.mode import disable_static, enable_static


def to_variable(value: Any, name: Optional[str] = None, zero_copy: Any = None,
                dtype: Any = None) -> Any:
    """A tensor holding `value` (a numpy array, a Python scalar or list, or a tensor)."""
    return to_tensor(value, dtype=dtype)


@contextlib.contextmanager
def guard(place: Any = None) -> Iterator[None]:
    """Run the body eagerly; static mode (enable_static) is restored afterwards."""
    was_static = state.build_state.static_program is not None
    if was_static:
        disable_static()
    try:
        yield
    finally:
        if was_static:
            enable_static()
