"""`dy2st.linalg`: the linear-algebra namespace of Paddle (inv, norm and the matrix products)."""
from __future__ import annotations

from .runtime.ops.linalg import bmm, dot, inv, matmul, mm, outer  # noqa: F401
from .runtime.ops.stats import norm  # noqa: F401

__all__ = ["inv", "norm", "matmul", "mm", "bmm", "dot", "outer"]
