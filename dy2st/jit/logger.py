"""The `dy2st.jit` logger, made on first use: importing logging costs more than the rest of a
first small conversion, and the logger speaks only on re-traces, graph breaks and code dumps."""
from __future__ import annotations

from typing import Any


class _JitLogger:
    """Forwards every attribute to logging.getLogger("dy2st.jit")."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        import logging
        return getattr(logging.getLogger("dy2st.jit"), name)


log = _JitLogger()
