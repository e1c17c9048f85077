"""The gradient rules: one vector-Jacobian product (VJP) per op, written with dy2st ops so the
same rule computes eager gradients and appends gradient ops to a static Program.

A rule is `vjp(ctx, *out_grads) -> in_grads` (one entry per op input, None where there is no
gradient). `ctx.inputs` / `ctx.outputs` are the op's tensors (eager Tensors or static Variables),
`ctx.attrs` its attributes and `ctx.needs[i]` whether input i wants a gradient."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Set

from ...runtime import ops
from ...runtime.dtype import complex64, complex128

_COMPLEX = (complex64, complex128)


class GradientError(RuntimeError):
    """A gradient cannot be computed (freed graph, changed input, missing rule, ...)."""


class Rule(NamedTuple):
    fn: Callable[..., Sequence[Any]]
    # indices of the inputs whose values the rule reads (None: all); only these are checked
    # for in-place changes between the forward op and backward
    saves: Optional[Sequence[int]]


RULES: Dict[str, Rule] = {}
NO_GRAD: Set[str] = set()     # ops whose outputs never carry a gradient (comparisons, argmax, ...)
# ops whose rule gets None (not zeros) for an output that received no gradient (a PyLayer whose
# backward asked for no zero-filled gradients)
KEEPS_NONE: Set[str] = {"py_layer_multi"}


def register_vjp(*names: str, saves: Optional[Sequence[int]] = None,
                 complex_aware: bool = False) -> Callable:
    """Declare the decorated function as the VJP rule of the ops `names`. A rule written for
    real tensors serves complex ones through `conjugate_convention` (see there); a rule that
    handles complex values itself says complex_aware=True."""
    def deco(fn: Callable) -> Callable:
        rule = fn if complex_aware else conjugate_convention(fn)
        for name in names:
            if name in RULES or name in NO_GRAD:
                raise ValueError(f"op {name!r} has a gradient rule already")
            RULES[name] = Rule(rule, tuple(saves) if saves is not None else None)
        return fn
    return deco


def conjugate_convention(fn: Callable[..., Sequence[Any]]) -> Callable[..., Sequence[Any]]:
    """A real rule `g * f'(x)` made to give Paddle's complex gradient `g * conj(f'(z))`
    (dL/dRe z + i dL/dIm z for a real loss L): for ops holomorphic or real-linear in their
    complex inputs that is conj(rule(conj(g))). Each input's gradient then takes its dtype: the
    real part for a real input, a complex one for a complex input."""
    def rule(ctx: "VjpContext", *gs: Any) -> Sequence[Any]:
        if not any(getattr(g, "dtype", None) in _COMPLEX for g in gs):
            if not any(getattr(x, "dtype", None) in _COMPLEX for x in ctx.inputs):
                return fn(ctx, *gs)
            return _as_input_dtypes(ctx, fn(ctx, *gs))
        res = fn(ctx, *[ops.conj(g) if getattr(g, "dtype", None) in _COMPLEX else g
                        for g in gs])
        return _as_input_dtypes(ctx, [ops.conj(r) if getattr(r, "dtype", None) in _COMPLEX
                                      else r for r in res])
    rule.__name__ = getattr(fn, "__name__", "rule")
    rule.__doc__ = fn.__doc__
    return rule


def _as_input_dtypes(ctx: "VjpContext", res: Sequence[Any]) -> List[Any]:
    out = list(res)
    for i, (x, r) in enumerate(zip(ctx.inputs, out)):
        rd, xd = getattr(r, "dtype", None), getattr(x, "dtype", None)
        if rd is None or xd is None or rd == xd or not (rd.is_complex or xd.is_complex):
            continue
        out[i] = ops.cast(r, xd) if xd.is_inexact else None     # a real input keeps Re(g)
    return out


def mark_no_grad(*names: str) -> None:
    """Declare ops that have no gradient: their outputs stop gradients."""
    for name in names:
        if name in RULES:
            raise ValueError(f"op {name!r} has a gradient rule")
        NO_GRAD.add(name)


class VjpContext:
    """What a rule sees of one op application."""

    __slots__ = ("op_type", "inputs", "outputs", "attrs", "needs")

    def __init__(self, op_type: str, inputs: List[Any], outputs: List[Any], attrs: Dict[str, Any],
                 needs: List[bool]) -> None:
        self.op_type = op_type
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self.needs = needs


def load_rules() -> None:
    """Import every rule module (each registers its rules on import)."""
    # circle: autograd.rules.math_rules imports this module at import time
    from . import math_rules, nn_rules, reduce_rules, shape_rules  # noqa: F401
    # circle: autograd.rules.activation_rules imports this module at import time
    from . import (activation_rules, array_rules, index_rules, linalg_rules,  # noqa: F401
                   loss_rules, norm_rules, rearrange_rules, stats_rules)
    # circle: autograd.rules.cnn_rules imports this module at import time
    from . import cnn_rules  # noqa: F401
    # circle: autograd.rules.decomposition_rules imports this module at import time
    from . import decomposition_rules  # noqa: F401
    # circle: autograd.rules.special_rules imports this module at import time
    from . import special_rules  # noqa: F401
    # circle: autograd.rules.factor_rules imports this module at import time
    from . import factor_rules  # noqa: F401
    # the complex and FFT rules register on import, when the other rule modules load
    from . import complex_rules, fft_rules  # noqa: F401
    from . import detection  # noqa: F401 - registers the vision ops on import
    from . import host_call_rules  # noqa: F401 - registers py_func's rule on import
