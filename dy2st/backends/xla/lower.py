"""Lowering a Program to a jax function: each block's ops are interpreted once, while jax traces,
through the lowering table. Values whose inputs are all known while tracing (shapes, constants)
are computed by the numpy kernels themselves, so they stay static for XLA (reshape targets,
slice bounds, branch conditions known in advance)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ...runtime.collective import COLLECTIVE_OPS
from ...runtime.passes.facts import resolve_vars
from ...runtime.program import Block, Operator, Program
from ...runtime.registry import OPS
from .buffers import BUFFER_OPS, Buffer
from .loader import jax_modules
from .table import LOWERINGS, NOT_LOWERABLE, NotLowerable

# Ops never computed while tracing even when their inputs are known: they draw random numbers,
# act when the program runs, or hold tensor arrays (lowered as Python lists or buffers).
NOT_FOLDED = frozenset((
    "uniform_random", "gaussian_random", "randint", "binomial", "poisson", "standard_gamma",
    "dropout", "print", "assert", "raise", "check_defined", "cond", "while",
    "create_array", "array_write", "array_read", "array_length", "array_pop", "array_stack",
    "array_concat", "array_slice", "array_join", "tape_create", "tape_push", "tape_read",
    "array_grad_add", "array_grad_clear", "array_grad_head", "array_grad_insert", "array_grad_put",
    "array_grad_read", "array_grad_split", "array_grad_tail", "array_grad_unslice",
    "array_grad_unstack", "fractional_max_pool_nd", "grad_clear")) | COLLECTIVE_OPS
# constants larger than this are computed by XLA, not embedded into the computation
FOLD_LIMIT = 1 << 16


def is_static(v: Any) -> bool:
    """Whether v is known while tracing (a numpy value, not a jax tracer)."""
    return isinstance(v, (np.ndarray, np.generic))


class LowerContext:
    """What a lowering sees: the op being lowered, the program's variables, and the state
    threaded through the whole computation (random key, run-time failure flag)."""

    def __init__(self, program: Program) -> None:
        self.m = jax_modules()
        self.program = program
        self.vars = resolve_vars(program)
        self.op: Optional[Operator] = None
        self.key: Any = None          # the jax PRNG key; each random op splits it
        self.failed: Any = None       # bool scalar: a run-time check failed (assert, raise)
        self.overflow: Any = None     # bool scalar: a loop buffer ran out of room (buffers.py)
        self.capacity = 32            # the capacity of the buffers loops append into
        self.probing = False          # a loop body traced once to learn what it appends
        self.axis: Optional[str] = None   # the process axis of a job's collectives (spmd.py)

    # -- state threaded through cond / while ---------------------------------------------
    def get_state(self) -> List[Any]:
        return [self.key, self.failed, self.overflow]

    def set_state(self, state: Sequence[Any]) -> None:
        self.key, self.failed, self.overflow = state

    def next_key(self) -> Any:
        self.key, sub = self.m.random.split(self.key)
        return sub

    def fail_if(self, condition: Any) -> None:
        """Record that a run-time check failed when `condition` holds (the caller re-runs the
        program on numpy to raise the error at the user's line)."""
        c = self.m.jnp.asarray(condition, dtype=bool)
        self.failed = self.m.jnp.logical_or(self.failed, c)

    def overflow_if(self, condition: Any) -> None:
        """Record that a buffer was too small when `condition` holds (compiled again larger)."""
        self.overflow = self.m.jnp.logical_or(self.overflow, condition)

    # -- what inference knew of the op's outputs -------------------------------------------
    def out_var(self, i: int = 0) -> Any:
        return self.vars.get(self.op.outputs[i])

    def out_dtype(self, i: int = 0) -> np.dtype:
        return np.dtype(self.out_var(i).dtype.np)

    def not_lowerable(self, reason: str) -> NotLowerable:
        op = self.op
        return NotLowerable(reason, op.type if op else "", op.origin if op else None)

    def static_int(self, v: Any, what: str = "a size") -> int:
        """A Python int from a value known while tracing; a value computed from data is a shape
        XLA cannot express."""
        if is_static(v):
            return int(np.asarray(v).reshape(-1)[0]) if np.ndim(v) else int(v)
        raise self.not_lowerable(f"{what} depends on the data ({self.op.type})")

    # -- running blocks --------------------------------------------------------------------
    def run_block(self, block: Block, args: Sequence[Any]) -> List[Any]:
        """The block's results for param values `args`."""
        env: Dict[str, Any] = dict(zip(block.params, args))
        self.run_ops(block, env)
        return [env[r] for r in block.results]

    def run_ops(self, block: Block, env: Dict[str, Any]) -> None:
        for op in block.ops:
            ins = [env[n] for n in op.inputs]
            self.op = op
            outs = self.lower_op(op, ins)
            for name, value in zip(op.outputs, outs):
                env[name] = self.fix(name, value)

    def lower_op(self, op: Operator, ins: List[Any]) -> Sequence[Any]:
        n_out = OPS[op.type].n_outputs if op.type in OPS else len(op.outputs)
        if op.type not in NOT_FOLDED and all(is_static(v) for v in ins) and self._small(op):
            try:
                out = OPS[op.type].kernel(*ins, **op.attrs)
            except Exception:  # noqa: BLE001 - the op then runs (and fails) where numpy would
                out = None
            if out is not None:
                outs = (out,) if n_out == 1 else tuple(out)
                if all(isinstance(o, (np.ndarray, np.generic, int, float, bool)) for o in outs):
                    return [np.asarray(o) for o in outs]
        if op.type not in BUFFER_OPS and any(isinstance(v, Buffer) for v in ins):
            raise NotLowerable(f"{op.type} of a tensor array that a loop with a data-dependent "
                               "trip count filled: its length depends on the data", op.type,
                               op.origin)
        fn = LOWERINGS.get(op.type)
        if fn is None:
            reason = NOT_LOWERABLE.get(op.type, f"no XLA lowering for op {op.type!r}")
            raise NotLowerable(reason, op.type, op.origin)
        try:
            out = fn(self, *ins, **op.attrs)
        except NotLowerable as e:
            if e.origin is None:
                e.op_type, e.origin = op.type, op.origin
            raise
        self.op = op
        if op.type in ("cond", "while") or n_out != 1:    # these give a tuple of outputs
            return tuple(out)
        return (out,)

    def _small(self, op: Operator) -> bool:
        """Whether op's outputs are dense and small enough to embed as constants (a dim unknown
        to inference comes from static inputs here, so it is small)."""
        for name in op.outputs:
            var = self.vars.get(name)
            if var is None or var.kind != "dense":
                return False
            if all(d >= 0 for d in var._shape) and int(np.prod(var._shape)) > FOLD_LIMIT:
                return False
        return True

    def fix(self, name: str, value: Any) -> Any:
        """The value in the dtype the program declared (jax promotes types its own way)."""
        var = self.vars.get(name)
        if var is None or var.kind != "dense" or value is None:
            return value
        want = np.dtype(var.dtype.np)
        if is_static(value):
            return value if value.dtype == want else np.asarray(value, dtype=want)
        if value.dtype != want:
            return value.astype(want)
        return value
