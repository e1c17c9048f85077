"""Generated code against an independent oracle: each random program, optimized or not, gives
bit-identical results when compiled and when interpreted op by op with the registered kernels."""
from typing import Dict, List

import numpy as np
import pytest
from random_programs import SHAPE, assert_identical, random_program, run

import dy2st as paddle
from dy2st.runtime.passes import optimize
from dy2st.runtime.program import Block, Program
from dy2st.runtime.registry import OPS


def _run_block(program: Program, block: Block, args: List) -> List:
    env: Dict = dict(zip(block.params, args))
    for op in block.ops:
        ins = [env[n] for n in op.inputs]
        if op.type == "cond":
            branch = op.attrs["true_block"] if ins[0] else op.attrs["false_block"]
            outs = _run_block(program, program.blocks[branch], ins[1:])
        elif op.type == "while":
            n = op.attrs["n_loop_vars"]
            cond, body = (program.blocks[op.attrs[k]] for k in ("cond_block", "body_block"))
            outs = ins[:n]
            while _run_block(program, cond, outs + ins[n:])[0]:
                outs = _run_block(program, body, outs + ins[n:])
        else:
            value = OPS[op.type].kernel(*ins, **op.attrs)
            outs = [value] if OPS[op.type].n_outputs == 1 else list(value)
        env.update(zip(op.outputs, outs))
    return [env[r] for r in block.results]


def interpret(program: Program, feeds: List[str], fetch: List[str], arrays: List) -> List:
    g = program.global_block()
    saved = g.params, g.results
    g.params, g.results = list(feeds) + list(program.persistables), list(fetch)
    try:
        paddle.seed(7)
        args = [a.copy() for a in arrays] + [t._value for t in program.persistables.values()]
        return [np.array(o, copy=True) for o in _run_block(program, g, args)]
    finally:
        g.params, g.results = saved


@pytest.mark.parametrize("optimized", [False, True])
def test_compiled_random_programs_equal_the_interpreted_ones(optimized):
    for seed in range(60):
        main, feeds, fetch = random_program(seed, n_steps=14)
        if optimized:
            optimize(main)
        rng = np.random.default_rng(seed)
        arrays = [rng.standard_normal(SHAPE).astype("float32") for _ in feeds]
        compiled = run(main, feeds, fetch, arrays, times=1)
        assert_identical(compiled, [interpret(main, feeds, fetch, arrays)])
