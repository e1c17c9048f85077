"""Which ops compute on complex inputs: every other op refuses a complex input with a TypeError
(before computing anything) instead of casting it to a real dtype and losing its imaginary part."""
from __future__ import annotations

import sys
from typing import Any, NoReturn, Optional

from .dtype import dtype_name
from .errors import reraise_as
from .origin import user_origin

# Each op here keeps a complex input complex (kernel and dtype inference), gives numpy's complex
# result, and has a gradient that is complex-aware or holomorphic / real-linear (the conjugate
# convention `register_vjp` wraps around its rule then holds). Ordering ops (floor, maximum,
# sort, clip, relu...), integer ops and real special functions are refused, as in Paddle.
COMPLEX_CAPABLE = frozenset((
    # data movement, control flow, bookkeeping: the values pass through unchanged
    "assign", "cast", "detach", "no_grad_update", "concat", "stack", "split", "split_grad",
    "unbind", "unbind_grad", "reshape", "squeeze", "unsqueeze", "flatten", "transpose", "expand",
    "tile", "tile_grad", "flip", "roll", "tril", "triu", "diag", "diag_grad", "where",
    "getitem", "getitem_grad", "setitem", "strided_slice", "strided_slice_grad", "gather",
    "gather_grad", "gather_nd", "gather_nd_grad", "take_along_axis", "put_along_axis", "scatter",
    "masked_select", "masked_select_grad", "nonzero", "pad_grad", "embedding_grad", "shape",
    "numel", "full_like", "fill", "cond", "while", "check_defined", "print", "assert", "raise",
    "py_layer", "create_array", "array_read", "array_write", "array_length", "array_stack",
    "array_concat", "array_join", "array_pop", "array_slice", "array_grad_add",
    "array_grad_clear", "array_grad_head", "array_grad_insert", "array_grad_put",
    "array_grad_read", "array_grad_split", "array_grad_tail", "array_grad_unslice",
    "array_grad_unstack", "tape_create", "tape_push", "tape_read", "shape_holder",
    "grad_accumulate", "grad_present", "grad_clear", "reduce_as", "c_allreduce", "c_allgather",
    "c_broadcast", "c_reducescatter", "c_alltoall",
    # arithmetic and the holomorphic elementwise functions
    "add", "subtract", "multiply", "divide", "pow", "scale", "neg", "square", "reciprocal",
    "rsqrt", "sqrt", "exp", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "sinh", "cosh",
    "tanh", "asin", "acos", "atan", "sigmoid",
    # tests and comparisons; the ordered ones compare (real, imag) lexicographically, as numpy
    # and Paddle 3.3.1 do; logical ops test for nonzero
    "equal", "not_equal", "equal_all", "isclose", "allclose", "isnan", "isinf", "isfinite",
    "any", "all", "less_than", "less_equal", "greater_than", "greater_equal", "logical_and",
    "logical_or", "logical_xor", "logical_not",
    # piecewise constant: round rounds both parts, sign is z / |z| (0 at 0); zero gradients
    "round", "sign",
    # activations holomorphic in z (softplus switches on Re(beta z) > threshold), softsign
    # z / (1 + |z|) with its own complex rule, linear, dropout (a real mask)
    "silu", "softplus", "log_sigmoid", "softsign", "linear", "dropout",
    # reductions and products
    "sum", "mean", "prod", "cumsum", "cumprod", "cumprod_grad", "matmul", "dot", "outer",
    "einsum", "det", "inv", "matrix_exp",
    # the complex ops themselves
    "abs", "real", "imag", "conj", "angle", "complex", "as_real", "as_complex", "eig",
    "fft_c2c", "fft_r2c", "fft_c2r", "fft_r2c_grad", "fft_c2r_grad",
))


def complex_refusal(op: str, dtype: Any, origin: Optional[Any] = None) -> NoReturn:
    """Raise the TypeError of op `op` given a complex input of `dtype`, naming the user's line."""
    message = (f"{op}: does not support complex input (got {dtype_name(dtype)}); take paddle.real / "
               f"paddle.imag / paddle.abs of the tensor first if that is what is meant")
    plain = message
    if origin is not None:
        message += f'\n  File "{origin.file}", line {origin.line}, in {origin.function}'
        if origin.source:
            message += f"\n    {origin.source.strip()}"
    e = TypeError(plain)
    e.dy2st_plain = plain
    reraise_as(e, message, origin)


def asking_function(skip: int = 2) -> str:
    """The name of the nearest public dy2st function on the stack (the op a user called) for a
    refusal raised in a shared helper; only the error path pays for the walk."""
    frame = sys._getframe(skip)
    while frame is not None:
        code = frame.f_code
        if not code.co_name.startswith(("_", "<")) and "dy2st" in code.co_filename:
            return code.co_name
        frame = frame.f_back
    return "cast"


def refuse_complex(op: str, *tensors: Any) -> None:
    """For a function composed of complex-capable ops whose formula holds for real values only
    (a transpose that should conjugate, say): refuse a complex input as an op would."""
    for x in tensors:
        dtype = getattr(x, "dtype", None)
        if dtype is not None and getattr(dtype, "is_complex", False):
            complex_refusal(op, dtype, user_origin(3))
