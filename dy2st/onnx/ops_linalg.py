"""Matrix products: matmul (with transposes), linear, dot, outer."""
from __future__ import annotations

from typing import List

from .builder import OpContext
from .table import lowers, not_exportable


def _swap_last(cx: OpContext, x: str, rank: int) -> str:
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return cx.node("Transpose", [x], perm=perm)


@lowers("matmul")
def matmul(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    x, y = cx.input_as(0, d), cx.input_as(1, d)
    if cx.attrs["transpose_x"] and len(cx.in_var(0)._shape) >= 2:
        x = _swap_last(cx, x, len(cx.in_var(0)._shape))
    if cx.attrs["transpose_y"] and len(cx.in_var(1)._shape) >= 2:
        y = _swap_last(cx, y, len(cx.in_var(1)._shape))
    return [cx.node("MatMul", [x, y])]


@lowers("linear")
def linear(cx: OpContext) -> List[str]:
    out = cx.node("MatMul", [cx.input(0), cx.input(1)])
    if len(cx.values) > 2:
        out = cx.node("Add", [out, cx.input(2)])
    return [out]


@lowers("dot")
def dot(cx: OpContext) -> List[str]:
    prod = cx.node("Mul", [cx.input(0), cx.input(1)])
    return [cx.node("ReduceSum", [prod, cx.ints([-1])], keepdims=0)]


@lowers("outer")
def outer(cx: OpContext) -> List[str]:
    x = cx.node("Reshape", [cx.input(0), cx.ints([-1, 1])])
    y = cx.node("Reshape", [cx.input(1), cx.ints([1, -1])])
    return [cx.node("Mul", [x, y])]


@lowers("einsum")
def einsum(cx: OpContext) -> List[str]:
    d = cx.out_dtype
    ins = [cx.input_as(i, d) for i in range(len(cx.values))]
    return [cx.node("Einsum", ins, equation=str(cx.attrs["equation"]).replace(" ", ""))]


not_exportable("ONNX has no matrix inverse", "inv")


@lowers("det")
def det(cx: OpContext) -> List[str]:
    return [cx.node("Det", [cx.input(0)])]


not_exportable("ONNX has no matrix decompositions (sign and log-determinant, Cholesky, "
               "eigen, singular value or QR factorisations)",
               "slogdet", "cholesky", "eigh", "svd", "qr")
not_exportable("ONNX has no LU factorisation (a pivoted elimination with data-dependent row "
               "swaps) and no op turning LU pivots into a permutation matrix", "lu",
               "lu_permutation")
not_exportable("ONNX has no matrix exponential (the Padé approximant needs a linear solve and "
               "a data-dependent number of squarings)", "matrix_exp")
