"""A to_static call as one node of the eager tape.

When an input or a captured parameter needs a gradient, the call runs a training forward and
records one Node whose backward runs a compiled gradient Program. Both come from the function
traced again with its loops rolled and the gradient ops appended (autograd.static_backward),
split after the last forward op: the forward also fetches the values the gradient ops read (the
residuals, kept by the node, as eager autograd keeps what its ops saved), so nothing is computed
twice. They are compiled once per signature and per set of tensors that need gradients; a call
that only runs inference uses the plain program and pays nothing for training."""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Optional, Tuple

import numpy as np

from ..autograd.engine import GradientError, freed_error
from ..autograd.new_leaves import made_leaves
from ..autograd.static_backward import append_backward_ops, is_differentiable_value, requires_grad
from ..autograd.tape import Node, attach, edge_of
from ..autograd.traced_inputs import bind, bindings, owns_backward
from ..autograd.traced_retain import backward_path
from ..backends import compile_for
from ..format.input_spec import InputSpec
from ..runtime.dtype import INEXACT_NUMPY
from ..runtime.leaf_notes import new_leaves
from ..runtime.origin import user_origin
from ..runtime.passes import optimize
from ..runtime.passes.roll import roll_loops
from ..runtime.persistable import store
from ..runtime.program_clone import clone_program
from ..runtime.pytree import flatten, unflatten
from ..runtime.tensor import Tensor
from .absent_keys import ABSENT, drop_absent
from .errors import raise_run_error
from .leaf_values import picked
from .partial_backward import PartialBackwards
from .path_grads import PathFlags, path_flags
from .program_replay import JointProgram, random_outputs, replay, snapshot


def is_input(x: Any) -> bool:
    """A leaf of a call's arguments that feeds the program (the rest are Python values)."""
    return isinstance(x, (Tensor, np.ndarray, InputSpec))


def wrap_output(value: Any) -> Any:
    """A returned tensor array (a Python list when run) comes back as a list of Tensors."""
    if isinstance(value, list):
        return [Tensor(np.asarray(v)) for v in value]
    return Tensor(value if type(value) is np.ndarray else np.asarray(value))


class EntryGrad:
    """Per cache entry: the captured tensors and the compiled training programs by which
    tensors need gradients."""

    def __init__(self, entry: Any) -> None:
        program = entry.concrete.program
        self.captured: List[Tensor] = [t for t in program.persistables.values()
                                       if isinstance(t, Tensor)]
        self.own_backward = owns_backward(program)
        noted = new_leaves(program)
        self.makes_leaves = bool(noted)
        # inputs the function sets `stop_gradient = False` on (not in a tensor `if` or loop):
        # eager code changes the caller's tensor, which then needs a gradient
        self.leaf_inputs = [i for i, n in enumerate(program.feed_names)
                            if n in noted and not noted[n][0]]
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
    leaves, _ = flatten((args, kwargs), is_leaf=is_input)
    return [x for x in leaves if is_input(x)]


def _needs(t: Any) -> bool:
    return isinstance(t, Tensor) and not t.stop_gradient and t._value.dtype in INEXACT_NUMPY


def wants_grad(entry: Any, args: Tuple, kwargs: Dict) -> bool:
    """Whether this call must be recorded for backward (one check per input and parameter). A
    program that runs its own backward (a whole train step) is not differentiated again."""
    state = _grad_state(entry)
    if state.own_backward:
        return False
    if state.makes_leaves:      # its outputs may need a gradient whatever its inputs need
        return True
    for t in state.captured:
        if not t.stop_gradient:
            return True
    if entry.flat_positions is not None and not kwargs:
        for i in entry.flat_positions:
            a = args[i]
            t = type(a)     # a number is an input when auto_numbers made it one
            if t is not np.ndarray and t is not float and t is not int and not a.stop_gradient:
                return True
        return False
    return any(_needs(t) for t in _input_tensors(entry, args, kwargs))


class GradProgram:
    """The compiled programs of one entry's training calls, by which tensors need gradients.

    forward   feeds: the call's inputs; fetches: the outputs, the new values of persistables,
              then the residuals (forward values the gradient reads)
    backward  feeds: the inputs, the residuals, one seed per differentiable output; fetches: one
              gradient per tensor that needs one (None: unused)"""

    def __init__(self, forward: Any, n_out: int, writes: List[Tensor], backward: Any,
                 seeded: List[int], fetch_of: List[Optional[int]], joint: Any,
                 input_slots: List[Tuple[int, Any]], reaches: List[frozenset],
                 ancestors: List[frozenset], partial: Optional[PartialBackwards]) -> None:
        self.forward = forward
        self.n_out = n_out
        self.writes = writes          # tensors taking fetches n_out, n_out + 1, ...
        self.backward = backward
        self.seeded = seeded          # output (fetch) indices that take a seed
        self.fetch_of = fetch_of      # per input-then-captured tensor: its gradient's fetch index
        self.joint = joint            # () -> JointProgram, for create_graph=True (replayed)
        self._joint: Optional[JointProgram] = None
        # (feed position, slot) of the inputs' `.grad` its own trace reads: bound to each
        # call's tensors like the entry's (its trace made slots of its own)
        self.input_slots = input_slots
        # per input-then-captured tensor: the outputs it reaches; one that reaches none of the
        # outputs given a gradient gets none (eager's engine never visits it), not zeros
        self.reaches = reaches
        # per output: the forward ops between it and what needs a gradient (the nodes eager
        # autograd would record for it); a backward without retain_graph frees those of the
        # outputs it reaches, and another output is refused only if it needs one of them
        self.ancestors = ancestors
        # the backward of some outputs alone (None: a single differentiable output)
        self.partial = partial
        # the flags of the outputs whose need of a gradient depends on the path taken, fetched
        # last (path_grads.py)
        self.path_flags: Optional[PathFlags] = None
        # per new leaf the call returns (new_leaves.py): its output indices; they come after the
        # call's tensors in fetch_of and reaches. With new leaves, per output: whether it is
        # one that needs a gradient (they make some)
        self.leaves: List[List[int]] = []
        self.differentiable: Optional[List[bool]] = None

    def joint_program(self) -> JointProgram:
        if self._joint is None:
            self._joint = self.joint()
        return self._joint


def _build(static_fn: Any, entry: Any, args: Tuple, kwargs: Dict, flags: Tuple[bool, ...]
           ) -> GradProgram:
    traced = static_fn.trace_program(args, kwargs)
    program = traced.program
    roll_loops(program)
    wrt_names = _wrt_names(program, _grad_state(entry).captured, flags)
    g = program.global_block()
    outputs = list(program.fetch_names)
    leaves = made_leaves(program, wrt_names)
    # a new leaf gets its gradient through the call when it is returned (the caller's tensor)
    returned = [n for n in leaves if n in outputs]
    reaches = _outputs_reached(program, wrt_names + returned)
    req = requires_grad(program, g, [n for n in wrt_names if n] + leaves)
    ancestors = [frozenset(backward_path(program, [name], req)) for name in outputs]
    inputs = list(program.feed_names)
    writes = list(program.persistable_writes.items())
    forward_ops = {id(op) for op in g.ops}
    several = sum(is_differentiable_value(g.vars[n]) for n in outputs) > 1
    targets, seeds, seeded = [], [], []
    for k, name in enumerate(outputs):
        var = g.vars[name]
        if is_differentiable_value(var):
            # one seed per output, also when a variable is returned twice (`return h, h`)
            seed_name = f"{name}@GRAD_SEED" + (f"{k}" if name in outputs[:k] else "")
            seed = g.create_var(var._shape, var.dtype, name=seed_name)
            targets.append(var)
            seeds.append(seed.name)
            seeded.append(k)
    grads = append_backward_ops(program, targets, [g.vars[n] for n in seeds],
                                [n for n in wrt_names if n] + leaves)
    fetch, fetch_of = [], []
    for n in wrt_names + returned:
        v = grads.get(n) if n else None
        if v is None:
            fetch_of.append(None)
            continue
        fetch_of.append(len(fetch))
        fetch.append(v.name)
    # The gradient ops come after the last forward op (ops the backward adds to the forward,
    # such as tape creation, come before it): what they read of the forward's values is fetched
    # from the forward run instead of being computed again.
    split = 1 + max((i for i, op in enumerate(g.ops) if id(op) in forward_ops), default=-1)
    defined = {n for op in g.ops[:split] for n in op.outputs}
    read = [n for op in g.ops[split:] for n in op.inputs] + fetch
    # random draws are kept too: a create_graph replay must see the values the call drew
    read += random_outputs(g, split)
    residuals = list(dict.fromkeys(n for n in read if n in defined))
    joint_copy = snapshot(program)
    wrt = [n for n in wrt_names if n]
    n_wrt = len(fetch) - sum(k is not None for k in fetch_of[len(wrt_names):])

    def joint() -> JointProgram:
        return JointProgram(joint_copy, split, inputs, seeds, residuals, fetch[:n_wrt], wrt)
    backward = clone_program(program)
    backward.global_block().ops = backward.global_block().ops[split:]
    backward.feed_names = inputs + residuals + seeds
    backward.fetch_names = fetch
    backward.persistable_writes = {}
    backend = static_fn.backend
    partial = PartialBackwards(backward, seeded, seeds, fetch_of, backend) if several else None
    optimize(backward)
    g.ops = g.ops[:split]
    program.feed_names = inputs
    # outputs computed with gradients on some paths only: their flags, last
    flags_of = path_flags(program, outputs, wrt_names + returned +
                          [n for n in leaves if n not in returned])
    program.fetch_names = outputs + [new for _, new in writes] + residuals + \
        (flags_of.names if flags_of is not None else [])
    optimize(program)
    gp = GradProgram(compile_for(backend, program, inputs, program.fetch_names), len(outputs),
                     [program.write_targets[old] for old, _ in writes],
                     compile_for(backend, backward, backward.feed_names, fetch), seeded,
                     fetch_of, joint, bindings(program), reaches, ancestors, partial)
    gp.path_flags = flags_of
    if leaves:
        gp.leaves = [[k for k, o in enumerate(outputs) if o == n] for n in returned]
        gp.differentiable = [o in req and o not in leaves for o in outputs]
    return gp


def _outputs_reached(program: Any, wrt_names: List[Optional[str]]) -> List[frozenset]:
    """Per input-then-captured tensor: the indices of the outputs that depend on it."""
    g = program.global_block()
    found = []
    for name in wrt_names:
        req = requires_grad(program, g, [name]) if name else set()
        found.append(frozenset(k for k, out in enumerate(program.fetch_names) if out in req))
    return found


def _run(compiled: Any, feeds: List[Any]) -> List[Any]:
    try:
        return compiled._run(feeds)
    except Exception as e:  # noqa: BLE001 - map the failing op to the user's line
        raise_run_error(e, compiled)


def call_with_grad(static_fn: Any, entry: Any, args: Tuple, kwargs: Dict,
                   feeds: List[Any]) -> Any:
    """Run the entry's training forward and record one tape node for its outputs."""
    grad_state = _grad_state(entry)
    inputs = _input_tensors(entry, args, kwargs)
    for i in grad_state.leaf_inputs:
        if isinstance(inputs[i], Tensor) and inputs[i]._value.dtype in INEXACT_NUMPY:
            inputs[i].stop_gradient = False
    tensors = [t if isinstance(t, Tensor) else Tensor(np.asarray(t)) for t in inputs]
    tensors += grad_state.captured
    flags = tuple(_needs(t) for t in tensors)
    gp = grad_state.programs.get(flags)
    if gp is None:
        gp = grad_state.programs[flags] = _build(static_fn, entry, args, kwargs, flags)
    if gp.input_slots:
        bind(gp.input_slots, inputs)
    fetched = _run(gp.forward, feeds)
    n_out, n_writes = gp.n_out, len(gp.writes)
    for i, tensor in enumerate(gp.writes):
        store(tensor, np.asarray(fetched[n_out + i]))
    outs = entry.last_outs = fetched[:n_out]
    edges = [edge_of(t) if f else None for t, f in zip(tensors, flags)]
    leaf_of = _new_leaves(gp, outs)
    leaves = list({id(t): t for t in leaf_of.values()}.values())
    node = Node("to_static", {}, tensors + leaves, edges + [(t, 0) for t in leaves], list(outs),
                user_origin(2))
    n_flags = 0 if gp.path_flags is None else len(gp.path_flags.names)
    backward = node.backward_fn = _Backward(
        gp, list(feeds) + fetched[n_out + n_writes:len(fetched) - n_flags],
        flags + (False,) * len(leaves), len(inputs))
    concrete = entry.concrete
    values, results = [], []
    for kind, v in concrete.output_leaves:
        if kind == "var":
            t = leaf_of[v] if v in leaf_of else wrap_output(outs[v])
            values.append(t)
            if isinstance(t, Tensor):
                results.append((v, t))
        else:   # a constant, None or no dict entry on some paths, a widened loop variable
            index, t = picked(kind, v, outs)
            if index is not None:
                t = wrap_output(t)
                if isinstance(t, Tensor):
                    results.append((index, t))
            values.append(t)
    differentiable = gp.differentiable or grad_state.differentiable_outputs(entry, flags)
    if n_flags:
        # what each such output depends on along this call's path: an output that depends
        # on nothing needing a gradient stops gradients, and a tensor it does not depend on
        # gets no gradient from it (None, not zeros), as in eager code
        on = gp.path_flags.read(fetched[len(fetched) - n_flags:])
        differentiable = [d and (k not in on or bool(on[k])) for k, d in enumerate(differentiable)]
        backward.reaches = [frozenset(k for k in reached if k not in on or i in on[k])
                            for i, reached in enumerate(gp.reaches)]
    for index, t in results:
        if differentiable[index] and t._value.dtype in INEXACT_NUMPY:
            attach(node, [None] * index + [t])
            backward.live.add(index)
    out = unflatten(concrete.output_tree, values)
    return drop_absent(out) if any(v is ABSENT for v in values) else out


def _new_leaves(gp: GradProgram, outs: List[Any]) -> Dict[int, Tensor]:
    """Per output index: the new leaf tensor the call returns there (new_leaves.py)."""
    found = {}
    for indices in gp.leaves:
        t = Tensor(np.asarray(outs[indices[0]]))
        t.stop_gradient = False
        found.update((k, t) for k in indices)
    return found


def output_tensor(outs: List[Any], k: int, leaves: Dict[int, Tuple[int, int]]) -> Any:
    """Fetch k as the call returns it; a new leaf returned by a program that ran its own
    backward (traced_leaves.returned_leaves) is a leaf tensor that needs a gradient, holding
    the gradient that backward gave it (none where it did not reach it)."""
    t = wrap_output(outs[k])
    if k in leaves:
        grad, present = leaves[k]
        t.stop_gradient = False
        if grad >= 0 and (present < 0 or bool(outs[present])):
            t.grad = Tensor(np.asarray(outs[grad]))
    return t


class _Backward:
    """The backward of one recorded call: the gradient program on the saved inputs and
    residuals."""

    def __init__(self, gp: GradProgram, feeds: List[Any], flags: Tuple[bool, ...],
                 n_inputs: int) -> None:
        self.gp, self.feeds, self.flags, self.n_inputs = gp, feeds, flags, n_inputs
        self.live: set = set()      # the outputs returned as tensors on the tape
        # per input-then-captured tensor: the outputs that depend on it on this call's path
        self.reaches = gp.reaches
        self.spent: set = set()     # forward ops a backward without retain_graph went through

    def check(self, node: Node, outputs: set) -> None:
        """Refuse, as eager does, a backward from `outputs` through ops an earlier backward
        freed (outputs computed apart stay free to backward, as eager's separate nodes)."""
        if self.spent and any(self.gp.ancestors[k] & self.spent for k in outputs):
            raise freed_error(node)

    def release(self, outputs: set) -> bool:
        """After a backward from `outputs` without retain_graph: whether the node is spent (no
        output left whose backward would not be refused), so its saved values can go."""
        for k in outputs:
            self.spent |= self.gp.ancestors[k]
        return all(self.gp.ancestors[k] & self.spent for k in self.live)

    def __call__(self, node: Node, grads: List[Any], create_graph: bool) -> List[Any]:
        # parameters are read when the gradient runs (inputs and residuals were saved); a
        # create_graph replay reads the inputs too
        n_in = 0 if create_graph else self.n_inputs
        for i, t in enumerate(node.inputs[n_in:], n_in):
            if self.flags[i] and getattr(t, "_version", 0) != node.versions[i]:
                what = "parameter" if i >= self.n_inputs else "input"
                raise GradientError(
                    f"the {what} {t.name or i} was changed after the to_static call "
                    f"{node.where()} used it, and backward needs its old value")
        gp = self.gp
        if create_graph:
            if gp.leaves:
                raise GradientError(
                    f"create_graph=True through the to_static call {node.where()}, which makes "
                    "a new leaf (`stop_gradient = False` on a value that needs no gradient), is "
                    "not supported; make the leaf before the call and pass it in")
            return self._differentiable(node, grads)
        given = self._some_seeded(grads)
        found = gp.partial.get(given) if given else None
        if found is not None:       # only the outputs reached: as eager, the others' ops never run
            compiled, seeded, fetch_of = found
        else:
            compiled, seeded, fetch_of = gp.backward, gp.seeded, gp.fetch_of
        arrays = list(self.feeds)
        for k in seeded:
            g = grads[k]
            arrays.append(g._value if g is not None else np.zeros_like(node.out_values[k]))
        out = _run(compiled, arrays)
        return [Tensor(np.asarray(out[k])) if k is not None and self._reached(i, grads) else None
                for i, k in enumerate(fetch_of)]

    def _some_seeded(self, grads: List[Any]) -> Optional[FrozenSet[int]]:
        """The outputs given a gradient when they are some of several, else None."""
        gp = self.gp
        given = frozenset(k for k in gp.seeded if grads[k] is not None)
        return given if gp.partial is not None and given and len(given) < len(gp.seeded) \
            else None

    def _reached(self, i: int, grads: List[Any]) -> bool:
        return any(grads[k] is not None for k in self.reaches[i])

    def _differentiable(self, node: Node, grads: List[Any]) -> List[Any]:
        """The gradients as recorded tensors: the call's program replayed eagerly from its
        input tensors (the residuals that need no gradient come from the forward run)."""
        gp, n_in = self.gp, self.n_inputs
        joint, fetch_of = gp.joint_program(), gp.fetch_of
        given = self._some_seeded(grads)
        found = gp.partial.joint(given, joint) if given else None
        if found is not None:       # only the outputs reached: as eager, the others' ops never run
            joint, fetch_of = found
        inputs = [t if self.flags[i] else Tensor(np.asarray(self.feeds[i]))
                  for i, t in enumerate(node.inputs[:n_in])]
        seeds = [grads[k] if grads[k] is not None else Tensor(np.zeros_like(node.out_values[k]))
                 for k in gp.seeded]
        out = replay(joint, inputs, self.feeds[n_in:], seeds)
        return [out[k] if k is not None and self._reached(i, grads) else None
                for i, k in enumerate(fetch_of)]
