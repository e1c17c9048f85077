"""A to_static call as one node of the eager tape.

When an input or a captured parameter needs a gradient, the call records one Node whose
backward runs a compiled gradient Program: the function traced again, its loops rolled, the
gradient ops appended (autograd.static_backward), optimised and compiled once per signature and
per set of tensors that need gradients. The gradient program recomputes the forward values it
needs from the saved inputs (random ops replay the draws of the forward call), so a call that
only runs inference pays nothing for it."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..autograd.engine import GradientError
from ..autograd.static_backward import (append_backward_ops, is_differentiable_value,
                                       requires_grad)
from ..autograd.tape import Node, attach, edge_of
from ..runtime.config import config
from ..runtime.executor import compile_program
from ..runtime.origin import user_origin
from ..runtime.passes import optimize
from ..runtime.passes.effects import NONDETERMINISTIC
from ..runtime.passes.roll import roll_loops
from ..runtime.pytree import flatten, unflatten
from ..runtime.tensor import Tensor


class EntryGrad:
    """Per cache entry: the captured tensors, whether the program draws random numbers, and the
    compiled gradient programs by which tensors need gradients."""

    def __init__(self, entry: Any) -> None:
        program = entry.concrete.program
        self.captured: List[Tensor] = [t for t in program.persistables.values()
                                       if isinstance(t, Tensor)]
        self.random = any(op.type in NONDETERMINISTIC for b in program.blocks for op in b.ops)
        self.own_backward = bool(program.__dict__.get("grad_slots"))
        self.programs: Dict[Tuple[bool, ...], "GradProgram"] = {}
        self.differentiable: Dict[Tuple[bool, ...], List[bool]] = {}

    def differentiable_outputs(self, entry: Any, flags: Tuple[bool, ...]) -> List[bool]:
        """Per fetched output: whether it depends on a tensor that needs a gradient (others,
        such as constants, stop gradients as they do eagerly)."""
        found = self.differentiable.get(flags)
        if found is None:
            program = entry.concrete.program
            wrt = _wrt_names(program, self.captured, flags)
            req = requires_grad(program, program.global_block(), [n for n in wrt if n])
            found = self.differentiable[flags] = [n in req for n in program.fetch_names]
        return found


def _wrt_names(program: Any, captured: List[Tensor], flags: Tuple[bool, ...]
               ) -> List[Optional[str]]:
    """Per input-then-captured tensor: the program variable standing for it when its flag is
    set (None otherwise, or when the program does not read that tensor)."""
    names_of = {id(t): n for n, t in program.persistables.items()}
    n_in = len(program.feed_names)
    return [None if not flag else program.feed_names[i] if i < n_in
            else names_of.get(id(captured[i - n_in])) for i, flag in enumerate(flags)]


def _grad_state(entry: Any) -> EntryGrad:
    state = entry.grad_state
    if state is None:
        state = entry.grad_state = EntryGrad(entry)
    return state


def _input_tensors(entry: Any, args: Tuple, kwargs: Dict) -> List[Any]:
    """The call's tensor inputs, in feed order (numpy arrays stand for constants)."""
    if entry.flat_positions is not None and not kwargs:
        return [args[i] for i in entry.flat_positions]
    from .static_function import _is_input
    leaves, _ = flatten((args, kwargs), is_leaf=_is_input)
    return [x for x in leaves if _is_input(x)]


def _needs(t: Any) -> bool:
    return isinstance(t, Tensor) and not t.stop_gradient and t._value.dtype.kind == "f"


def wants_grad(entry: Any, args: Tuple, kwargs: Dict) -> bool:
    """Whether this call must be recorded for backward (one check per input and parameter). A
    program that runs its own backward (a whole train step) is not differentiated again."""
    state = _grad_state(entry)
    if state.own_backward:
        return False
    for t in state.captured:
        if not t.stop_gradient:
            return True
    if entry.flat_positions is not None and not kwargs:
        for i in entry.flat_positions:
            a = args[i]
            if type(a) is not np.ndarray and not a.stop_gradient:
                return True
        return False
    return any(_needs(t) for t in _input_tensors(entry, args, kwargs))


class GradProgram:
    """The compiled gradient of one entry: feeds are the call's inputs then one seed per
    differentiable output; fetches are one gradient per tensor that needs one (None: unused)."""

    def __init__(self, compiled: Any, seeded: List[int], fetch_of: List[Optional[int]]) -> None:
        self.compiled = compiled
        self.seeded = seeded          # output (fetch) indices that take a seed
        self.fetch_of = fetch_of      # per input-then-captured tensor: its gradient's fetch index


def _build(static_fn: Any, entry: Any, args: Tuple, kwargs: Dict, flags: Tuple[bool, ...]
           ) -> GradProgram:
    traced = static_fn.trace_program(args, kwargs)
    program = traced.program
    roll_loops(program)
    wrt_names = _wrt_names(program, _grad_state(entry).captured, flags)
    g = program.global_block()
    targets, seeds, seeded = [], [], []
    for k, name in enumerate(program.fetch_names):
        var = g.vars[name]
        if is_differentiable_value(var):
            seed = g.create_var(var._shape, var.dtype, name=f"{name}@GRAD_SEED")
            program.feed_names.append(seed.name)
            targets.append(var)
            seeds.append(seed)
            seeded.append(k)
    grads = append_backward_ops(program, targets, seeds, [n for n in wrt_names if n])
    fetch, fetch_of = [], []
    for n in wrt_names:
        v = grads.get(n) if n else None
        if v is None:
            fetch_of.append(None)
            continue
        fetch_of.append(len(fetch))
        fetch.append(v.name)
    program.fetch_names = fetch
    program.persistable_writes = {}     # the gradient run must not update state a second time
    optimize(program)
    return GradProgram(compile_program(program, program.feed_names, fetch), seeded, fetch_of)


def call_with_grad(static_fn: Any, entry: Any, args: Tuple, kwargs: Dict,
                   feeds: List[Any]) -> Any:
    """Run the entry and record one tape node for its outputs."""
    from .static_function import _wrap_output, run_entry
    grad_state = _grad_state(entry)
    rng_state = config.rng.bit_generator.state if grad_state.random else None
    outs = run_entry(entry, feeds)
    inputs = _input_tensors(entry, args, kwargs)
    tensors = [t if isinstance(t, Tensor) else Tensor(np.asarray(t)) for t in inputs]
    tensors += grad_state.captured
    flags = tuple(_needs(t) for t in tensors)
    node = Node("to_static", {}, tensors, [edge_of(t) if f else None for t, f in zip(tensors, flags)],
                list(outs), user_origin(2))
    node.backward_fn = _Backward(static_fn, entry, args, kwargs, list(feeds), rng_state, flags)
    concrete = entry.concrete
    values, results = [], []
    for kind, v in concrete.output_leaves:
        if kind == "var":
            t = _wrap_output(outs[v])
            values.append(t)
            if isinstance(t, Tensor):
                results.append((v, t))
        else:
            values.append(v)
    differentiable = grad_state.differentiable_outputs(entry, flags)
    for index, t in results:
        if differentiable[index] and t._value.dtype.kind == "f":
            attach(node, [None] * index + [t])
    return unflatten(concrete.output_tree, values)


class _Backward:
    """The backward of one recorded call: runs the gradient program on the saved inputs."""

    def __init__(self, static_fn: Any, entry: Any, args: Tuple, kwargs: Dict,
                 feeds: List[Any], rng_state: Any, flags: Tuple[bool, ...]) -> None:
        # the arguments are kept only to trace the gradient program the first time it is needed
        self.static_fn, self.entry, self.args, self.kwargs = static_fn, entry, args, kwargs
        self.feeds, self.rng_state, self.flags = feeds, rng_state, flags

    def __call__(self, node: Node, grads: List[Any], create_graph: bool) -> List[Any]:
        if create_graph:
            raise GradientError("create_graph=True through a to_static function is not "
                                "supported; differentiate the eager function instead")
        n_in = len(self.feeds)
        for i, t in enumerate(node.inputs[n_in:], n_in):
            if self.flags[i] and getattr(t, "_version", 0) != node.versions[i]:
                raise GradientError(
                    f"the parameter {t.name or i} was changed after the to_static call "
                    f"{node.where()} used it, and backward needs its old value")
        programs = _grad_state(self.entry).programs
        gp = programs.get(self.flags)
        if gp is None:
            gp = programs[self.flags] = _build(self.static_fn, self.entry, self.args,
                                               self.kwargs, self.flags)
        arrays = list(self.feeds)
        for k in gp.seeded:
            g = grads[k]
            arrays.append(g._value if g is not None else np.zeros_like(node.out_values[k]))
        saved = None
        if self.rng_state is not None:
            saved = config.rng.bit_generator.state
            config.rng.bit_generator.state = self.rng_state
        try:
            out = gp.compiled(arrays)
        finally:
            if saved is not None:
                config.rng.bit_generator.state = saved
        return [Tensor(np.asarray(out[k])) if k is not None else None for k in gp.fetch_of]
