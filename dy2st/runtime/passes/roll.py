"""Iterations of a Python loop that tracing unrolled into the same ops become one `while` op
again: one body to optimise, generate and compile instead of N copies of it.

    for t in range(20):                       20 x  t_a = getitem(x, [:, t]) ... h_k = tanh(..)
        h = tanh(x[:, t] @ w + h @ u)   ->    c = 0; while c < 20: h = tanh(x[:, c] @ w + h @ u);
                                                                   c = c + 1

An iteration may differ from the next only in int indices of getitem / setitem ops that step by
a fixed amount (x[:, t]); those index by a loop counter instead. Everything else must match: op
types, attributes, and where each input comes from (the same iteration, the one before, or
outside the loop). Tracing only leaves hints (runtime/control_flow/unrolled.py); all of that is checked here."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ..dtype import bool_ as BOOL, int64 as INT64
from ..program import Block, Operator, Program, Variable
from ..registry import OPS
from .cse import same_attr_value
from .effects import CONTROL, EFFECTS, UNTOUCHABLE, keep_names

# Each op rolled away saves about 10 us of passes, code generation and compile(); rolling
# itself costs about 0.1 ms (and a counted loop's turn about 0.1 us): worth it from a few dozen
# ops saved.
MIN_TRIPS = 3
MIN_SAVED_OPS = 32
# ops with an index: position of their first index tensor input
_INDEXED = {"getitem": 1, "setitem": 2}

Ref = Tuple[int, int]        # (index of the op in the block, output slot)


def roll_loops(program: Program) -> int:
    """Roll the unrolled loops recorded while tracing; returns how many were rolled."""
    loops, program.unrolled_loops = program.unrolled_loops, []
    rolled = 0
    first_rolled: Dict[int, int] = {}      # id(block) -> start of the earliest range rolled
    # later ranges first (rolling one moves only the ops after it); inner loops before the
    # outer loop holding them (an outer iteration holding a while op never matches anyway)
    for loop in sorted(loops, key=lambda lp: (lp.marks[0], -lp.marks[-1]) if lp.marks else (-1, 0),
                       reverse=True):
        block, marks = loop.block, loop.marks
        if len(marks) <= MIN_TRIPS or not 0 <= block.idx < len(program.blocks) or \
                program.blocks[block.idx] is not block or \
                marks[-1] > first_rolled.get(id(block), len(block.ops)):
            continue
        start = _Loop(program, block, marks, loop.origin).roll()
        if start is not None:
            first_rolled[id(block)] = start
            rolled += 1
    if rolled:
        program.version += 1
    return rolled


class _Loop:
    def __init__(self, program: Program, block: Block, marks: List[int], origin: Any) -> None:
        self.program, self.block, self.origin = program, block, origin
        self.starts = marks[:-1]
        self.ends = marks[1:]
        self.ops = block.ops
        # (op, item) -> {iteration: int index} where an index differs from the template's
        self.indices: Dict[Tuple[int, int], Dict[int, int]] = {}

    # ------------------------------------------------------------------------------ matching
    def roll(self) -> Optional[int]:
        """Roll the longest run of matching iterations; the start of the range it replaced."""
        starts, ends, ops = self.starts, self.ends, self.ops
        if any(e < s for s, e in zip(starts, ends)):
            return None
        lo, hi = starts[0], ends[-1]
        # an op's shape: its type, and each input as how far back (in ops) and in which output
        # slot it was made, or its name when made before the loops; turns repeat where these are
        # equal, which one list comparison checks
        self.where = where = {}
        sigs = []
        for g in range(lo, hi):
            op = ops[g]
            sigs.append((op.type, tuple([name if (w := where.get(name)) is None else (g - w[0], w[1])
                                         for name in op.inputs]), len(op.outputs)))
            for slot, name in enumerate(op.outputs):
                if name in where:
                    return None                # written twice: not the SSA form tracing makes
                where[name] = (g, slot)
        self.sigs = sigs
        for first in (0, 1):
            run = self._run(first)
            start = self._rewrite(*run) if run is not None else None
            if start is not None:
                return start
        return None

    def _run(self, first: int) -> Optional[Tuple[int, int, Dict[Ref, str]]]:
        """(first, end, inits) of iterations first .. end-1 matching iteration first+1."""
        starts, ends = self.starts, self.ends
        tpl = first + 1
        if tpl >= len(starts):
            return None
        n = ends[tpl] - starts[tpl]
        self.n, self.tpl, self.indices = n, tpl, {}
        if n == 0 or ends[first] - starts[first] != n:
            return None
        lo, base, s_first = starts[0], starts[tpl], starts[first]
        tpl_sigs = self.sigs[base - lo:base - lo + n]
        for g, (op_type, ins, _) in enumerate(tpl_sigs, base):
            if op_type in CONTROL or any(type(r) is tuple and g - r[0] < s_first for r in ins):
                return None                    # a sub-block, or a value from before the run
        inits = self._match_first(first)
        if inits is None:
            return None
        tpl_attrs = [op.attrs for op in self.ops[base:base + n]]
        end = tpl + 1
        while end < len(starts) and ends[end] - starts[end] == n and \
                self.sigs[starts[end] - lo:starts[end] - lo + n] == tpl_sigs and \
                self._same_attrs(tpl_attrs, end):
            end += 1
        trips = end - first
        # 3 turns at least: the last turn's values leave the loop, the template's stay in it
        if trips < max(MIN_TRIPS, 3) or (trips - 1) * n < MIN_SAVED_OPS:
            return None
        return first, end, inits

    def _same_attrs(self, tpl_attrs: List[Dict[str, Any]], k: int) -> bool:
        s = self.starts[k]
        found: List[Tuple[Tuple[int, int], int]] = []
        for j, op in enumerate(self.ops[s:s + self.n]):
            a, b = tpl_attrs[j], op.attrs
            if a is not b and (a or b) and not self._same_attr(op.type, a, b, j, found):
                return False
        for key, value in found:            # a turn that does not match leaves no indices
            self.indices.setdefault(key, {})[k] = value
        return True

    def _same_attr(self, op_type: str, a: Dict[str, Any], b: Dict[str, Any], j: int,
                   found: List[Tuple[Tuple[int, int], int]]) -> bool:
        """Whether attrs b of op j equal the template's a, but for int indices (appended to
        found as ((j, item), index))."""
        if op_type not in _INDEXED:
            return same_attr_value(a, b)
        ti, oi = a.get("items"), b.get("items")
        if len(a) != 1 or len(b) != 1 or type(ti) is not list or type(oi) is not list or \
                len(ti) != len(oi):
            return False
        for m, (x, y) in enumerate(zip(ti, oi)):
            if same_attr_value(x, y):
                continue
            if type(x) is not dict or type(y) is not dict or x.get("k") != "int" or \
                    y.get("k") != "int" or len(x) != 2 or len(y) != 2 or \
                    type(x["v"]) is not int or type(y["v"]) is not int:
                return False
            found.append(((j, m), y["v"]))
        return True

    def _match_first(self, first: int) -> Optional[Dict[Ref, str]]:
        """Whether iteration `first` matches the template, reading what the template reads from
        the iteration before it from outside the run: {carried (op, slot): that value}."""
        ops, where = self.ops, self.where
        base, s0 = self.starts[self.tpl], self.starts[first]
        inits: Dict[Ref, str] = {}
        found: List[Tuple[Tuple[int, int], int]] = []
        for j in range(self.n):
            t, o = ops[base + j], ops[s0 + j]
            if t.type != o.type or len(t.inputs) != len(o.inputs) or \
                    len(t.outputs) != len(o.outputs) or \
                    (t.attrs is not o.attrs and not self._same_attr(t.type, t.attrs, o.attrs, j, found)):
                return None
            for nt, no in zip(t.inputs, o.inputs):
                wt = where.get(nt)
                if wt is None or wt[0] < s0:
                    if no != nt:
                        return None
                elif wt[0] >= base:                        # the template's own value
                    wo = where.get(no)
                    if wo is None or wo[1] != wt[1] or wo[0] != wt[0] - self.n:
                        return None
                else:                                      # carried from the turn before
                    wo = where.get(no)
                    if wo is not None and wo[0] >= s0:
                        return None
                    key = (wt[0] - s0, wt[1])
                    if inits.setdefault(key, no) != no:
                        return None
        for key, value in found:
            self.indices.setdefault(key, {})[first] = value
        return inits

    # ------------------------------------------------------------------------------ rewriting
    def _rewrite(self, first: int, end: int, inits: Dict[Ref, str]) -> Optional[int]:
        """Replace iterations first .. end-1 by a while op over the template's ops."""
        program, block, ops, n, where = self.program, self.block, self.ops, self.n, self.where
        s0, base, last = self.starts[first], self.starts[first + 1], self.starts[end - 1]
        s_end = last + n
        steps = self._progressions(first, end)
        if steps is None:
            return None
        inits = dict(inits)
        carried_names = {ops[last + j].outputs[slot] for j, slot in inits}
        for name in self._read_after(s_end):
            w = where.get(name)
            if w is None or not s0 <= w[0] < s_end or name in carried_names:
                continue
            # a value of the last turn the next turn would not read (o in `h = f(h); o = g(h)`)
            # is carried too, starting from the turn before the run's value
            if w[0] < last or first == 0 or not self._before_run(first, w[0] - last, inits, w[1]):
                return None
        carried = sorted(inits)
        # the last turn's carried values become the while op's outputs; nothing else may leave
        outs = [ops[last + j].outputs[slot] for j, slot in carried]
        leaving = set(outs)
        for (j, slot), init in inits.items():
            # the body was traced reading the first turn's value: the loop variable must have
            # that type before the loop and after each turn (a shape alternating between turns
            # would not)
            read = program.find_var(ops[s0 + j].outputs[slot])
            for other in (init, ops[base + j].outputs[slot]):
                v = program.find_var(other)
                if v is None or read is None or v.kind != "dense" or read.kind != "dense" or \
                        v.dtype != read.dtype or v._shape != read._shape:
                    return None
        hoisted = self._invariant(carried, steps)
        loop = _WhileBuilder(program, block, self.origin)
        # loop variables: a counter per (start, step) of the stepping indices (at least one,
        # which the condition tests), then the carried values
        counters = {start_step: loop.counter(*start_step) for start_step in dict.fromkeys(steps.values())}
        if not counters:
            counters[(0, 1)] = loop.counter(0, 1)
        carried_param = {key: loop.loop_var(inits[key]) for key in carried}
        for j in range(n):
            if j in hoisted:
                continue
            op = ops[base + j]
            inputs = []
            for name in op.inputs:
                w = where.get(name)
                if w is None or w[0] < s0:
                    inputs.append(loop.capture(name))
                elif w[0] >= base:                      # this turn's value
                    jj = w[0] - base
                    inputs.append(loop.capture(ops[s0 + jj].outputs[w[1]]) if jj in hoisted
                                  else name)
                else:                                   # the turn before's
                    inputs.append(carried_param[(w[0] - s0, w[1])])
            op.inputs = inputs
            indexed = [(m, counters[st]) for (jj, m), st in steps.items() if jj == j]
            if indexed:
                items = list(op.attrs["items"])
                for m, counter in indexed:
                    items[m] = {"k": "tensor", "t": len(op.inputs) - _INDEXED[op.type]}
                    op.inputs.append(counter)
                op.attrs = {"items": items}
            loop.move_in(op)
        (start, step), _ = next(iter(counters.items()))
        while_op = loop.finish(start + step * (end - first), step > 0,
                               [ops[base + j].outputs[slot] for j, slot in carried], outs)
        kept = [ops[s0 + j] for j in sorted(hoisted)]
        keep = leaving.union(*(op.outputs for op in kept))
        index = program.var_index
        for g in range(s0, s_end):
            if base <= g < base + n and g - base not in hoisted:
                continue                                # moved into the body
            for name in ops[g].outputs:
                if name not in keep:
                    block.vars.pop(name, None)
                    index.pop(name, None)
        block.ops[s0:s_end] = loop.init_ops + kept + [while_op]
        return s0

    def _before_run(self, first: int, j: int, inits: Dict[Ref, str], slot: int) -> bool:
        """Carry output slot of the template's op j from the value the same op made in the turn
        before the run (when that turn has that op): adds it to inits."""
        s, e = self.starts[first - 1], self.ends[first - 1]
        op, tpl = self.ops[s + j] if j < e - s else None, self.ops[self.starts[self.tpl] + j]
        if op is None or op.type != tpl.type or len(op.outputs) != len(tpl.outputs):
            return False
        inits[(j, slot)] = op.outputs[slot]
        return True

    def _progressions(self, first: int, end: int) -> Optional[Dict[Tuple[int, int], Tuple[int, int]]]:
        """(op, item) -> (start, step) of each index stepping through the run; None when one
        does not step evenly."""
        out = {}
        base = self.starts[self.tpl]
        for (j, m), values in self.indices.items():
            tv = self.ops[base + j].attrs["items"][m]["v"]
            seq = [values.get(k, tv) for k in range(first, end)]
            step = seq[1] - seq[0]
            if step == 0 or any(b - a != step for a, b in zip(seq, seq[1:])):
                return None
            out[(j, m)] = (seq[0], step)
        return out

    def _invariant(self, carried: List[Ref], steps: Dict) -> set:
        """Template ops computing the same value every turn (pure, reading only values from
        outside the run or other such ops): computed once before the loop, as merging their
        unrolled copies would."""
        base, s0 = self.starts[self.tpl], self.starts[self.tpl - 1]
        carried_ops = {j for j, _ in carried}
        indexed = {j for j, _ in steps}
        out = set()
        for j in range(self.n):
            op = self.ops[base + j]
            if op.type in EFFECTS:
                break          # moved before a print or assert, an op could fail ahead of it
            if j in carried_ops or j in indexed or op.type in UNTOUCHABLE or op.type not in OPS:
                continue
            ok = True
            for name in op.inputs:
                w = self.where.get(name)
                if w is not None and w[0] >= s0 and not (w[0] >= base and w[0] - base in out):
                    ok = False
                    break
            if ok:
                out.add(j)
        return out

    def _read_after(self, end: int) -> List[str]:
        """Names read by the block after position end, or leaving it."""
        program = self.program
        names = [n for op in self.ops[end:] for n in op.inputs]
        names += keep_names(program, self.block)
        for name, entry in program.maybe_undefined.items():
            names.append(name)
            names.append(getattr(entry[0], "name", None))
        return names


class _WhileBuilder:
    """The blocks and ops of one rolled loop: a condition block testing the first counter, a body
    block of moved ops, loop variables and captures given to both blocks as params."""

    def __init__(self, program: Program, block: Block, origin: Any) -> None:
        self.program, self.block, self.origin = program, block, origin
        self.cond = program.create_block(block.idx)
        self.body = program.create_block(block.idx)
        self.inits: List[str] = []          # the loop variables' values before the loop
        self.init_ops: List[Operator] = []
        self.steps: List[Tuple[str, int]] = []   # (counter param, step)
        self.sources: List[str] = []        # outer values the blocks capture, in param order
        self.captures: Dict[str, str] = {}

    def _param(self, like: Variable, prefix: str) -> str:
        p = self.body.create_var(like._shape, like.dtype, prefix=prefix)
        c = self.cond.create_var(like._shape, like.dtype, prefix=prefix)
        self.body.params.append(p.name)
        self.cond.params.append(c.name)
        return p.name

    def _int_op(self, block: Block, type_: str, inputs: List[str], attrs: Dict[str, Any],
                dtype: Any = None) -> Tuple[Operator, str]:
        out = block.create_var((), dtype or INT64)
        op = Operator(type_, inputs, [out.name], attrs, self.origin)
        return op, out.name

    def counter(self, start: int, step: int) -> str:
        op, name = self._int_op(self.block, "full", [], {"shape": [], "value": start, "dtype": "int64"})
        self.init_ops.append(op)
        self.inits.append(name)
        p = self._param(self.block.vars[name], "loop")
        self.steps.append((p, step))
        return p

    def loop_var(self, init: str) -> str:
        self.inits.append(init)
        return self._param(self.program.find_var(init), "loop")

    def capture(self, name: str) -> str:
        p = self.captures.get(name)
        if p is None:
            p = self.captures[name] = self._param(self.program.find_var(name),
                                                  name.split("@")[0] + "@cap")
            self.sources.append(name)
        return p

    def move_in(self, op: Operator) -> None:
        """Op (its inputs already the body's) becomes the next op of the body."""
        for name in op.outputs:
            var = self.block.vars.pop(name)
            var.block = self.body
            self.body.vars[name] = var
        self.body.ops.append(op)

    def finish(self, stop: int, up: bool, results: List[str], outs: List[str]) -> Operator:
        """The while op: counters step, the first one until it reaches stop; results are the
        body's values of the other loop variables, outs what the op writes in the block."""
        body, cond = self.body, self.cond
        stepped = []
        for p, step in self.steps:
            op, s = self._int_op(body, "full", [], {"shape": [], "value": step, "dtype": "int64"})
            add, nxt = self._int_op(body, "add", [p, s], {})
            body.ops += [op, add]
            stepped.append(nxt)
        op, s = self._int_op(cond, "full", [], {"shape": [], "value": stop, "dtype": "int64"})
        test, t = self._int_op(cond, "less_than" if up else "greater_than",
                               [cond.params[0], s], {}, BOOL)
        cond.ops += [op, test]
        cond.results = [t]
        body.results = stepped + results
        n_loop_vars = len(self.inits)
        for b in (cond, body):
            b.captures = dict(zip(self.sources, b.params[n_loop_vars:]))
        counter_outs = [self.block.create_var((), INT64, prefix="loop").name for _ in self.steps]
        return Operator("while", self.inits + self.sources, counter_outs + outs,
                        {"cond_block": cond.idx, "body_block": body.idx,
                         "n_loop_vars": n_loop_vars}, self.origin)
