"""Control flow: `cond` -> ONNX If (both branches as subgraphs), `while` -> ONNX Loop.

Sub-blocks are closed: their params are bound to the outer values the op passes in, which the
subgraphs then read as outer-scope names. A predicate known at export time inlines its branch."""
from __future__ import annotations

from typing import Dict, List

from ..runtime.control_flow.counted_loop import counted_loop
from ..runtime.control_flow.structure import cond_parts, while_parts
from ..runtime.dtype import dtype_name
from ..runtime.program import Block
from .builder import Const, OpContext, Value
from .table import lowers


@lowers("cond", fold=False)
def lower_cond(cx: OpContext) -> List[Value]:
    b, op = cx.b, cx.op
    program = b.program
    pred, sources = cx.values[0], cx.values[1:]
    blocks = cond_parts(program, op).branches
    if isinstance(pred, Const):                       # decided at export time: inline it
        block = blocks[0] if bool(pred.value.reshape(-1)[0]) else blocks[1]
        env: Dict[str, Value] = dict(zip(block.params, sources))
        b.lower_block(block, env)
        return [env[r] for r in block.results]
    out_vars = [cx.out_var(i) for i in range(len(op.outputs))]
    graphs = []
    for label, block in zip(("then", "else"), blocks):
        env = dict(zip(block.params, sources))
        graphs.append(b.subgraph(f"{label}_{block.idx}", block, env, [], out_vars, op))
    if not out_vars:          # a cond for effects only (printing): nothing left to compute
        return []
    outs = [b.fresh(v.name) for v in out_vars]
    b.node("If", [cx.input(0)], outputs=outs, then_branch=graphs[0], else_branch=graphs[1])
    return outs


@lowers("while", fold=False)
def lower_while(cx: OpContext) -> List[Value]:
    b, op = cx.b, cx.op
    program = b.program
    loop = while_parts(program, op)
    n = loop.n_carried
    cblock, body = loop.cond_block, loop.body_block
    inits, sources = loop.split(cx.values)
    env: Dict[str, Value] = dict(zip(cblock.params, inits + sources))
    b.lower_block(cblock, env)                        # the first test, before the loop
    first = env[cblock.results[0]]
    if isinstance(first, Const) and not bool(first.value.reshape(-1)[0]):
        return list(inits)                            # never runs
    out_vars = [cx.out_var(i) for i in range(n)]
    iter_name, cond_in = b.fresh("iteration"), b.fresh("cond_in")
    carried = [b.fresh(p) for p in body.params[:n]]
    h = b.helper
    inputs = [h.make_tensor_value_info(iter_name, b.tensor_type("int64"), []),
              h.make_tensor_value_info(cond_in, b.tensor_type("bool"), [])]
    inputs += [b.value_info(name, var) for name, var in zip(carried, out_vars)]
    benv: Dict[str, Value] = dict(zip(body.params, carried + sources))
    # the body graph runs the body block, then the condition block on the new loop values
    b.push_scope()
    try:
        b.lower_block(body, benv)
        new = [benv[r] for r in body.results]
        cenv: Dict[str, Value] = dict(zip(cblock.params, new + sources))
        b.lower_block(cblock, cenv)
        again = cenv[cblock.results[0]]
        outputs = b.graph_outputs([again] + new, [False] + [v.kind == "array" for v in out_vars],
                                  op)
        infos = [h.make_tensor_value_info(outputs[0], b.tensor_type("bool"), [])]
        infos += [b.value_info(o, v, [-1] * len(v._shape)) for o, v in zip(outputs[1:], out_vars)]
    finally:
        nodes = b.pop_scope()
    if not out_vars:          # a loop for effects only (printing): nothing left to compute
        return []
    graph = h.make_graph(nodes, b.fresh(f"loop_body_{body.idx}"), inputs, infos)
    outs = [b.fresh(v.name) for v in out_vars]
    trips = trip_count(cx, cblock, body, inits, sources)
    b.node("Loop", [trips, b.name_of(first)] + [b.name_of(v) for v in inits], outputs=outs,
           body=graph)
    return outs


def trip_count(cx: OpContext, cblock: Block, body: Block, inits: List[Value],
               sources: List[Value]) -> str:
    """The Loop's trip count M when the while op counts an int from its start to a bound by a
    constant step (a converted `for i in range(...)`), else "" (the condition alone decides).
    The condition stays in the Loop either way, so M is only ever the exact count."""
    program = cx.b.program
    names = {**cblock.vars, **body.vars}
    counted = counted_loop(program, names, cx.op, lambda op, param: True)
    if counted is None:
        return ""
    dtype = dtype_name(counted.dtype)
    start = cx.b.name_of(inits[counted.k])
    if isinstance(counted.stop, int):
        stop = cx.const(counted.stop, dtype)
    else:
        stop = cx.b.name_of(sources[counted.stop[1] - while_parts(program, cx.op).n_carried])
    step = counted.step
    span = cx.node("Sub", [stop, start]) if step > 0 else cx.node("Sub", [start, stop])
    # turns = ceil((span + inclusive) / |step|), at least 0
    extra = abs(step) - 1 + (1 if counted.inclusive else 0)
    turns = cx.node("Div", [cx.node("Add", [span, cx.const(extra, dtype)]),
                            cx.const(abs(step), dtype)])
    turns = cx.node("Max", [turns, cx.const(0, dtype)])
    return cx.cast(turns, dtype, "int64")
