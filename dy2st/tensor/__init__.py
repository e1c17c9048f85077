"""dy2st.tensor: tensor arrays (create_array, array_write, array_read, array_length)."""
from ..runtime.ops.array import (array_concat, array_length, array_read, array_stack, array_write,
                                 create_array)

__all__ = ["create_array", "array_write", "array_read", "array_length", "array_stack",
           "array_concat"]
