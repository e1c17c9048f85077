"""The XLA backend: Programs lowered to jax/lax and compiled by XLA (optional: needs jax). Only
this package imports jax, and only when a program is first compiled."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ...runtime.program import Program
from ..base import Backend
from .compile import FALLBACKS, XlaProgram  # noqa: F401
from .lowerings import LOWERINGS, NOT_LOWERABLE


class XlaBackend(Backend):
    name = "xla"

    def compile(self, program: Program, feed_names: Sequence[str],
                fetch_names: Sequence[str]) -> Any:
        key = (program.version, "xla", tuple(feed_names), tuple(fetch_names))
        cached = program._compiled.get(key)
        if cached is None:
            cached = program._compiled[key] = XlaProgram(program, feed_names, fetch_names)
        return cached

    def unsupported(self, program: Program) -> Optional[str]:
        for block in program.blocks:
            for op in block.ops:
                if op.type not in LOWERINGS:
                    return f"{op.type}: {NOT_LOWERABLE.get(op.type, 'no lowering')}"
        return None
