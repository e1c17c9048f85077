"""A `.grad` that is None (the host's dropped-gradient marker, grad_kernels.dropped) cannot live in
a device array: where it matters, a run goes to the numpy executor, and a program that writes one
hands the marker back by fetch position."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

from ...runtime.ops.grad_kernels import dropped, is_dropped
from ...runtime.program import Program


class GradMarkers:
    """Where one program meets the dropped-gradient marker.

    reads     persistables (positions among the parameters it reads) whose marker changes the
              result: asked about (grad_present), or written back and read by an op other than
              the accumulation into them (a `cond` keeping `.grad` unchanged on a path that
              computed no gradient); a run with one of them holding the marker runs on numpy
    written   fetch positions of `clear_grad(set_to_zero=False)` results: zeros on the device,
              the marker after the run
    refusal   why the whole program runs on numpy (the marker made in a branch or read on), or
              None"""

    def __init__(self, program: Program, persistable_names: Sequence[str],
                 fetch_names: Sequence[str]) -> None:
        consumers = [(op, i) for b in program.blocks for op in b.ops
                     for i, n in enumerate(op.inputs)]
        # (only a `.grad` slot holds the marker: one the program writes back, or asks about)
        params, written = set(persistable_names), set(program.persistable_writes)
        read = set()
        for op, i in consumers:
            name = op.inputs[i]
            if name in params and (op.type == "grad_present" or name in written and not (
                    op.type == "grad_accumulate" and i == 0)):
                read.add(name)
        self.reads: List[int] = [k for k, n in enumerate(persistable_names) if n in read]
        self.written: List[int] = []
        self.refusal: Optional[str] = None
        made = {op.outputs[0]: b.idx for b in program.blocks for op in b.ops
                if op.type == "grad_clear" and not op.attrs.get("set_to_zero", True)}
        if not made:
            return
        if any(idx for idx in made.values()) or any(
                op.inputs[i] in made and not (op.type == "grad_accumulate" and i == 0)
                for op, i in consumers):
            self.refusal = ("clear_grad(set_to_zero=False) in a branch, or its None `.grad` read "
                            "on: a device array cannot stand for None")
            return
        self.written = [k for k, n in enumerate(fetch_names) if n in made]

    def host_only(self, params: Sequence[Any]) -> bool:
        """Whether this run must go to numpy: a parameter it reads holds the marker."""
        return any(is_dropped(params[k]) for k in self.reads)

    def restore(self, outs: List[Any]) -> List[Any]:
        """The run's outputs with the marker back where the program wrote it."""
        for k in self.written:
            outs[k] = dropped(outs[k].shape, outs[k].dtype)
        return outs
