"""The gradient rules: one vector-Jacobian product (VJP) per op, written with dy2st ops so the
same rule computes eager gradients and appends gradient ops to a static Program.

A rule is `vjp(ctx, *out_grads) -> in_grads` (one entry per op input, None where there is no
gradient). `ctx.inputs` / `ctx.outputs` are the op's tensors (eager Tensors or static Variables),
`ctx.attrs` its attributes and `ctx.needs[i]` whether input i wants a gradient."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Set


class GradientError(RuntimeError):
    """A gradient cannot be computed (freed graph, changed input, missing rule, ...)."""


class Rule(NamedTuple):
    fn: Callable[..., Sequence[Any]]
    # indices of the inputs whose values the rule reads (None: all); only these are checked
    # for in-place changes between the forward op and backward
    saves: Optional[Sequence[int]]


RULES: Dict[str, Rule] = {}
NO_GRAD: Set[str] = set()     # ops whose outputs never carry a gradient (comparisons, argmax, ...)


def register_vjp(*names: str, saves: Optional[Sequence[int]] = None) -> Callable:
    """Declare the decorated function as the VJP rule of the ops `names`."""
    def deco(fn: Callable) -> Callable:
        for name in names:
            if name in RULES or name in NO_GRAD:
                raise ValueError(f"op {name!r} has a gradient rule already")
            RULES[name] = Rule(fn, tuple(saves) if saves is not None else None)
        return fn
    return deco


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
    from . import math_rules, nn_rules, reduce_rules, shape_rules  # noqa: F401
    from . import (activation_rules, array_rules, index_rules, linalg_rules,  # noqa: F401
                   loss_rules, norm_rules, rearrange_rules, stats_rules)
    from . import cnn_rules  # noqa: F401
    from . import decomposition_rules  # noqa: F401
    from . import special_rules  # noqa: F401
