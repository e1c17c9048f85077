"""The backward of a to_static call for some of its outputs only, as eager's engine never visits
the ops of an output no gradient reached: zero seeds for those outputs ran their gradient ops,
and 0 * inf (the gradient of sqrt at 0, of log at 0, ...) made NaN in a gradient eager gives."""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from ..autograd.absent_gradients import Unsupported, prune_absent
from ..backends import compile_for
from ..runtime.passes import optimize
from ..runtime.program import Program
from ..runtime.program_clone import clone_program
from .program_replay import JointProgram

# (the compiled backward, the outputs it takes seeds for, per input-then-captured tensor: its
# gradient's fetch index or None)
Partial = Tuple[Any, List[int], List[Optional[int]]]


class PartialBackwards:
    """Per set of outputs given a gradient: the call's gradient program without the ops that
    only the other outputs' seeds reach (autograd/absent_gradients.py), built once, when a
    backward first reaches only them. It reads the same inputs and residuals as the full
    gradient program, so the training forward is the same; where an absent gradient cannot be
    left out (a zero of unknown shape would be needed), the call keeps the full gradient
    program with zero seeds."""

    def __init__(self, backward: Program, seeded: List[int], seeds: List[str],
                 fetch_of: List[Optional[int]], backend: str) -> None:
        self.backward = clone_program(backward)     # before optimize: each op by its rule
        self.feed_names, self.fetch_names = list(backward.feed_names), list(backward.fetch_names)
        self.seeded, self.seeds = seeded, seeds     # output indices, their seeds' names
        self.fetch_of, self.backend = fetch_of, backend
        self.built: Dict[FrozenSet[int], Optional[Partial]] = {}
        self.joints: Dict[FrozenSet[int], Optional[Tuple[JointProgram, List[Optional[int]]]]] = {}

    def get(self, given: FrozenSet[int]) -> Optional[Partial]:
        if given not in self.built:
            self.built[given] = self._build(given)
        return self.built[given]

    def joint(self, given: FrozenSet[int], full: JointProgram
              ) -> Optional[Tuple[JointProgram, List[Optional[int]]]]:
        """The create_graph replay of the outputs in `given` alone: `full` (the call's joint
        program) with its gradient ops pruned as the fast backward's, so that a second-order
        gradient meets no `0 * inf` of the other outputs' ops either; with its fetch_of. None
        where they cannot be left out (the replay then seeds zeros, as before)."""
        if given not in self.joints:
            self.joints[given] = self._build_joint(given, full)
        return self.joints[given]

    def _absent(self, given: FrozenSet[int]) -> List[str]:
        return [s for k, s in zip(self.seeded, self.seeds) if k not in given]

    def _renumber(self, kept: List[bool]) -> List[Optional[int]]:
        """fetch_of for the fetches `kept` (a fetch the program does not have is not kept)."""
        position, renumber = 0, []
        for keep in kept:
            renumber.append(position if keep else None)
            position += keep
        return [renumber[k] if k is not None and k < len(renumber) else None
                for k in self.fetch_of]

    def _build(self, given: FrozenSet[int]) -> Optional[Partial]:
        program = clone_program(self.backward)      # pruning edits it
        program.feed_names, program.fetch_names = list(self.feed_names), list(self.fetch_names)
        try:
            kept = prune_absent(program, self.seeds, self._absent(given))
        except Unsupported:
            return None
        fetch_of = self._renumber(kept)
        optimize(program)
        compiled = compile_for(self.backend, program, program.feed_names, program.fetch_names)
        return compiled, self.seeded, fetch_of

    def _build_joint(self, given: FrozenSet[int], full: JointProgram
                     ) -> Optional[Tuple[JointProgram, List[Optional[int]]]]:
        # the gradient ops of a clone made with the full replay's (its variables belong to the
        # call's program, which passes have changed since), after the forward ops it replays
        program = clone_program(self.backward)
        program.fetch_names = list(full.fetch)
        try:
            kept = prune_absent(program, self.seeds, self._absent(given))
        except Unsupported:
            return None
        block = program.global_block()
        block.ops = full.program.global_block().ops[:full.split] + block.ops
        joint = JointProgram(program, full.split, full.inputs, full.seeds, full.residuals,
                             program.fetch_names, full.wrt)
        return joint, self._renumber(kept)
