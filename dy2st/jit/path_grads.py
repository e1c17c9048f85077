"""Outputs whose need of a gradient depends on the path taken (`with no_grad():`, `.detach()` on
one path of a tensor `if`, at any depth, or on some turns of a tensor loop): the training forward
computes each such output's flags and the call sets its `stop_gradient` and reach from them."""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ..autograd import traced_reach
from ..autograd.rules import RULES
from ..autograd.static_backward import is_differentiable_value
from ..runtime.dtype import bool_, int64
from ..runtime.program import Block, Operator, Program, Variable
from ..runtime.registry import Meta
from .loop_flags import gradient_inputs, surely_runs
from .path_flag_ops import BITS, FlagWriter

# per value: (may, must) bit masks over the tensors that need a gradient: the ones it depends
# on differentiably on some path / on every path. It needs a flag of its own where they differ.
State = Tuple[int, int]
ZERO: State = (0, 0)
_WORD, _BOOL = Meta((), int64), Meta((), bool_)


class PathAnalysis:
    """Which tensors needing a gradient each value of `program` depends on, per path."""

    def __init__(self, program: Program, wrt: List[str]) -> None:
        self.program = program
        self.states: Dict[str, State] = {}
        self.consts: Dict[str, Operator] = {}     # value -> the `full` op giving it
        # a `detach` in a branch or loop body of a value that may need a gradient (no_grad,
        # .detach(), stop_gradient = True on some paths)
        self.stops_on_a_path = False
        for k, name in enumerate(wrt):
            may, must = self.states.get(name, ZERO)
            self.states[name] = (may | 1 << k, must | 1 << k)
        # a new leaf (new_leaves.py) is computed by an op, yet a gradient starts from it
        self.seeds = dict(self.states)
        self._block(program.global_block())

    def state(self, name: str) -> State:
        return self.states.get(name, ZERO)

    def dynamic(self, name: str) -> bool:
        may, must = self.state(name)
        return may != must

    def _differentiable(self, name: str) -> bool:
        return is_differentiable_value(self.program.find_var(name))

    def _block(self, block: Block) -> None:
        st = self.states
        for op in block.ops:
            if op.type == "full":
                self.consts[op.outputs[0]] = op
            if op.type == "cond":
                self._cond(op)
            elif op.type == "while":
                self._while(op)
            elif op.type in RULES:
                may = must = 0
                for n in gradient_inputs(op):
                    a, b = st.get(n, ZERO)
                    may, must = may | a, must | b
                for o in op.outputs:
                    st[o] = (may, must) if may and self._differentiable(o) else ZERO
                    if o in self.seeds:
                        st[o] = (st[o][0] | self.seeds[o][0], st[o][1] | self.seeds[o][1])
            else:
                if op.type == "detach" and block.idx and st.get(op.inputs[0], ZERO)[0]:
                    self.stops_on_a_path = True
                for o in op.outputs:
                    st.pop(o, None)

    def _cond(self, op) -> None:
        st, blocks = self.states, self.program.blocks
        tb, fb = blocks[op.attrs["true_block"]], blocks[op.attrs["false_block"]]
        for b in (tb, fb):
            for p, s in zip(b.params, op.inputs[1:]):
                st[p] = st.get(s, ZERO)
            self._block(b)
        for i, o in enumerate(op.outputs):
            (a, b), (c, d) = st.get(tb.results[i], ZERO), st.get(fb.results[i], ZERO)
            st[o] = (a | c, b & d) if self._differentiable(o) else ZERO

    def _while(self, op) -> None:
        st, blocks = self.states, self.program.blocks
        cb, bb = blocks[op.attrs["cond_block"]], blocks[op.attrs["body_block"]]
        n = op.attrs["n_loop_vars"]
        for b in (cb, bb):
            for p, s in zip(b.params, op.inputs):
                st[p] = st.get(s, ZERO)
        # a loop variable holds its value from before the loop (no turn) or a turn's result:
        # may only grows and must only shrinks, so this ends
        while True:
            self._block(bb)
            changed = False
            for j in range(n):
                p = bb.params[j]
                if not self._differentiable(p):
                    continue
                (a, b), (c, d) = st.get(p, ZERO), st.get(bb.results[j], ZERO)
                new = (a | c, b & d)
                if new != (a, b):
                    st[p] = st[cb.params[j]] = new
                    changed = True
            if not changed:
                break
        self._block(cb)
        # a loop that surely runs a turn (a rolled `for` over a constant range) gives its
        # variables a turn's results, never their values from before it
        after = bb.results if surely_runs(self.program, op, self.consts) else bb.params
        for j, o in enumerate(op.outputs[:n]):
            st[o] = st.get(after[j], ZERO)

    def needed(self, outputs: List[str]) -> Set[str]:
        """The values whose flags the program must compute for `outputs`' (dynamic ones only;
        a value the same on every path is a constant where it is read)."""
        need = {o for o in outputs if self.dynamic(o)}
        while True:
            before = len(need)
            self._need(self.program.global_block(), need)
            if len(need) == before:
                return need

    def _need(self, block: Block, need: Set[str]) -> None:
        blocks = self.program.blocks

        def add(name: str) -> None:
            if self.dynamic(name):
                need.add(name)
        for op in reversed(block.ops):
            if op.type == "cond":
                tb, fb = blocks[op.attrs["true_block"]], blocks[op.attrs["false_block"]]
                for i, o in enumerate(op.outputs):
                    if o in need:
                        add(tb.results[i])
                        add(fb.results[i])
                for b in (tb, fb):
                    self._need(b, need)
                    for p, s in zip(b.params, op.inputs[1:]):
                        if p in need:
                            add(s)
            elif op.type == "while":
                cb, bb = blocks[op.attrs["cond_block"]], blocks[op.attrs["body_block"]]
                n = op.attrs["n_loop_vars"]
                for j, o in enumerate(op.outputs[:n]):
                    if o in need:
                        add(bb.params[j])
                for j in range(n):
                    if bb.params[j] in need or cb.params[j] in need:
                        need.add(bb.params[j])
                        add(bb.results[j])
                        add(op.inputs[j])
                self._need(bb, need)
                self._need(cb, need)
                for b in (cb, bb):
                    for p, s in zip(b.params, op.inputs):
                        if p in need:
                            add(s)
            elif op.type in RULES and any(o in need for o in op.outputs):
                for n in gradient_inputs(op):
                    add(n)


class PathFlags:
    """The flag words a training forward fetches last, and per output (fetch index) whose need
    of a gradient depends on the path: which of them are its own. Bit k of an output's words is
    set when it depends on the k-th tensor needing a gradient on this call's path."""

    def __init__(self, names: List[str], words: Dict[int, List[int]],
                 wrt_positions: List[int]) -> None:
        self.names = names
        self.words = words
        self.wrt_positions = wrt_positions   # per bit: its position among the call's tensors

    def read(self, fetched: List[object]) -> Dict[int, Set[int]]:
        """From the fetched words: per output with flags, the positions (among the call's
        tensors) it depends on this call."""
        found = {}
        for k, idx in self.words.items():
            words = [int(fetched[i]) for i in idx]
            found[k] = {pos for bit, pos in enumerate(self.wrt_positions)
                        if words[bit // BITS] >> (bit % BITS) & 1}
        return found


def path_flags(program: Program, outputs: List[str], wrt_names: List[Optional[str]]
               ) -> Optional[PathFlags]:
    """Add to `program` (a training forward) the ops computing the flags of the outputs whose
    need of a gradient depends on the path taken; None (the program unchanged) when none does."""
    positions = [i for i, n in enumerate(wrt_names) if n]
    if not positions or not any(op.type in ("cond", "while")
                                for op in program.global_block().ops):
        return None
    analysis = PathAnalysis(program, [wrt_names[i] for i in positions])
    # Flags wherever the tensors an output depends on differ by path: a path that stops a
    # gradient, a branch not taken, a loop that may run no turn (an RNN's weights and inputs
    # are read only when a turn runs). A loop whose turns all give the flags of the first one
    # gets no loop variable for them: whether a turn ran decides them (loop_flags.py).
    need = analysis.needed(outputs)
    if not need:
        return None
    writer = FlagWriter(program, analysis.state, need, len(positions))
    writer.block(program.global_block())
    program.version += 1
    names: List[str] = []
    words: Dict[int, List[int]] = {}
    for k, name in enumerate(outputs):
        if name in need:
            words[k] = list(range(len(names), len(names) + writer.n_words))
            names += [v.name for v in writer.flags[name]]
    return PathFlags(names, words, positions)


def reached_flags(program: Program, outputs: List[str], wrt: List[str]) -> Dict[str, Variable]:
    """Per name of `wrt` that `outputs` depend on along some paths only (a loop that may run no
    turn, a branch not taken, a stop on one path): a bool of the global block, computed by ops
    added to `program` now, true when they depend on it along this run's path (a backward traced
    in the program gives it no gradient where it is false, as eager code)."""
    if not wrt or not any(op.type in ("cond", "while") for op in program.global_block().ops):
        return {}
    analysis = PathAnalysis(program, wrt)
    may = must = 0
    for o in outputs:
        a, b = analysis.state(o)
        may, must = may | a, must | b
    dynamic = [k for k in range(len(wrt)) if (may & ~must) >> k & 1]
    need = analysis.needed(outputs)
    if not dynamic or not need:
        return {}
    writer = FlagWriter(program, analysis.state, need, len(wrt))
    block = program.global_block()
    writer.block(block)
    found = {}
    for k in dynamic:
        hit = None
        for o in outputs:
            if o not in need:
                continue
            bit = writer.words(block, o)[k // BITS]
            mask = writer.constant(block, 1 << (k % BITS))
            zero = writer.constant(block, 0)
            masked = block.append_op_with_outputs("bitwise_and", [bit, mask], [_WORD], {}, None)[0]
            on = block.append_op_with_outputs("not_equal", [masked, zero], [_BOOL], {}, None)[0]
            hit = on if hit is None else block.append_op_with_outputs(
                "logical_or", [hit, on], [_BOOL], {}, None)[0]
        found[wrt[k]] = hit
    return found


traced_reach.reached_flags = reached_flags
