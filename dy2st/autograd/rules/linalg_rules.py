"""Gradient rules of dot, outer, inv and einsum (matmul's is in shape_rules)."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.registry import apply
from . import GradientError, register_vjp
from .util import shape_of, unbroadcast


@register_vjp("dot")
def _dot(ctx, g):
    x, y = ctx.inputs
    gu = ops.unsqueeze(g, -1) if len(shape_of(x)) == 2 else g
    return (unbroadcast(gu * y, x) if ctx.needs[0] else None,
            unbroadcast(gu * x, y) if ctx.needs[1] else None)


@register_vjp("outer")
def _outer(ctx, g):
    x, y = ctx.inputs
    gx = gy = None
    if ctx.needs[0]:
        gx = ops.reshape(ops.matmul(g, ops.reshape(y, [-1])), x.shape)
    if ctx.needs[1]:
        gy = ops.reshape(ops.matmul(g, ops.reshape(x, [-1]), True, False), y.shape)
    return gx, gy


@register_vjp("inv", saves=())
def _inv(ctx, g):
    out = ctx.outputs[0]
    # d(X^-1) = -X^-1 dX X^-1, so dL/dX = -X^-T g X^-T
    return (ops.neg(ops.matmul(ops.matmul(out, g, True, False), out, False, True)),)


def _labels(term: str, ndim: int):
    """The labels of an einsum term, with '...' expanded to one placeholder per dim."""
    head, dots, tail = term.partition("...")
    n_ell = ndim - len(head) - len(tail) if dots else 0
    return list(head) + [f".{i}" for i in range(n_ell)] + list(tail), n_ell


@register_vjp("einsum")
def _einsum(ctx, g):
    eq = ctx.attrs["equation"].replace(" ", "")
    from ...runtime.ops.einsum import _parse
    terms, rhs = _parse(eq, len(ctx.inputs))
    grads = []
    for i, (x, need) in enumerate(zip(ctx.inputs, ctx.needs)):
        if not need:
            grads.append(None)
            continue
        labels, _ = _labels(terms[i], len(shape_of(x)))
        if len(set(labels)) != len(labels):
            raise GradientError(f"einsum: the gradient of a term with a repeated label "
                                f"({terms[i]!r} in {eq!r}) is not supported")
        if "..." in terms[i] and len(labels) != len(shape_of(x)):
            raise GradientError(f"einsum {eq!r}: unsupported ellipsis use in a gradient")
        others = [t for j, t in enumerate(terms) if j != i]
        present = set(rhs.replace("...", "")) | set("".join(others).replace("...", ""))
        # labels of x that no other operand nor the output has were summed away: the gradient
        # is constant along them, so compute it without them and broadcast back
        kept = "".join(c for c in terms[i].replace("...", "") if c in present)
        if "..." in terms[i]:
            head = terms[i].split("...")[0]
            kept_term = "".join(c for c in head if c in present) + "..." + "".join(
                c for c in terms[i].split("...")[1] if c in present)
        else:
            kept_term = kept
        sub = ",".join([rhs] + others) + "->" + kept_term
        gi = apply("einsum", [g] + [t for j, t in enumerate(ctx.inputs) if j != i],
                   {"equation": sub})
        if kept_term.replace("...", "") != terms[i].replace("...", ""):
            # put back the dropped labels as size-1 dims, then broadcast to x
            dropped = [k for k, c in enumerate(labels) if not c.startswith(".") and c not in present]
            gi = ops.expand_as(ops.unsqueeze(gi, dropped), x)
        grads.append(unbroadcast(gi, x))
    return tuple(grads)
