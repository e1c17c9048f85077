"""No-op cast / reshape / assign removal keeps results identical and never makes an output share
an input's array."""
import numpy as np
from random_programs import build_program, check_pass

import dy2st as paddle
from dy2st.runtime.passes.noop import remove_noops
from dy2st.runtime.registry import apply


def test_random_programs_identical_after_noop_removal():
    assert check_pass(remove_noops, range(60)) >= 10



def test_same_dtype_cast_and_same_shape_reshape_go():
    main = build_program(lambda x: paddle.tanh(paddle.reshape(apply("cast", [x], {"dtype": "float32"}), [2, 3])))
    assert remove_noops(main) == 2
    assert [op.type for op in main.global_block().ops] == ["tanh"]


def test_real_casts_and_reshapes_stay():
    main = build_program(lambda x: paddle.reshape(paddle.cast(x, "float64"), [3, 2]) * 2.0)
    assert remove_noops(main) == 0


def test_an_output_never_shares_the_feed():
    main = build_program(lambda x: apply("cast", [x], {"dtype": "float32"}))
    assert remove_noops(main) == 0
    x = np.ones((2, 3), "float32")
    from dy2st.runtime.executor import CompiledProgram
    out = CompiledProgram(main, ["x"], main.fetch_names)([x])[0]
    assert not np.shares_memory(out, x)


def test_chained_noops_all_go_and_readers_see_the_first_value():
    main = build_program(lambda x: paddle.tanh(paddle.assign(paddle.reshape(
        apply("cast", [paddle.exp(x)], {"dtype": "float32"}), [2, 3]))))
    assert remove_noops(main) == 3
    ops = main.global_block().ops
    assert [op.type for op in ops] == ["exp", "tanh"] and ops[1].inputs == ops[0].outputs


def test_blocks_without_candidate_ops_are_left_alone():
    main = build_program(lambda x: paddle.tanh(x) * 2.0)
    before = main.version
    assert remove_noops(main) == 0 and main.version == before
