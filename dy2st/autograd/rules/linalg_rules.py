"""Gradient rules of dot, outer, inv and einsum (matmul's is in shape_rules)."""
from __future__ import annotations

from ...runtime import ops
from ...runtime.ops.einsum import parse_equation
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


def _explicit(terms, rhs, ranks):
    """The equation with every '...' spelled out in letters the equation does not use
    (the ellipses of all operands broadcast together, aligned on the right)."""
    used = set("".join(terms) + rhs)
    n_ell = [r - len(t.replace("...", "")) if "..." in t else 0 for t, r in zip(terms, ranks)]
    spare = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in used]
    ell = "".join(spare[:max(n_ell + [0])])
    out_terms = [t.replace("...", ell[len(ell) - n:] if n else "") for t, n in zip(terms, n_ell)]
    return out_terms, rhs.replace("...", ell)


@register_vjp("einsum")
def _einsum(ctx, g):
    terms, rhs = parse_equation(ctx.attrs["equation"], len(ctx.inputs))
    terms, rhs = _explicit(terms, rhs, [len(shape_of(x)) for x in ctx.inputs])
    grads = []
    for i, (x, need) in enumerate(zip(ctx.inputs, ctx.needs)):
        if not need:
            grads.append(None)
            continue
        term = terms[i]
        if len(set(term)) != len(term):
            raise GradientError(f"einsum: the gradient of a term with a repeated label "
                                f"({term!r} in {ctx.attrs['equation']!r}) is not supported")
        others = [t for j, t in enumerate(terms) if j != i]
        present = set(rhs) | set("".join(others))
        # labels of x that neither the output nor another operand has were summed away: the
        # gradient is constant along them, so compute it without them and broadcast back
        kept = "".join(c for c in term if c in present)
        sub = ",".join([rhs] + others) + "->" + kept
        gi = apply("einsum", [g] + [t for j, t in enumerate(ctx.inputs) if j != i],
                   {"equation": sub})
        if kept != term:
            dropped = [k for k, c in enumerate(term) if c not in present]
            gi = ops.expand_as(ops.unsqueeze(gi, dropped), x)
        grads.append(unbroadcast(gi, x))
    return tuple(grads)
