"""`jit.save(..., output_spec=[...], input_names_after_prune=[...])`: keep only the chosen outputs
of the exported program (by position, or tensors returned by the last call) and the named inputs."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

from ..format.concrete import ConcreteProgram
from ..runtime.passes.dce import eliminate_dead_code
from ..runtime.pytree import flatten
from ..runtime.tensor import Tensor


def prune_outputs(concrete: ConcreteProgram, last: Any, output_spec: Sequence[Any]) -> None:
    """Keep the outputs output_spec chooses, in its order: an int is a position among the
    tensors the function returns (flattened, as Paddle 3 counts them; no call needed), a Tensor
    one of the tensors the last call of the converted function returned (`last`, a cache entry
    holding that call's arrays)."""
    export_leaves = [v for kind, v in concrete.output_leaves if kind == "var"]
    picked = [_position(t, i, export_leaves, last) for i, t in enumerate(output_spec)]
    program = concrete.program
    names = [program.fetch_names[export_leaves[j]] for j in picked]
    # the buffers a call updates stay updated (fetched after the outputs, as traced)
    program.fetch_names = names + list(program.persistable_writes.values())
    concrete.output_leaves = [("var", i) for i in range(len(names))]
    concrete.number_leaves = ()     # output_spec holds tensors only
    _, concrete.output_tree = flatten(0 if len(names) == 1 else [0] * len(names))
    eliminate_dead_code(program)


def _position(t: Any, i: int, export_leaves: List[int], last: Any) -> int:
    """The position among the saved program's tensor outputs that output_spec[i] names."""
    n = len(export_leaves)
    if isinstance(t, int) and not isinstance(t, bool):
        if not -n <= t < n:
            raise ValueError(f"jit.save: output_spec[{i}] is position {t}, but the function "
                             f"returns {n} tensor(s) (positions 0 to {n - 1})")
        return t % n
    if not isinstance(t, Tensor):
        raise TypeError(f"jit.save: output_spec holds positions (ints) of the returned tensors "
                        f"or Tensors a call of the converted function returned; output_spec[{i}] "
                        f"is {type(t).__name__}")
    outs = getattr(last, "last_outs", None) if last is not None else None
    if outs is None:
        raise ValueError(f"jit.save: output_spec[{i}] is a Tensor, which names an output of a "
                         "call of the converted function, but it was never called: give the "
                         "output's position (an int, as Paddle 3 does) or call the converted "
                         "function once before saving")
    var_leaves = [v for kind, v in last.concrete.output_leaves if kind == "var"]
    if len(var_leaves) != n:
        raise ValueError("jit.save: the saved signature returns other outputs than the last "
                         "call; give output_spec for a call with the same inputs, or positions")
    where = next((j for j, k in enumerate(var_leaves) if outs[k] is t._value), None)
    if where is None:
        raise ValueError(f"jit.save: output_spec[{i}] is not one of the outputs of the last call "
                         "of the converted function (or was changed in place since); "
                         "give its position (an int) instead")
    return where


def prune_inputs(concrete: ConcreteProgram, keep: Sequence[str],
                 spec_names: Optional[List[Optional[str]]] = None) -> None:
    """Keep the inputs named in `keep` (by InputSpec, Tensor or argument name) and those the
    remaining program reads; an unnamed tensor (name '') names nothing, so pruning by the
    names of plain eager tensors keeps exactly the inputs the kept outputs need."""
    if concrete.input_structure is not None:
        raise ValueError("jit.save: input_names_after_prune needs each input to be an argument "
                         "of its own")
    program = concrete.program
    aliases = spec_names or [None] * len(concrete.inputs)
    names_of = [{n for n in (spec.name, feed, alias) if n}
                for spec, feed, alias in zip(concrete.inputs, program.feed_names, aliases)]
    wanted = {n for n in keep if n}
    unknown = wanted - set().union(*names_of) if names_of else wanted
    if unknown:
        raise ValueError(f"jit.save: input_names_after_prune names {sorted(unknown)}, which are "
                         f"not inputs (the inputs are {program.feed_names})")
    read = {n for b in program.blocks for op in b.ops for n in op.inputs}
    read |= set(program.fetch_names)
    kept = [i for i, feed in enumerate(program.feed_names)
            if feed in read or names_of[i] & wanted]
    concrete.inputs = [concrete.inputs[i] for i in kept]
    program.feed_names = [program.feed_names[i] for i in kept]
