"""Compiles a Program into one generated Python function: kernels and hoisted constants bound as
globals, a value freed at its last use (its local overwritten by the op it dies at, else
deleted; freed locals are reused), cond/while sub-blocks inlined (as functions only when nested
very deep), in-place elementwise ops where passes/inplace.py planned them."""
from __future__ import annotations

import linecache
import math
import sys
import zlib
from functools import lru_cache
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .control_flow.counted_loop import CountedLoop, counted_loop, counter_end
from .control_flow.structure import cond_parts, while_parts
from .direct_calls import direct_kernel, matmul_fn, method_expr
from .errors import reraise_as
from .fused_cells import KERNELS as FUSED_KERNELS, fuse_block_ops
from .loop_limit import check_trip_count, count_turn, start_turn_count
from .loop_products import HeldWeight, RecurrentWeight, times_transposed
from .passes.effects import CONTROL
from .passes.facts import resolve_vars
from .persistable import store
from .program import Block, Operator, Program, Variable, default_main_program
from .registry import ADAPTED_DTYPES, OPS, UNADAPTED
from .tensor import Tensor
from .unassigned import unassigned_read

# Ops with no inputs whose result can be computed once when compiling (never mutated later).
HOISTABLE = {"full", "full_range", "eye"}
# Larger constants are computed when the program runs, like any op (a model file cannot make
# compiling allocate unbounded memory).
HOIST_LIMIT = 1 << 20


def _small(vars: Dict[str, Variable], op: Operator) -> bool:
    var = vars.get(op.outputs[0])
    # math.prod: exact (np.prod of int64 wraps around for huge shapes), and no numpy call
    return var is not None and all(d >= 0 for d in var._shape) and \
        math.prod(var._shape) <= HOIST_LIMIT


_LITERAL_SCALARS = (bool, int, str, type(None))


def _is_literal(v: Any) -> bool:
    """True when repr(v) evaluates back to an equal value (so it can be written into the code)."""
    t = type(v)
    if t in _LITERAL_SCALARS:
        return True
    if t is float:
        return v == v and v not in (float("inf"), float("-inf"))
    if t in (list, tuple):
        return all(_is_literal(x) for x in v)
    if t is dict:
        return all(type(k) in _LITERAL_SCALARS and _is_literal(x) for k, x in v.items())
    return False


# Sub-blocks nested deeper than this are emitted as functions (Python limits nested loops).
MAX_INLINE_DEPTH = 8
# At most this many ops are computed in one generated line (a chain nested in each other's calls):
# each op nests its inputs at most 3 brackets deep, and Python refuses more than 200 (issue 16);
# a longer chain keeps every MAX_FUSED_OPS-th value in a local.
MAX_FUSED_OPS = 16
# while bodies stay functions C<i>/B<i> (tests pin that); inlining them saves ~1-2 us a loop.
INLINE_WHILE = True


class _FreeLocals:
    """The locals holding nothing (deleted), reused last freed first. save() / restore() bring
    back the list as it was (every path through an if / loop starts with the same free locals)
    at a cost of the pops and pushes in between, not of the list's length: a program with
    thousands of dead values and thousands of ifs must not copy the list at each if."""

    def __init__(self) -> None:
        self.items: List[str] = []
        # per open save: [its length, the lowest length since, the items popped below it]
        self.saves: List[list] = []

    def __bool__(self) -> bool:
        return bool(self.items)

    def pop(self) -> str:
        items = self.items
        x = items.pop()
        if self.saves:
            save = self.saves[-1]
            if len(items) < save[1]:
                save[1] = len(items)
                save[2].append(x)
        return x

    def append(self, x: str) -> None:
        self.items.append(x)

    def extend(self, xs: Sequence[str]) -> None:
        self.items.extend(xs)

    def save(self) -> None:
        n = len(self.items)
        self.saves.append([n, n, []])

    def restore(self) -> None:
        n, low, popped = self.saves.pop()
        del self.items[low:]
        self.items.extend(reversed(popped))
        assert len(self.items) == n


class _Codegen:
    def __init__(self, program: Program) -> None:
        self.program = program
        self.vars = resolve_vars(program)        # what program.find_var gives, looked up once
        self.ns: Dict[str, Any] = {"__builtins__": __builtins__}
        self.lines: List[str] = []
        self.line_ops: Dict[int, Tuple[int, Operator]] = {}
        # line -> [(expression, (block, op))] of the ops computed within that line, the line's
        # own op last (where each sits is worked out only when a run fails there)
        self.line_fused: Dict[int, List[Tuple[str, Tuple[int, Operator]]]] = {}
        self.idents: Dict[str, str] = {}         # variable name -> the local holding it now
        self.free = _FreeLocals()                # locals holding nothing (deleted): reused
        # globals standing for hoisted constants in idents: read in place, never stored or deleted
        self.constants: set = set()
        # a sub-block writing one of its params writes the caller's local: never a constant then
        self.fold_constants = not any(
            set(b.params).intersection(o for op in b.ops for o in op.outputs) for b in program.blocks[1:])
        self.n_locals = 0
        self.const_names: Dict[int, str] = {}    # id(value) -> its global name
        self.kernels: Dict[str, str] = {}
        self.reuse: Dict[int, Tuple] = {}
        self.pending: List[Tuple[int, bool]] = []
        self.queued = set()
        # loop-invariant matmul operand (a while body's param) -> the local holding its
        # transpose as a contiguous array, made once before the loop (see hoist_transposes)
        self.transposed: Dict[str, str] = {}
        # id(block) -> (block, its ops with fused_cells' fusions), worked out once per block (the
        # block is held so that its id is not reused: counted loops make view blocks)
        self.block_ops: Dict[int, Tuple[Block, List[Operator]]] = {}

    def ident(self, name: str) -> str:
        """The local holding variable `name` (a free one is taken for a new name)."""
        s = self.idents.get(name)
        if s is None:
            s = self.idents[name] = self.new_local()
        return s

    def assigned(self, block: Block, names: Sequence[str]) -> List[str]:
        """The locals holding `names`, a block's results (each assigned by then)."""
        idents = self.idents
        return [idents[n] if n in idents else unassigned_read(self.program, block, n)
                for n in names]

    def new_local(self) -> str:
        if self.free:
            return self.free.pop()
        self.n_locals += 1
        return f"v{self.n_locals - 1}"

    def const(self, prefix: str, value: Any) -> str:
        """A global name bound to value; one per object (kernels recur in every step of a loop)."""
        key = self.const_names.get(id(value))
        if key is None:
            key = self.const_names[id(value)] = f"{prefix}{len(self.ns)}"
            self.ns[key] = value
        return key

    def kernel(self, op: Operator) -> str:
        """The global holding op's kernel: as declared unless an input has a dtype the kernel
        adapters are for (registry.ADAPTED_DTYPES: bfloat16 once used), which needs them."""
        op_type = op.type
        adapted = bool(ADAPTED_DTYPES) and not all(map(self._not_adapted, op.inputs))
        key = op_type + "/adapted" if adapted else op_type
        k = self.kernels.get(key)
        if k is None:
            k = f"K_{op_type}_adapted" if adapted else f"K_{op_type}"
            kernel = OPS[op_type].kernel
            self.ns[k] = kernel if adapted else UNADAPTED.get(op_type, kernel)
            self.kernels[key] = k
        return k

    def _not_adapted(self, name: str) -> bool:
        """Whether value `name` is known to be a dense array of a dtype no adapter is for."""
        v = self.vars.get(name)
        dtype = getattr(getattr(v, "dtype", None), "np", None)
        return v is not None and v.kind == "dense" and dtype is not None and \
            np.dtype(dtype) not in ADAPTED_DTYPES

    def emit(self, line: str, op: Optional[Tuple[int, Operator]] = None) -> None:
        self.lines.append(line)
        if op is not None:
            self.line_ops[len(self.lines)] = op

    # -------------------------------------------------------------------------------------
    def block_fn(self, block: Block, fn_name: str, single_result: bool = False) -> None:
        """Emit `def fn_name(params): ...` for a closed sub-block (used past MAX_INLINE_DEPTH)."""
        outer_free, self.free = self.free, _FreeLocals()      # a function has its own locals
        params = ", ".join(self.ident(p) for p in block.params)
        self.emit(f"def {fn_name}({params}):")
        self.body(block, "    ", block.results, 0)
        res = self.assigned(block, block.results)
        if single_result:
            self.emit(f"    return {res[0]}")
        else:
            self.emit(f"    return ({', '.join(res)}{',' if len(res) == 1 else ''})")
        self.free = outer_free

    def emit_pending_functions(self) -> None:
        while self.pending:
            idx, single = self.pending.pop()
            self.block_fn(self.program.blocks[idx], self.fn_name(idx, single), single)

    def fn_name(self, idx: int, single: bool) -> str:
        return f"{'C' if single else 'B'}{idx}"

    def call_block(self, idx: int, single: bool, args: List[str]) -> str:
        """A call of sub-block idx emitted as a function (emitted after the current one)."""
        if (idx, single) not in self.queued:
            self.queued.add((idx, single))
            self.pending.append((idx, single))
        return f"{self.fn_name(idx, single)}({', '.join(args)})"

    def body(self, block: Block, ind: str, keep: Sequence[str], depth: int) -> None:
        """The block's ops. A value's local is released when the value dies: overwritten by the
        dying op's own output when it has one (freed at that moment, like `del`), else deleted.
        A value read only by the next op is written into that op's line instead of a local of
        its own (see _fusable): fewer statements make compile() cheaper."""
        ops = self.ops_of(block, keep)
        last_use: Dict[str, int] = {}
        reads: Dict[str, int] = {}
        for i, op in enumerate(ops):
            for n in op.inputs:
                last_use[n] = i
                reads[n] = reads.get(n, 0) + 1
        keep = set(keep)
        idents, free, lines, line_ops = self.idents, self.free, self.lines, self.line_ops
        bidx = block.idx
        inlined: Dict[str, str] = {}     # value -> the expression its reader writes in its place
        nesting: Dict[str, int] = {}     # value -> how many ops deep its inlined expression is
        # value -> the local whose array an inlined in-place expression writes and returns
        in_place: Dict[str, str] = {}
        fused: List[Tuple[str, Tuple[int, Operator]]] = []   # those expressions' ops, in order
        carried: List[str] = []          # locals freed by inlined ops, released after the line
        for i, op in enumerate(ops):
            inputs = op.inputs
            ins = []
            buffers: List[Optional[str]] = []
            deepest = 0                  # ops nested in the deepest inlined input
            for n in inputs:
                expr = inlined.pop(n, None) if inlined else None
                if expr is not None:
                    deepest = max(deepest, nesting.pop(n))
                ins.append(expr if expr is not None else idents[n] if n in idents else
                           unassigned_read(self.program, block, n, op))
                buffers.append(in_place.pop(n, None) if in_place else None)
            dying = [n for n in inputs if last_use[n] == i and n not in keep and n in idents]
            if len(dying) > 1:
                dying = list(dict.fromkeys(dying))      # x * x reads x twice
            dead = carried + [idents.pop(n) for n in dying]
            carried = []
            if self.constants and dead:
                dead = [d for d in dead if d not in self.constants]
            if op.type in CONTROL:
                # inputs are read inside the if / loop: outputs never take their locals
                live = {n for n in op.outputs if last_use.get(n, -1) > i or n in keep}
                self.control(block, op, ind, depth, ins, self.define(op.outputs, []), (bidx, op),
                             live)
            else:
                call = self.call(block, op, ins, dead, buffers)
                outputs = op.outputs
                if call is not None and len(outputs) == 1 and reads.get(outputs[0]) == 1 and \
                        last_use.get(outputs[0]) == i + 1 and deepest + 1 < MAX_FUSED_OPS and \
                        self._fusable(ops, i, keep):
                    inlined[outputs[0]] = call
                    nesting[outputs[0]] = deepest + 1
                    if self._writes_in_place(op):
                        in_place[outputs[0]] = dead[0]      # call() put the buffer first
                    fused.append((call, (bidx, op)))
                    carried = dead
                    continue
                if call is not None:      # None: a hoisted constant, its readers name the global
                    if len(outputs) == 1 and outputs[0] not in idents:
                        out = idents[outputs[0]] = dead.pop(0) if dead else self.new_local()
                        lines.append(f"{ind}{out} = {call}")
                    elif outputs:
                        lines.append(f"{ind}{', '.join(self.define(outputs, dead))} = {call}")
                    else:
                        lines.append(f"{ind}{call}")
                    line_ops[len(lines)] = (bidx, op)
                    if fused:
                        self.line_fused[len(lines)] = fused + [(call, (bidx, op))]
                        fused = []
            for n in op.outputs:
                # never read again (also a name written after its last read): free it now
                if last_use.get(n, -1) <= i and n not in keep and n in idents:
                    d = idents.pop(n)
                    if d not in self.constants:
                        dead.append(d)
            if dead:
                lines.append(f"{ind}del {', '.join(dead)}")
                free.extend(dead)
        if not ops:
            self.emit(f"{ind}pass")

    def ops_of(self, block: Block, keep: Sequence[str]) -> List[Operator]:
        """The ops to generate for block: its own, with fused_cells' fusions (keep: the values
        leaving the block, the same at every call for a block)."""
        held = self.block_ops.get(id(block))
        if held is None:
            held = self.block_ops[id(block)] = (block, fuse_block_ops(block.ops, self.vars, keep))
        return held[1]

    def _fusable(self, ops: List[Operator], i: int, keep: set) -> bool:
        """Whether op i's one output, read once and by op i+1 only (the caller checked), can be
        computed in op i+1's line: never a value that leaves the block, the buffer op i+1
        writes in place (unless op i wrote it in place too), an input of a control-flow op, or a
        value of another user line than op i+1's (a failing op's line must stay the user's)."""
        op = ops[i]
        out = op.outputs[0]
        nxt = ops[i + 1]
        if nxt.type in CONTROL or out in keep or out in self.idents:
            return False
        if op.origin is not nxt.origin and op.origin != nxt.origin:   # one user line: one object
            return False
        # op i+1 may write into op i's result only when that result is an array with a name:
        # the buffer op i itself wrote into
        return not self._writes_in_place(nxt) or nxt.inputs[self.reuse[id(nxt)][1]] != out or \
            self._writes_in_place(op)

    def _writes_in_place(self, op: Operator) -> bool:
        reuse = self.reuse.get(id(op))
        return reuse is not None and reuse[0] is op

    def call(self, block: Block, op: Operator, ins: List[str], spare: List[str],
             buffers: Optional[List[Optional[str]]] = None) -> str:
        """The expression computing a (non control flow) op. spare: the locals of its dying inputs,
        which its outputs take (the reused buffer's first); buffers[k]: for an input written in
        place by an expression inlined in ins[k], the local of that buffer."""
        reuse = self.reuse.get(id(op))
        if reuse is not None and reuse[0] is op:
            buffer = (buffers[reuse[1]] if buffers else None) or ins[reuse[1]]
            if buffer in spare:           # always: the plan only writes into dying values
                spare.remove(buffer)
                spare.insert(0, buffer)
            # out= by keyword: numpy deprecates a positional out for some ufuncs (maximum)
            return f"{self.const('U', reuse[2])}({', '.join(ins)}, out={buffer})"
        fused = FUSED_KERNELS.get(op.type)
        if fused is not None:
            return f"{self.const('F', fused)}({', '.join(ins)})"
        if op.type in HOISTABLE and not op.inputs and _small(self.vars, op):
            name = self.const("H", self.hoist(block, op))
            if self.fold_constants and len(op.outputs) == 1 and op.outputs[0] not in self.idents:
                # readers use the global itself: no line, no local (a loop re-read it each turn)
                self.idents[op.outputs[0]] = name
                self.constants.add(name)
                return None
            return name
        if op.type == "getitem":
            index = getitem_expr(self.vars, op, ins)
            if index is not None:
                out = self.vars.get(op.outputs[0])
                if out is not None and len(out._shape) > 0:
                    return index            # indexing an array with a result of rank >= 1 gives
                self.ns["_asarray"] = np.asarray    # an array; a 0-d one gives a numpy scalar
                return f"_asarray({index})"
        direct = direct_kernel(self.vars, op)
        if direct is not None:
            return f"{self.const('D', direct)}({', '.join(ins)})"
        method = method_expr(self.vars, op, ins)
        if method is not None:
            if op.type == "matmul":
                held = self.transposed.get(op.inputs[1]) if self.transposed else None
                if held is not None and _transposes_y_only(op):
                    return f"{self.const('D', times_transposed)}({ins[0]}, {held})"
                fn = matmul_fn(self.vars, op)
                return f"{self.const('D', fn)}({method})"
            return method
        attrs = []
        for k, v in op.attrs.items():
            attrs.append(f"{k}={repr(v) if _is_literal(v) else self.const('A', v)}")
        expr = f"{self.kernel(op)}({', '.join(ins + attrs)})"
        # an op declared with several outputs returns a tuple, even when this one has one
        return expr + "[0]" if len(op.outputs) == 1 and OPS[op.type].n_outputs != 1 else expr

    def define(self, outputs: Sequence[str], spare: List[str]) -> List[str]:
        """Locals for an op's outputs: a name keeps its local; new ones take `spare` locals
        (those of the op's dying inputs, first one first) before free or new ones."""
        outs = []
        for n in outputs:
            s = self.idents.get(n)
            if s is None or s in self.constants:
                s = self.idents[n] = spare.pop(0) if spare else self.new_local()
            outs.append(s)
        return outs

    def inline(self, block: Block, ind: str, args: Sequence[str], outs: Sequence[str],
               depth: int, loop: Optional[Tuple[int, Operator]] = None, carried: bool = False) -> None:
        """A sub-block's body in place: its params are the callers' locals `args` (never
        deleted inside), its results go to `outs` (carried: outs are args too, the loop
        variables of a while body); or, for the condition block of while op `loop`, its result
        ends the loop when false."""
        for p, a in zip(block.params, args):
            self.idents[p] = a
        params = set(block.params)
        self.free.save()          # every path through an if / loop starts with the same free locals
        keep = list(block.results) + list(block.params)
        direct = _direct_results(block, self.ops_of(block, keep), args, outs, carried)
        for j in direct:
            self.idents[block.results[j]] = outs[j]
        self.body(block, ind, keep, depth)
        res = self.assigned(block, block.results)
        if loop is not None:
            self.emit(f"{ind}if not {res[0]}:", loop)
            self.emit(f"{ind}    break", loop)
        elif outs:
            moved = [j for j in range(len(outs)) if j not in direct and outs[j] != res[j]]
            if moved:
                self.emit(f"{ind}{_tuple([outs[j] for j in moved])} = {_tuple([res[j] for j in moved])}")
        written = {block.results[j] for j in direct}
        held = []
        for n in dict.fromkeys(block.results):
            if n not in params:
                h = self.idents.pop(n)
                if h not in self.constants and n not in written:     # written: now the outs'
                    held.append(h)
        if held:
            self.emit(f"{ind}del {', '.join(held)}")
        self.free.restore()

    def hoist(self, block: Block, op: Operator) -> np.ndarray:
        """The value of an input-less op, computed now (read-only: every run shares it)."""
        try:
            value = OPS[op.type].kernel(**op.attrs)
        except Exception as e:  # noqa: BLE001 - computed while compiling: name the op here
            # lazy: keeps runtime.printer out of a first to_static call (loaded on first use)
            from .printer import op_text
            where = f" (from {op.origin.short()}: {op.origin.source})" if op.origin else ""
            reraise_as(e, f"{e}\n[operator {op_text(block, op)}]{where}", op.origin)
        value.setflags(write=False)
        return value

    def control(self, block: Block, op: Operator, ind: str, depth: int, ins: List[str],
                outs: List[str], tag: Tuple[int, Operator], live: Optional[set] = None) -> None:
        """A cond as an if / else, a while as a Python loop (sub-blocks inline or as functions).
        live: the outputs read after the op (None: all)."""
        lhs = _tuple(outs)
        deep = depth >= MAX_INLINE_DEPTH
        if op.type == "cond":
            self.emit(f"{ind}if {ins[0]}:", tag)
            for i, branch in enumerate(cond_parts(self.program, op).branches):
                if i:
                    self.emit(f"{ind}else:", tag)
                if deep:
                    call = self.call_block(branch.idx, False, ins[1:])
                    self.emit(f"{ind}    {lhs + ' = ' if outs else ''}{call}", tag)
                else:
                    self.inline(branch, ind + "    ", ins[1:], outs, depth + 1)
            return
        loop = while_parts(self.program, op)
        n = loop.n_carried
        c, b = loop.cond_block.idx, loop.body_block.idx
        args = outs + loop.split(ins)[1]
        if outs:
            self.emit(f"{ind}{lhs} = {_tuple(ins[:n])}", tag)
        if deep or not INLINE_WHILE:
            turns = start_turn_count(self, ind, tag)
            self.emit(f"{ind}while {self.call_block(c, True, args)}:", tag)
            count_turn(self, turns, ind + "    ", tag)
            call = self.call_block(b, False, args)
            self.emit(f"{ind}    {lhs + ' = ' if outs else ''}{call}", tag)
            return
        hoisted = self.hoist_transposes(self.program.blocks[b], n, args, op.inputs, ind, tag)
        counted = counted_loop(self.program, self.vars, op, self._read_as_index)
        if counted is not None:
            self.counted_while(counted, ind, ins, outs, args, depth, tag,
                               live is None or op.outputs[counted.k] in live)
        else:
            turns = start_turn_count(self, ind, tag)
            self.emit(f"{ind}while True:", tag)
            # on the last turn the condition's value stays bound (freed when the function returns)
            self.inline(self.program.blocks[c], ind + "    ", args, [], depth + 1, loop=tag)
            count_turn(self, turns, ind + "    ", tag)
            self.inline(self.program.blocks[b], ind + "    ", args, outs, depth + 1, carried=True)
            if turns is not None:
                self.emit(f"{ind}del {turns}")
                self.free.append(turns)
        if hoisted:
            for param in hoisted:
                del self.transposed[param]
            self.emit(f"{ind}del {', '.join(hoisted.values())}")
            self.free.extend(hoisted.values())

    def hoist_transposes(self, body: Block, n: int, args: List[str], sources: List[str],
                         ind: str, tag: Tuple[int, Operator]) -> Dict[str, str]:
        """For each loop-invariant 2-D matrix the body multiplies by transposed (`x W^T`, as
        RNN cells do with weights stored [out, in]), a loop_products.RecurrentWeight made before
        the loop: {body param: its local}. It holds W^T contiguous (this machine's BLAS
        multiplies by a transposed operand up to 2-3x slower, and a copy costs about one
        product), or in column pieces the BLAS multiplies without packing. That of a parameter
        is kept from one run to the next while the parameter's array is the same (an update
        replaces the array), so a run neither makes nor holds a new copy."""
        hoisted: Dict[str, str] = {}
        invariant = dict(zip(body.params[n:], args[n:]))
        outer = dict(zip(body.params[n:], sources[n:]))
        persistables = self.program.persistables
        for o in body.ops:
            if o.type != "matmul" or len(o.inputs) != 2 or not _transposes_y_only(o):
                continue
            y = o.inputs[1]
            var = self.vars.get(y)
            if y in hoisted or y not in invariant or y in self.transposed or var is None or \
                    var.kind != "dense" or len(var._shape) != 2 or \
                    method_expr(self.vars, o, list(o.inputs)) is None:
                continue
            local = hoisted[y] = self.new_local()
            # a parameter's is kept between runs; another value's is made again each run
            prepare = HeldWeight() if outer.get(y) in persistables else RecurrentWeight
            self.emit(f"{ind}{local} = {self.const('D', prepare)}({invariant[y]})", tag)
        self.transposed.update(hoisted)
        return hoisted

    def counted_while(self, counted: CountedLoop, ind: str, ins: List[str], outs: List[str],
                      args: List[str], depth: int, tag: Tuple[int, Operator], live: bool) -> None:
        """`for <counter> in range(start, stop, step)` over the body (see counted_loop.py); the
        counter's local holds a Python int in the body, its final array is made after."""
        k, turns = counted.k, self.new_local()
        stop = counted.stop if type(counted.stop) is int else \
            self._number(tag[1].inputs[counted.stop[1]], ins[counted.stop[1]])
        if counted.inclusive:
            stop = f"{stop} {'+' if counted.step > 0 else '-'} 1"
        start = self._number(tag[1].inputs[k], ins[k])
        self.emit(f"{ind}{turns} = range({start}, {stop}, {counted.step})", tag)
        check_trip_count(self, turns, ind, tag)
        self.emit(f"{ind}for {outs[k]} in {turns}:", tag)
        n_lines = len(self.lines)
        self.inline(counted.body, ind + "    ", args, outs, depth + 1, carried=True)
        if len(self.lines) == n_lines:
            self.emit(f"{ind}    pass")
        if live:
            end = self.const("N", counter_end)
            shape = f", {counted.shape!r}" if counted.shape else ""
            self.emit(f"{ind}{outs[k]} = {end}({turns}, {self.const('A', counted.dtype)}{shape})", tag)
        self.emit(f"{ind}del {turns}")
        self.free.append(turns)

    def _number(self, name: str, expr: str) -> str:
        """The Python int in value `name` (0-d or shape [1]), held by local or expression expr."""
        var = self.vars.get(name)
        return f"int({expr}[0])" if var is not None and var._shape == (1,) else f"int({expr})"

    def _read_as_index(self, op: Operator, name: str) -> bool:
        """Whether op reads value `name` only as an index that its generated code turns into
        a Python int (getitem written out as x[...]), so a Python int may stand for it."""
        if op.type in ("array_write", "array_read"):
            # their kernels take int(i): a Python int is the same index
            return len(op.inputs) >= 2 and op.inputs[1] == name and op.inputs[0] != name and \
                name not in op.inputs[2:]
        return op.type == "getitem" and op.inputs[0] != name and \
            getitem_expr(self.vars, op, list(op.inputs)) is not None


def _direct_results(block: Block, ops: List[Operator], args: Sequence[str], outs: Sequence[str],
                    carried: bool) -> Dict[int, str]:
    """Results j an op of the block can write straight into outs[j] (saving a move and a del):
    made by exactly one op, listed once, and outs[j] is read by nothing in the block after that
    op. A cond's outs are fresh locals; a while body's outs[j] is its param j (the loop
    variable), read up to the op (or before a cond / while op, whose body would read it after)."""
    if not outs or len(outs) != len(block.results):
        return {}
    made: Dict[str, int] = {}
    twice = set()
    for k, op in enumerate(ops):
        for o in op.outputs:
            if o in made:
                twice.add(o)
            made[o] = k
    counts: Dict[str, int] = {}
    for r in block.results:
        counts[r] = counts.get(r, 0) + 1
    last_read: Dict[str, int] = {}
    if carried:
        for k, op in enumerate(ops):
            for n in op.inputs:
                last_read[n] = k
    direct = {}
    for j, r in enumerate(block.results):
        k = made.get(r)
        if k is None or r in twice or counts[r] != 1 or r in block.params or \
                list(args).count(outs[j]) != (1 if carried else 0):
            continue
        if carried:
            p = block.params[j]
            if p in counts:               # moved into another loop variable at the end
                continue
            read = last_read.get(p, -1)
            if read > k or (read == k and ops[k].type in CONTROL):
                continue
        direct[j] = r
    return direct


def _op_in_line(line: str, exprs: List[Tuple[str, Any]], code: Any, lasti: int) -> Any:
    """Of the ops computed in one generated line (exprs: their expressions, the outermost
    last), the one whose call was running at instruction offset lasti: the narrowest
    expression around it. None when positions are unknown (before Python 3.11 the line's own
    op, the outermost, is named)."""
    if not hasattr(code, "co_positions") or lasti < 0:
        return None
    positions = list(code.co_positions())
    pos = positions[lasti // 2] if lasti // 2 < len(positions) else None
    if pos is None or pos[2] is None:
        return None
    inside = []
    for expr, op in exprs:
        col = line.rfind(expr)
        if 0 <= col <= pos[2] and (pos[3] or pos[2]) <= col + len(expr):
            inside.append((len(expr), op))
    return min(inside, key=lambda t: t[0])[1] if inside else None


def _transposes_y_only(op: Operator) -> bool:
    return op.attrs.get("transpose_y") is True and op.attrs.get("transpose_x") is False


def _tuple(names: Sequence[str]) -> str:
    return ", ".join(names) + ("," if len(names) == 1 else "")


def getitem_expr(vars: Dict[str, Variable], op: Operator, ins: Sequence[str]) -> Optional[str]:
    """`x[...]` written out (what decode_index builds at run time), or None when unsure.
    vars: resolve_vars(program)."""
    attrs = op.attrs
    items = attrs.get("items")
    if not isinstance(items, list) or len(attrs) != 1:
        return None
    parts = []
    for it in items:
        k = it.get("k") if isinstance(it, dict) else None
        if k == "int" and type(it.get("v")) is int:
            parts.append(repr(it["v"]))
        elif k == "slice":
            v = it.get("v")
            if not isinstance(v, list) or len(v) != 3:
                return None
            if v[0] is None and v[1] is None and v[2] is None:
                parts.append(":")           # the usual x[:, i]
                continue
            b = [_slice_bound(vars, op, ins, x) for x in v]
            if None in b:
                return None
            parts.append(f"{b[0]}:{b[1]}" + (f":{b[2]}" if b[2] else ""))
        elif k == "none":
            parts.append("None")
        elif k == "ellipsis":
            parts.append("...")
        elif k == "tensor":
            t = _index_tensor(vars, op, ins, it.get("t"), False)
            if t is None:
                return None
            parts.append(t)
        else:
            return None
    return f"{ins[0]}[{', '.join(parts)},]" if parts else f"{ins[0]}[()]"


def _index_tensor(vars: Dict[str, Variable], op: Operator, ins: Sequence[str], t: Any,
                  bound: bool) -> Optional[str]:
    """Index tensor number t of a getitem: `int(v)` for an integer scalar, the array itself (not
    as a slice bound), or None."""
    if not isinstance(t, int) or not 0 <= t < len(ins) - 1:
        return None
    v = vars.get(op.inputs[1 + t])
    if v is None or v.kind != "dense":
        return None
    if v._shape == () and np.dtype(v.dtype.np).kind in "iu":
        return f"int({ins[1 + t]})"
    return None if bound else ins[1 + t]


def _slice_bound(vars: Dict[str, Variable], op: Operator, ins: Sequence[str], b: Any) -> Optional[str]:
    if b is None:
        return ""
    if type(b) is int:
        return repr(b)
    if isinstance(b, dict) and set(b) == {"t"}:
        return _index_tensor(vars, op, ins, b["t"], True)
    return None


@lru_cache(maxsize=64)
def compiled_source(source: str, filename: str) -> Any:
    """The code object of a generated program's source. Code objects are immutable and exec'd
    into a fresh namespace each time, so a program traced or loaded again (a retrace, a model
    loaded twice) reuses the compile, which dominates building a large program."""
    return compile(source, filename, "exec")


class CompiledProgram:
    """A callable running a Program: arrays in (feed order), arrays out (fetch order)."""

    def __init__(self, program: Program, feed_names: Sequence[str], fetch_names: Sequence[str]) -> None:
        gen = _Codegen(program)
        reuse = getattr(program, "buffer_reuse", None)
        if reuse is not None and tuple(reuse["fetch"]) == tuple(fetch_names):
            gen.reuse = reuse["ops"]       # planned by passes/inplace.py for these fetches
        g = program.global_block()
        gen.emit("def run(__feeds):")
        feeds = [gen.ident(n) for n in feed_names]
        if feeds:
            gen.emit(f"    {', '.join(feeds)}{',' if len(feeds) == 1 else ''} = __feeds")
        used = {n for op in g.ops for n in op.inputs} | set(fetch_names)
        self.persistable_names = [n for n in program.persistables if n in used]
        for n in self.persistable_names:
            gen.emit(f"    {gen.ident(n)} = {gen.const('T', program.persistables[n])}._value")
        gen.body(g, "    ", fetch_names, 0)
        gen.emit(f"    return [{', '.join(gen.assigned(g, fetch_names))}]")
        gen.emit_pending_functions()
        source = "\n".join(gen.lines) + "\n"
        # two zlib checksums name the source (64 bits; hashlib's OpenSSL import would cost
        # more than a first small program's whole compile)
        data = source.encode()
        digest = f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"
        self.filename = f"<dy2st program {digest}>"
        linecache.cache[self.filename] = (len(source), None, source.splitlines(True), self.filename)
        exec(compiled_source(source, self.filename), gen.ns)
        self.source = source
        self.program = program
        self.line_ops = gen.line_ops
        self.line_fused = gen.line_fused
        self._run = gen.ns["run"]
        self.feed_names = list(feed_names)
        self.fetch_names = list(fetch_names)

    def __call__(self, arrays: Sequence[Any]) -> List[Any]:
        try:
            return self._run(arrays)
        except Exception as e:  # noqa: BLE001 - re-raised with the failing op's origin
            raise_with_op_origin(e, self, sys.exc_info()[2])


def raise_with_op_origin(e: BaseException, compiled: CompiledProgram, tb) -> None:
    # lazy: keeps runtime.printer out of a first to_static call (loaded on first use)
    from .printer import op_text
    found = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == compiled.filename:
            found = compiled.line_ops.get(tb.tb_lineno, found)
            exprs = compiled.line_fused.get(tb.tb_lineno)
            if exprs:
                line = compiled.source.splitlines()[tb.tb_lineno - 1]
                found = _op_in_line(line, exprs, tb.tb_frame.f_code, tb.tb_lasti) or found
        tb = tb.tb_next
    if found is None:
        raise e
    block_idx, op = found
    where = ""
    if op.origin is not None:
        o = op.origin
        where = f'\n  File "{o.file}", line {o.line}, in {o.function}\n    {o.source}'
    text = op_text(compiled.program.blocks[block_idx], op)
    msg = f"{e}\n[operator {text}] failed when the program ran{where}"
    reraise_as(e, msg, op.origin)


def compile_program(program: Program, feed_names: Sequence[str], fetch_names: Sequence[str]) -> CompiledProgram:
    key = (program.version, tuple(feed_names), tuple(fetch_names))
    cached = program._compiled.get(key)
    if cached is None:
        cached = CompiledProgram(program, feed_names, fetch_names)
        program._compiled = {k: v for k, v in program._compiled.items() if k[0] == program.version}
        program._compiled[key] = cached
    return cached


class Executor:
    """Runs static Programs: `run(program, feed={name: array}, fetch_list=[vars])` -> arrays."""

    def __init__(self, place: Any = None) -> None:
        self.place = place

    def run(self, program: Optional[Program] = None, feed: Optional[Dict[str, Any]] = None,
            fetch_list: Optional[Sequence[Any]] = None, return_numpy: bool = True) -> List[Any]:
        program = program or default_main_program()
        program = getattr(program, "_program", program)     # a static.CompiledProgram
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run expects a Program, got {type(program).__name__}")
        feed = feed or {}
        fetch_names = [f.name if isinstance(f, Variable) else str(f) for f in (fetch_list or [])]
        g = program.global_block()
        for n in fetch_names:
            if n not in g.vars:
                raise KeyError(f"fetch target {n!r} is not a variable of the global block")
        feed_names = list(feed)
        arrays = []
        for n in feed_names:
            var = g.vars.get(n)
            if var is None:
                raise KeyError(f"feed {n!r} is not a variable of the program")
            v = feed[n]
            arr = np.asarray(v.numpy() if hasattr(v, "numpy") else v)
            if arr.dtype != var.dtype.np:
                arr = arr.astype(var.dtype.np)
            if len(arr.shape) != len(var._shape) or any(
                    d >= 0 and d != a for d, a in zip(var._shape, arr.shape)):
                raise ValueError(f"feed {n!r} has shape {list(arr.shape)}, the program expects "
                                 f"{list(var._shape)} (-1 is any size)")
            arrays.append(arr)
        # updates a run makes to persistables (opt.minimize, BatchNorm statistics) are fetched
        # after the user's fetches and written back, as StaticFunction does for to_static
        writes = list(program.persistable_writes.items())
        compiled = compile_program(program, feed_names, fetch_names + [new for _, new in writes])
        outs = compiled(arrays)
        if writes:
            n = len(fetch_names)
            for i, (old, _) in enumerate(writes):
                store(program.write_targets[old], np.asarray(outs[n + i]))
            outs = outs[:n]
        if return_numpy:
            return [np.asarray(o) if not isinstance(o, list) else o for o in outs]
        return [Tensor(o) for o in outs]
