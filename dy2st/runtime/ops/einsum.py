"""einsum, with static shape inference from the equation (labels, '...' and '->')."""
from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from ..registry import Meta, apply, register_op
from . import infer as I
from .operands import promote
from .shape import same_dtype


def parse_equation(equation: str, n_inputs: int) -> Tuple[List[str], str]:
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != n_inputs:
        raise ValueError(f"einsum: equation {equation!r} has {len(terms)} operands, got {n_inputs}")
    if not arrow:       # implicit output: labels used once, in alphabetical order
        letters = "".join(t.replace("...", "") for t in terms)
        rhs = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    return terms, rhs


def _merge(label: str, old: Any, d: int, xs: Sequence[Any]) -> int:
    """One size for a label seen twice: equal, or one is 1 (broadcast) or unknown (-1)."""
    if old is None or old == d or old == 1:
        return d
    if d == 1:
        return old
    if old == -1 or d == -1:
        return max(old, d)
    raise ValueError(f"einsum: label {label!r} has sizes {old} and {d} "
                     f"(operand shapes {[list(v._shape) for v in xs]})")


def _einsum_infer(*xs, equation):
    terms, rhs = parse_equation(equation, len(xs))
    dims: Dict[str, int] = {}
    ell: Tuple[int, ...] = ()
    for term, x in zip(terms, xs):
        shape = list(x._shape)
        head, dots, tail = term.partition("...")
        n_ell = len(shape) - len(head) - len(tail) if dots else 0
        if n_ell < 0 or (not dots and len(term) != len(shape)):
            raise ValueError(f"einsum: term {term!r} does not match an operand of shape {shape}")
        labels = list(head) + ["."] * n_ell + list(tail)
        ell = I.broadcast_shapes("einsum", ell, shape[len(head):len(head) + n_ell])
        for c, d in zip(labels, shape):
            if c == ".":
                continue
            dims[c] = _merge(c, dims.get(c), d, xs)
    out: List[int] = []
    head, dots, tail = rhs.partition("...")
    for c in head:
        out.append(dims[c])
    if dots:
        out.extend(ell)
    for c in tail:
        out.append(dims[c])
    d = xs[0].dtype
    for x in xs[1:]:
        d = promote(d, x.dtype)
    return Meta(tuple(out), d)


@register_op("einsum", infer=_einsum_infer)
def _einsum_kernel(*xs, equation):
    return np.asarray(np.einsum(equation, *xs))


def einsum(equation: str, *operands: Any) -> Any:
    """Sums of products over the labels of `equation`, e.g. einsum('ij,jk->ik', a, b)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    xs = same_dtype(list(operands))
    return apply("einsum", xs, {"equation": equation})
