"""Constant folding keeps results identical; random and effectful ops are never folded."""
import numpy as np
from random_programs import build_program, check_pass, run

import dy2st as paddle
from dy2st.runtime.passes.effects import EFFECTS, NONDETERMINISTIC
from dy2st.runtime.passes.fold import fold_constants


def test_random_programs_identical_after_folding():
    assert check_pass(fold_constants, range(60)) >= 10



def test_all_constant_ops_become_one_full():
    main = build_program(lambda x: x + paddle.full([], 2.0, "float32") * paddle.full([], 3.0, "float32")
                  + paddle.full([2, 3], 1.0, "float32") * paddle.full([2, 3], -0.5, "float32"))
    # the 0-d product is a numpy scalar when run (a `full` would give a 0-d array): not folded
    assert fold_constants(main) == 1
    folded = [op for op in main.global_block().ops if op.type == "full" and op.attrs["shape"] == [2, 3]]
    assert any(op.attrs["value"] == -0.5 for op in folded)
    out = run(main, ["x"], main.fetch_names, [np.zeros((2, 3), "float32")])[0][0]
    np.testing.assert_array_equal(out, np.zeros((2, 3), "float32") + 6.0 - 0.5)


def test_negative_zero_keeps_its_sign():
    main = build_program(lambda x: x * (paddle.full([2, 3], 0.0, "float32") * paddle.full([2, 3], -1.0, "float32")))
    fold_constants(main)
    out = run(main, ["x"], main.fetch_names, [np.ones((2, 3), "float32")])[0][0]
    assert np.all(np.signbit(out))


def test_random_ops_are_never_folded():
    main = build_program(lambda x: x + paddle.rand([2, 3]) * paddle.full([], 2.0, "float32")
                  + paddle.randn([2, 3]) + paddle.uniform([2, 3]))
    kinds = [op.type for op in main.global_block().ops]
    fold_constants(main)
    assert [op.type for op in main.global_block().ops] == kinds
    paddle.seed(3)
    a = run(main, ["x"], main.fetch_names, [np.zeros((2, 3), "float32")], times=1)[0][0]
    assert not np.all(a == a[0, 0])


def test_effect_and_random_sets_are_complete():
    assert {"dropout", "uniform_random", "gaussian_random", "randint"} <= NONDETERMINISTIC
    assert {"print", "assert", "array_write", "create_array"} <= EFFECTS


def test_errors_are_left_for_the_run():
    main = build_program(lambda x: x + paddle.full([], 1.0, "float32") / paddle.full([], 0.0, "float32"))
    before = [op.type for op in main.global_block().ops]
    fold_constants(main)
    assert [op.type for op in main.global_block().ops] == before
