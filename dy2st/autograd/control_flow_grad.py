"""Gradients of `cond` and `while`.

The gradient of a `cond` is a `cond` on the same predicate whose branches run the branches'
gradient ops; branch values those ops read leave the forward `cond` as extra outputs (the other
branch gives a placeholder). The gradient of a `while` is a `while` that runs the same number of
turns backwards: the forward loop counts its turns and pushes each turn's values that the
gradient reads onto a tape (a loop variable), which the gradient loop reads at its counter;
gradients of values captured from outside the loop are summed over the turns. Values the same
every turn are not pushed (loop_values.py), and runtime/passes/loop_tapes.py then keeps of the
tapes only what the gradient ops read."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Set

from ..runtime import ops
from ..runtime.control_flow.values import align_captures, as_pred, unify
from ..runtime.program import Block, Operator, Variable, block_guard
from ..runtime.registry import Meta, append_op, apply
from .loop_values import carried_position, constant_op, invariant_op, unchanged_source
from .static_backward import accumulate, backprop, zeros_like_value


def _meta(v: Variable) -> Meta:
    return Meta(v._shape, v.dtype, v.kind, v.elem)


def _insert_before(block: Block, anchor: Operator, name: str, inputs: list, attrs: dict) -> Variable:
    """Append op `name` to block, then move it just before `anchor`."""
    with block_guard(block):
        out = apply(name, inputs, attrs)
    new_op = block.ops.pop()
    block.ops.insert(block.ops.index(anchor), new_op)
    return out


def _placeholder(block: Block, like: Variable) -> Variable:
    with block_guard(block):
        if like.kind == "array":
            return apply("tape_create", [], {"dtype": like.dtype}) if _is_tape(like) else \
                ops.create_array(like.dtype)
        return ops.full([d if d >= 0 else 1 for d in like._shape], 0, like.dtype)


def _is_tape(v: Variable) -> bool:
    return v.kind == "array" and isinstance(v.elem, tuple) and len(v.elem) == 4


def recompute(scope: Any, made: Operator, v: Variable) -> Variable:
    """v computed again in the scope's gradient block by its forward op `made`, on the values
    the scope resolves for that op's inputs."""
    program = scope.fwd.program
    with block_guard(scope.grad):
        outs = apply(made.type, [scope.resolve(program.find_var(n)) for n in made.inputs],
                     dict(made.attrs))
    return outs[made.outputs.index(v.name)] if isinstance(outs, (tuple, list)) else outs


class _SubScope:
    """Gradient ops of a sub-block: a value of an outer block is reached through the parent
    scope; a value of the sub-block itself once through `_own` (cached)."""

    def resolve(self, v: Variable) -> Variable:
        if v.block is not self.fwd:
            return self.parent.resolve(v)
        found = self.cache.get(v.name)
        if found is None:
            found = self.cache[v.name] = self._own(v)
        return found


# ----------------------------------------------------------------------------- cond
class CondScope(_SubScope):
    """Gradient ops of one branch of a forward `cond`."""

    def __init__(self, fwd: Block, other: Block, grad: Block, parent: Any, op: Operator,
                 is_true: bool) -> None:
        self.fwd, self.other, self.grad, self.parent, self.op = fwd, other, grad, parent, op
        self.is_true = is_true
        self.cache: Dict[str, Variable] = {}

    def _own(self, v: Variable) -> Variable:
        if v.name in self.fwd.params:
            src = self.fwd.program.find_var(self.op.inputs[1 + self.fwd.params.index(v.name)])
        else:
            made = constant_op(self.fwd, v.name)
            if made is not None:
                # a constant of the branch: made again, not an output a loop would push
                return recompute(self, made, v)
            src = self._export(v)
        return self.parent.resolve(src)

    def _export(self, v: Variable) -> Variable:
        """Make v an extra output of the forward cond (the other branch gives a placeholder)."""
        holder = _placeholder(self.other, v)
        tb_res, fb_res = (v, holder) if self.is_true else (holder, v)
        meta = unify(f"residual {v.name}", tb_res, fb_res) if v.kind == "dense" else _meta(v)
        op_block = self.parent.fwd
        out = op_block.create_var(meta.shape, meta.dtype, kind=meta.kind, elem=meta.elem)
        self.fwd.results.append(v.name)
        self.other.results.append(holder.name)
        self.op.outputs.append(out.name)
        return out


def cond_grad(scope: Any, op: Operator, inputs: List[str], out_grads: List[Any],
              needs: List[bool], req: set) -> List[Any]:
    program = scope.fwd.program
    tb = program.blocks[op.attrs["true_block"]]
    fb = program.blocks[op.attrs["false_block"]]
    results = {"t": list(tb.results), "f": list(fb.results)}
    wanted = [i for i in range(1, len(inputs)) if needs[i]]
    built = []
    for key, fwd, other, is_true in (("t", tb, fb, True), ("f", fb, tb, False)):
        gb = program.create_block(scope.grad.idx)
        sub = CondScope(fwd, other, gb, scope, op, is_true)
        with block_guard(gb):
            local: Dict[str, Any] = {}
            for res, g in zip(results[key], out_grads):
                if g is not None:
                    accumulate(local, res, gb.local(g))
            backprop(sub, list(fwd.ops), local, req)
            outs = []
            for i in wanted:
                p = fwd.params[i - 1]
                g = local.get(p)
                if g is None:
                    g = zeros_like_value(sub.resolve(program.find_var(p)))
                outs.append(gb.local(g))
            gb.results = [v.name for v in outs]
        built.append((gb, outs))
    (gtb, t_outs), (gfb, f_outs) = built
    metas = [unify(f"gradient of input {i}", a, b) for i, a, b in zip(wanted, t_outs, f_outs)]
    with block_guard(scope.grad):
        pred = scope.resolve(program.find_var(inputs[0]))
        sources = align_captures([gtb, gfb], 0)
        outs = append_op("cond", [pred, *sources],
                         {"true_block": gtb.idx, "false_block": gfb.idx}, metas=metas) if metas else ()
    in_grads: List[Any] = [None] * len(inputs)
    for i, v in zip(wanted, outs):
        in_grads[i] = v
    return in_grads


# ----------------------------------------------------------------------------- while
class _LoopTapes:
    """What a forward `while` was given so that its gradient can replay it: a turn counter
    and one tape per per-turn value the gradient reads."""

    def __init__(self) -> None:
        self.counter_out: Optional[Variable] = None
        self.tapes: Dict[str, Variable] = {}


def _add_loop_var(op: Operator, op_block: Block, init: Variable, body_value_fn) -> Variable:
    """Add a loop variable to a forward while: `init` before the loop, `body_value_fn(param)`
    computed at the end of each turn; returns the loop's final value (a new output)."""
    program = op_block.program
    cb, bb = program.blocks[op.attrs["cond_block"]], program.blocks[op.attrs["body_block"]]
    n = op.attrs["n_loop_vars"]
    with block_guard(bb):
        p = bb.create_var(init._shape, init.dtype, prefix="loop", kind=init.kind, elem=init.elem)
        new = body_value_fn(p)
    bb.params.insert(n, p.name)
    cp = cb.create_var(new._shape, new.dtype, prefix="loop", kind=new.kind, elem=new.elem)
    cb.params.insert(n, cp.name)
    # the param takes the meta of what a turn produces (a tape's item type is known then)
    p._shape, p.dtype, p.kind, p.elem = new._shape, new.dtype, new.kind, new.elem
    bb.results.insert(n, bb.local(new).name)
    out = op_block.create_var(new._shape, new.dtype, kind=new.kind, elem=new.elem)
    op.inputs.insert(n, init.name)
    op.outputs.insert(n, out.name)
    op.attrs["n_loop_vars"] = n + 1
    return out


def _tapes_of(op: Operator, op_block: Block) -> _LoopTapes:
    table = op_block.program.__dict__.setdefault("loop_tapes", {})
    tapes = table.get(id(op))
    if tapes is None:
        tapes = table[id(op)] = _LoopTapes()
        zero = _insert_before(op_block, op, "full", [], {"shape": [], "value": 0, "dtype": "int64"})
        tapes.counter_out = _add_loop_var(op, op_block, zero, lambda k: ops.add(k, ops.full([], 1, "int64")))
    return tapes


def forget_tapes(program: Any, names: Set[str]) -> None:
    """The tapes `names` were dropped from their loops (runtime/passes/loop_tapes.py): a later
    gradient of the same program pushes its values anew."""
    for tapes in program.__dict__.get("loop_tapes", {}).values():
        for key in [k for k, v in tapes.tapes.items() if v.name in names]:
            del tapes.tapes[key]


def _push(op: Operator, op_block: Block, v: Variable) -> Variable:
    tapes = _tapes_of(op, op_block)
    found = tapes.tapes.get(v.name)
    if found is None:
        empty = _insert_before(op_block, op, "tape_create", [], {"dtype": v.dtype})
        found = tapes.tapes[v.name] = _add_loop_var(
            op, op_block, empty, lambda tape: apply("tape_push", [tape, v]))
    return found


def _push_carried(op: Operator, op_block: Block, j: int) -> Variable:
    """The tape of loop variable j: its value before the loop, then its value after each turn."""
    tapes = _tapes_of(op, op_block)
    key = f"carried {j}"
    found = tapes.tapes.get(key)
    if found is None:
        program = op_block.program
        body = program.blocks[op.attrs["body_block"]]
        result = program.find_var(body.results[j])
        init = program.find_var(op.inputs[j])
        empty = _insert_before(op_block, op, "tape_create", [], {"dtype": init.dtype})
        first = _insert_before(op_block, op, "tape_push", [empty, init], {})
        found = tapes.tapes[key] = _add_loop_var(
            op, op_block, first, lambda tape: apply("tape_push", [tape, result]))
    return found


class WhileScope(_SubScope):
    """Gradient ops of one turn of a forward `while`, run backwards by the gradient loop."""

    def __init__(self, fwd: Block, grad: Block, parent: Any, op: Operator, turn: Variable) -> None:
        self.fwd, self.grad, self.parent, self.op, self.turn = fwd, grad, parent, op, turn
        self.cache: Dict[str, Variable] = {}
        self.made: Optional[Dict[str, Operator]] = None     # the forward body's ops by output

    def _own(self, v: Variable) -> Variable:
        program = self.fwd.program
        same = unchanged_source(self.op, self.fwd, v.name)
        if same is not None:
            # captured from outside, or carried unchanged: the same value every turn
            return self.parent.resolve(program.find_var(same))
        if self.made is None:
            self.made = {o: p for p in self.fwd.ops for o in p.outputs}
        made = invariant_op(self.op, self.fwd, v.name, self.made)
        if made is not None:
            # computed from such values alone: computed again, not pushed every turn
            return recompute(self, made, v)
        carried = carried_position(self.op, self.fwd, v)
        if carried is not None:
            # a turn's input and output of one loop variable share a tape: [x0, x1, ..., xT]
            j, offset = carried
            tape = self.parent.resolve(_push_carried(self.op, self.parent.fwd, j))
            with block_guard(self.grad):
                at = self.turn if not offset else ops.add(self.turn, ops.full([], offset, "int64"))
                return apply("tape_read", [tape, at])
        tape = self.parent.resolve(_push(self.op, self.parent.fwd, v))
        with block_guard(self.grad):
            return apply("tape_read", [tape, self.turn])


def while_grad(scope: Any, op: Operator, inputs: List[str], out_grads: List[Any],
               needs: List[bool], req: set) -> List[Any]:
    program = scope.fwd.program
    bb = program.blocks[op.attrs["body_block"]]
    n = op.attrs["n_loop_vars"]
    fwd_ops = list(bb.ops)
    loop_params, results = list(bb.params[:n]), list(bb.results[:n])
    carried = [j for j in range(n) if loop_params[j] in req]
    captured = [i for i in range(n, len(inputs)) if needs[i]]
    captured_params = [bb.params[i] for i in captured]
    tapes = _tapes_of(op, scope.fwd)
    grad_block = scope.grad
    with block_guard(grad_block):
        turns = scope.resolve(tapes.counter_out)
        k0 = ops.subtract(turns, ops.full([], 1, "int64"))
        g_init = []
        for j in carried:
            g = out_grads[j]
            g_init.append(g if g is not None else
                          zeros_like_value(scope.resolve(program.find_var(op.outputs[j]))))
        acc_init = [zeros_like_value(scope.resolve(program.find_var(inputs[i]))) for i in captured]
    init = [k0, *g_init, *acc_init]
    cb2 = program.create_block(grad_block.idx)
    bb2 = program.create_block(grad_block.idx)
    c_params = [cb2.create_var(v._shape, v.dtype, prefix="gloop", kind=v.kind, elem=v.elem)
                for v in init]
    b_params = [bb2.create_var(v._shape, v.dtype, prefix="gloop", kind=v.kind, elem=v.elem)
                for v in init]
    cb2.params = [p.name for p in c_params]
    bb2.params = [p.name for p in b_params]
    with block_guard(cb2):
        cb2.results = [as_pred(ops.greater_equal(c_params[0], ops.full([], 0, "int64"))).name]
    turn = b_params[0]
    sub = WhileScope(bb, bb2, scope, op, turn)
    with block_guard(bb2):
        local: Dict[str, Any] = {}
        for j, gp in zip(carried, b_params[1:1 + len(carried)]):
            accumulate(local, results[j], gp)
        backprop(sub, fwd_ops, local, req)
        new_g = []
        for j, gp in zip(carried, b_params[1:1 + len(carried)]):
            g = local.get(loop_params[j])
            new_g.append(bb2.local(g) if g is not None else zeros_like_value(gp))
        new_acc = {}
        for name, ap in zip(captured_params, b_params[1 + len(carried):]):
            new_acc[name] = ap
            g = local.get(name)
            if g is not None:
                accumulate(new_acc, name, g)
        new_acc = list(new_acc.values())
        k_next = ops.subtract(turn, ops.full([], 1, "int64"))
        bb2.results = [bb2.local(v).name for v in [k_next, *new_g, *new_acc]]
    n2 = len(init)
    with block_guard(grad_block):
        sources = align_captures([cb2, bb2], n2)
        outs = append_op("while", [*init, *sources],
                         {"cond_block": cb2.idx, "body_block": bb2.idx, "n_loop_vars": n2},
                         metas=[_meta(v) for v in init])
    in_grads: List[Any] = [None] * len(inputs)
    for j, v in zip(carried, outs[1:1 + len(carried)]):
        if needs[j]:
            in_grads[j] = v
    for i, v in zip(captured, outs[1 + len(carried):]):
        in_grads[i] = v
    return in_grads
