"""Control-flow primitives of the static API."""
from ..runtime.control_flow import cond, while_loop

__all__ = ["cond", "while_loop"]
