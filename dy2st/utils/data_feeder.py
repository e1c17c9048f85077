"""paddle.check_shape and the type / dtype checks it is built on (Paddle's data_feeder):
argument checks of static-graph code, skipped in eager mode as Paddle skips them."""
from __future__ import annotations

from typing import Any, Sequence, Tuple, Union

from ..runtime.dtype import dtype_name
from ..runtime.program import Variable
from . import framework


def _type_names(expected: Any) -> str:
    types = expected if isinstance(expected, tuple) else (expected,)
    return "(" + ", ".join(getattr(t, "__name__", str(t)) for t in types) + ")"


def check_type(input: Any, input_name: str, expected_type: Union[type, Tuple[type, ...]],
               op_name: str, extra_message: str = "") -> None:
    """TypeError unless input is an instance of expected_type (static mode only)."""
    if framework.in_dynamic_mode():
        return
    if not isinstance(input, expected_type):
        raise TypeError(f"The type of '{input_name}' in {op_name} must be "
                        f"{_type_names(expected_type)}, but received {type(input).__name__}. "
                        f"{extra_message}".rstrip())


def check_dtype(input_dtype: Any, input_name: str, expected_dtype: Union[str, Sequence[str]],
                op_name: str, extra_message: str = "") -> None:
    """TypeError unless input_dtype is one of expected_dtype (static mode only)."""
    if framework.in_dynamic_mode():
        return
    expected = [expected_dtype] if isinstance(expected_dtype, str) else list(expected_dtype)
    if dtype_name(input_dtype) not in [dtype_name(d) for d in expected]:
        raise TypeError(f"The data type of '{input_name}' in {op_name} must be {expected}, but "
                        f"received {dtype_name(input_dtype)}. {extra_message}".rstrip())


def check_shape(shape: Any, op_name: str,
                expected_shape_type: Tuple[type, ...] = (list, tuple, Variable),
                expected_element_type: Tuple[type, ...] = (int, Variable),
                expected_tensor_dtype: Sequence[str] = ("int32", "int64")) -> None:
    """Checks a `shape` argument of a static-graph op: a list / tuple of ints or int tensors,
    or one int tensor. Returns None; raises TypeError naming op_name. Eager mode: no check."""
    if framework.in_dynamic_mode():
        return
    check_type(shape, "shape", expected_shape_type, op_name)
    if not isinstance(shape, Variable):
        for item in shape:
            check_type(item, "element of shape", expected_element_type, op_name)
            if expected_tensor_dtype is not None and isinstance(item, Variable):
                check_dtype(item.dtype, "element of shape", expected_tensor_dtype, op_name,
                            "If element of shape is Tensor, its data type should be "
                            f"{', '.join(expected_tensor_dtype)}")
    if expected_tensor_dtype is not None and isinstance(shape, Variable):
        check_dtype(shape.dtype, "shape", expected_tensor_dtype, op_name)
