"""Compiling (passes + code generation) does work linear in the op count (issue 17), checked as
Python lines run per op at two sizes, not by timing: a walk over everything done so far at each
op (a quadratic pass) shows up as lines per op growing with the program."""
import sys

import numpy as np

import dy2st as paddle
from dy2st import static
from dy2st.runtime.executor import CompiledProgram, _FreeLocals
from dy2st.runtime.passes import optimize

SMALL, GROWTH = 300, 4


def layered_program(n_ops: int, seed: int = 0):
    """Linear layers with their own weights, repeated constants and subexpressions (folded and
    merged by the passes), a tensor `if` every fourth layer."""
    rng = np.random.default_rng(seed)
    main = static.Program()
    with static.program_guard(main):
        h = static.data("x", [2, 4], "float32")
        layer = 0
        while main.num_ops() < n_ops:
            w = paddle.to_tensor(rng.standard_normal((4, 4)).astype("float32"))
            y = paddle.tanh(paddle.matmul(h, w))
            h = h * 0.5 + y * 0.5 + paddle.exp(h) * 0.0 + paddle.exp(h) * 0.0
            if layer % 4 == 3:
                h = static.nn.cond(h.mean() > 100.0, lambda: h - 1.0, lambda: h + 0.0)
            layer += 1
    main.fetch_names = [h.name]
    return main, h


def lines_run(fn) -> int:
    """How many Python lines fn() runs (every frame it calls included)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return tracer
    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


def compile_lines_per_op(n_ops: int) -> float:
    main, h = layered_program(n_ops)
    n = main.num_ops()
    return lines_run(lambda: (optimize(main), CompiledProgram(main, ["x"], [h.name]))) / n


def test_compile_work_per_op_does_not_grow_with_the_program():
    small = compile_lines_per_op(SMALL)
    large = compile_lines_per_op(SMALL * GROWTH)
    assert large < 1.15 * small, (small, large)


def test_the_layered_program_still_computes_the_same():
    x = np.random.default_rng(1).standard_normal((2, 4)).astype("float32")
    outs = []
    for passes in (False, True):
        main, h = layered_program(SMALL * GROWTH, seed=2)
        if passes:
            optimize(main)
        outs.append(CompiledProgram(main, ["x"], [h.name])([x])[0])
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)


def test_free_locals_restore_what_was_saved():
    free = _FreeLocals()
    free.extend(["a", "b", "c"])
    free.save()
    taken = [free.pop(), free.pop()]
    free.append("d")
    free.save()                           # nested: an if inside a loop
    taken.append(free.pop())
    taken.append(free.pop())
    free.extend(["e", "f"])
    free.restore()
    assert free.items == ["a", "d"]
    assert free.pop() == "d"
    free.restore()
    assert free.items == ["a", "b", "c"]
    assert taken == ["c", "b", "d", "a"]
