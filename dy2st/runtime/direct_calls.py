"""The plain numpy calls the executor writes for ops whose kernel wrapper it can skip: ndarray
method expressions (transpose, reshape, equal split pieces, matmul operands) and direct
functions (matmul, elementwise ufuncs, a float tensor's total), each giving the kernel's result
for the op's statically known inputs."""
from __future__ import annotations

from typing import Callable, Dict, Optional, Sequence

import numpy as np

from .ops.linalg import matmul_rows
from .passes.effects import elementwise_ufunc
from .program import Operator, Variable
from .registry import OPS


def method_expr(vars: Dict[str, Variable], op: Operator, ins: Sequence[str]) -> Optional[str]:
    """The ndarray method calls computing a transpose, a reshape to a fixed shape, or (the
    arguments of np.matmul for) a matmul with transposed operands, without the kernel's Python
    wrapper; None for other ops or when a shape is unknown (the kernel then checks and explains).
    vars: resolve_vars(program)."""
    if op.type == "matmul" and _bfloat16_inputs(vars, op):
        return None     # np.matmul gives float32 for bfloat16: the kernel rounds back
    shapes = []
    for n in op.inputs:
        v = vars.get(n)
        if v is None or v.kind != "dense" or not v._shape or min(v._shape) < 0:
            return None            # rank >= 1 and known: an ndarray whose shape was checked
        shapes.append(v._shape)
    attrs = op.attrs
    if op.type == "transpose" and len(ins) == 1:
        perm = attrs.get("perm")
        if isinstance(perm, list) and sorted(perm) == list(range(len(shapes[0]))):
            return f"{ins[0]}.transpose({tuple(perm)!r})"
    elif op.type == "reshape" and len(ins) == 1:
        shape = attrs.get("shape")
        if isinstance(shape, list) and all(type(d) is int and (d > 0 or d == -1) for d in shape):
            return f"{ins[0]}.reshape({tuple(shape)!r})"
    elif op.type == "split" and len(ins) == 1 and attrs.get("sections") is None:
        # equal pieces of a known dim: a basic slice, a view as getitem gives (the kernel copies
        # for eager tensors; the buffer-reuse pass never writes into a view's base)
        num, axis, index = attrs.get("num"), attrs.get("axis"), attrs.get("index")
        rank = len(shapes[0])
        if type(num) is int and type(axis) is int and type(index) is int and -rank <= axis < rank:
            dim = shapes[0][axis]
            if num > 0 and dim % num == 0 and 0 <= index < num:
                step = dim // num
                return f"{ins[0]}[{':, ' * (axis % rank)}{index * step}:{(index + 1) * step}]"
    elif op.type == "matmul" and len(ins) == 2 and all(len(s) >= 2 for s in shapes) and \
            set(attrs) == {"transpose_x", "transpose_y"}:
        flags = (attrs["transpose_x"], attrs["transpose_y"])
        if all(type(f) is bool for f in flags):
            return ", ".join(f"{x}.swapaxes(-1, -2)" if f else x for x, f in zip(ins, flags))
    return None


def _bfloat16_inputs(vars: Dict[str, Variable], op: Operator) -> bool:
    return any(getattr(vars.get(n), "dtype", None) == "bfloat16" for n in op.inputs)


def matmul_fn(vars: Dict[str, Variable], op: Operator) -> Callable:
    """np.matmul, or matmul_rows for an x of rank > 2 against a 2-D y (one GEMM, not one per
    batch index)."""
    x, y = (vars.get(n) for n in op.inputs[:2])
    if x is not None and y is not None and len(x._shape) > 2 and len(y._shape) == 2:
        return matmul_rows
    return np.matmul


def _float_total(x: np.ndarray) -> np.ndarray:
    """The sum kernel for a float array's total: a 0-d array of x's dtype."""
    return np.asarray(_add_reduce(x, axis=None), x.dtype)


_add_reduce = np.add.reduce


def direct_kernel(vars: Dict[str, Variable], op: Operator) -> Optional[Callable]:
    """A plain numpy function computing exactly this op's kernel for its (statically known)
    inputs, called without the kernel's Python wrapper; None when there is none.
    vars: resolve_vars(program)."""
    attrs = op.attrs
    if op.type == "matmul" and not attrs.get("transpose_x") and not attrs.get("transpose_y") \
            and not _bfloat16_inputs(vars, op):
        if len(op.inputs) != 2:
            return None
        # known shapes were checked when the op was built, so np.matmul cannot fail
        for n in op.inputs:
            v = vars.get(n)
            if v is None or v.kind != "dense" or len(v._shape) < 2 or min(v._shape) < 0:
                return None
        return matmul_fn(vars, op)
    if op.type == "sum" and len(op.inputs) == 1 and not attrs.get("keepdim") and \
            attrs.get("axis") in (None, [], ()) and not attrs.get("dtype"):
        v = vars.get(op.inputs[0])
        if v is not None and v.kind == "dense" and np.dtype(v.dtype.np).kind == "f":
            return _float_total
        return None
    if attrs or len(op.inputs) != 1 or op.type not in OPS:
        return None
    v = vars.get(op.inputs[0])
    if v is None or v.kind != "dense":
        return None
    dt = np.dtype(v.dtype.np)
    return elementwise_ufunc(op, dt) if dt.kind == "f" else None
