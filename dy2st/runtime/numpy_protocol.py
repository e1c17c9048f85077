"""numpy functions applied to a symbolic Variable: an operator with a numpy value on the left
(`np_array + v`) is the Variable's own; any other function is refused with a hint."""
from __future__ import annotations

from typing import Any, Dict, Tuple

# numpy ufunc -> (the operator of the tensor on the left, that of the tensor on the right)
REFLECTED = {
    "add": ("__add__", "__radd__"), "subtract": ("__sub__", "__rsub__"),
    "multiply": ("__mul__", "__rmul__"), "divide": ("__truediv__", "__rtruediv__"),
    "true_divide": ("__truediv__", "__rtruediv__"),
    "floor_divide": ("__floordiv__", "__rfloordiv__"), "remainder": ("__mod__", "__rmod__"),
    "power": ("__pow__", "__rpow__"), "matmul": ("__matmul__", "__rmatmul__"),
    "bitwise_and": ("__and__", "__rand__"), "bitwise_or": ("__or__", "__ror__"),
    "bitwise_xor": ("__xor__", "__rxor__"), "equal": ("__eq__", "__eq__"),
    "not_equal": ("__ne__", "__ne__"), "less": ("__lt__", "__gt__"),
    "less_equal": ("__le__", "__ge__"), "greater": ("__gt__", "__lt__"),
    "greater_equal": ("__ge__", "__le__"),
}


def numpy_message(name: str, var: Any) -> str:
    # circle: runtime.ops imports program, which imports this module at import time
    from . import ops
    alias = {"absolute": "abs", "negative": "neg", "true_divide": "divide", "power": "pow",
             "arcsin": "asin", "arccos": "acos", "arctan": "atan", "concatenate": "concat",
             "invert": "bitwise_not", "amax": "max", "amin": "min"}.get(name, name)
    hint = (f"; use dy2st.{alias}(...) (paddle.{alias}) instead" if hasattr(ops, alias)
            else "; express it with dy2st ops")
    return (f"numpy.{name}() was applied to the symbolic tensor {var.name}, whose value is only "
            f"known when the program runs{hint}")


def array_ufunc(var: Any, ufunc: Any, method: str, inputs: Tuple, kwargs: Dict) -> Any:
    """`np_array + v`, `np.float32(2) * v`: numpy hands the operator to the Variable's
    __array_ufunc__ (a defined hook is asked before the reflected operator); it is the tensor's
    own operator, as for an eager tensor. Any other use is a TypeError."""
    names = REFLECTED.get(ufunc.__name__)
    if names and method == "__call__" and not kwargs and len(inputs) == 2:
        if inputs[1] is var and inputs[0] is not var:
            return getattr(var, names[1])(inputs[0])
        if inputs[0] is var:
            return getattr(var, names[0])(inputs[1])
    raise TypeError(numpy_message(ufunc.__name__, var))
