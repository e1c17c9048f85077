"""The compiler refuses a Program that reads a value nothing assigned before (a bug of a pass or
of a gradient builder): an InternalError naming the op when the program is compiled, never an
UnboundLocalError inside the generated program when it runs (runtime/unassigned.py)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.errors import InternalError
from dy2st.runtime.executor import compile_program
from dy2st.runtime.program import Operator, Program


def _vars(block, *names):
    for name in names:
        block.create_var([3], paddle.float32, name=name)


def test_an_op_reading_a_value_no_op_assigned():
    program = Program()
    g = program.global_block()
    _vars(g, "x", "lost", "y")
    g.ops.append(Operator("add", ["x", "lost"], ["y"], {}))
    with pytest.raises(InternalError, match=r"\[operator y: float32\[3\] = add\(x, lost\)\] "
                                            r"of block 0 reads 'lost'"):
        compile_program(program, ["x"], ["y"])


def test_a_fetch_nothing_assigned():
    program = Program()
    g = program.global_block()
    _vars(g, "x", "y", "lost")
    g.ops.append(Operator("exp", ["x"], ["y"], {}))
    with pytest.raises(InternalError, match="the program's fetches reads 'lost'"):
        compile_program(program, ["x"], ["y", "lost"])


def _cond(result):
    """y, z = cond(p, x): the true branch gives (exp(x), x); the false one (x, `result`)."""
    program = Program()
    g = program.global_block()
    g.create_var([], paddle.bool, name="p")
    _vars(g, "x", "y", "z")
    blocks = [program.create_block(0) for _ in range(2)]
    for b, tag in zip(blocks, "tf"):
        _vars(b, f"x_{tag}", f"e_{tag}")
        b.params = [f"x_{tag}"]
        b.ops.append(Operator("exp", [f"x_{tag}"], [f"e_{tag}"], {}))
    blocks[0].results = ["e_t", "x_t"]
    blocks[1].results = ["x_f", result]
    g.ops.append(Operator("cond", ["p", "x"], ["y", "z"],
                          {"true_block": blocks[0].idx, "false_block": blocks[1].idx}))
    return program


def test_a_branch_result_nothing_assigned_names_the_cond():
    program = _cond("e_t")      # a value of the other branch: never assigned in this one
    with pytest.raises(InternalError, match=r"the results of block 2 \(a sub-block of \[operator "
                                            r"y: float32\[3\], z: float32\[3\] = cond\(p, x\)"):
        compile_program(program, ["p", "x"], ["y", "z"])


def test_a_well_formed_program_still_runs_on_either_path():
    compiled = compile_program(_cond("e_f"), ["p", "x"], ["y", "z"])
    x = np.array([0.0, 1.0, 2.0], "float32")
    for p in (True, False):
        y, z = compiled([np.array(p), x])
        np.testing.assert_allclose(y, np.exp(x) if p else x, rtol=1e-6)
        np.testing.assert_allclose(z, x if p else np.exp(x), rtol=1e-6)
