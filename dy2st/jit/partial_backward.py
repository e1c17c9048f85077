"""The backward of a to_static call for some of its outputs only, as eager's engine never visits
the ops of an output no gradient reached: zero seeds for those outputs ran their gradient ops,
and 0 * inf (the gradient of sqrt at 0, of log at 0, ...) made NaN in a gradient eager gives."""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from ..autograd.static_backward import append_backward_ops
from ..backends import compile_for
from ..runtime.passes import optimize
from ..runtime.program import Program
from ..runtime.program_clone import clone_program

# (the compiled backward, the outputs it takes seeds for, per input-then-captured tensor: its
# gradient's fetch index or None)
Partial = Tuple[Any, List[int], List[Optional[int]]]


def has_sub_blocks(program: Program) -> bool:
    return any(op.sub_blocks() for op in program.global_block().ops)


class PartialBackwards:
    """Per set of outputs given a gradient: the gradient program of those alone, built from a
    copy of the traced forward, once, when a backward first reaches only them. It reads the
    residuals the full training forward fetched; a program whose gradient would need another
    forward value (a tensor `if` or loop adds outputs and tapes to the forward) has none, and
    the call keeps the full gradient program with zero seeds."""

    def __init__(self, forward: Program, seed_names: Dict[int, str], inputs: List[str],
                 residuals: List[str], wrt_names: List[Optional[str]], backend: str) -> None:
        self.forward = forward          # the traced program before gradient ops were appended
        self.seed_names = seed_names    # output index -> its seed's name
        self.inputs, self.residuals = inputs, residuals
        self.wrt_names, self.backend = wrt_names, backend
        self.built: Dict[FrozenSet[int], Optional[Partial]] = {}

    def get(self, given: FrozenSet[int]) -> Optional[Partial]:
        if given not in self.built:
            self.built[given] = self._build(sorted(given))
        return self.built[given]

    def _build(self, given: List[int]) -> Optional[Partial]:
        program = clone_program(self.forward)       # appending edits it
        g = program.global_block()
        forward_ops = [id(op) for op in g.ops]
        outputs = list(program.fetch_names)
        targets = [g.vars[outputs[k]] for k in given]
        seeds = [g.create_var(t._shape, t.dtype, name=self.seed_names[k])
                 for k, t in zip(given, targets)]
        wrt = [n for n in self.wrt_names if n]
        grads = append_backward_ops(program, targets, seeds, wrt)
        n_fwd = len(forward_ops)
        if [id(op) for op in g.ops[:n_fwd]] != forward_ops:
            return None
        fetch, fetch_of = [], []
        for n in self.wrt_names:
            v = grads.get(n) if n else None
            fetch_of.append(None if v is None else len(fetch))
            if v is not None:
                fetch.append(v.name)
        defined = {n for op in g.ops[:n_fwd] for n in op.outputs}
        read = {n for op in g.ops[n_fwd:] for n in op.inputs} | set(fetch)
        if not (read & defined) <= set(self.residuals):
            return None
        g.ops = g.ops[n_fwd:]
        program.feed_names = self.inputs + self.residuals + [s.name for s in seeds]
        program.fetch_names = fetch
        program.persistable_writes = {}
        optimize(program)
        return compile_for(self.backend, program, program.feed_names, fetch), given, fetch_of
