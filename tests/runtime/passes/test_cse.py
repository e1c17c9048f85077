"""Common-subexpression elimination keeps results identical and never merges random, effectful
or array-reading ops."""
import numpy as np

import dy2st as paddle
from dy2st.runtime.passes.cse import eliminate_common_subexpressions
from dy2st.tensor import array_read, array_write, create_array

from random_programs import check_pass, run, build_program


def test_random_programs_identical_after_cse():
    assert check_pass(eliminate_common_subexpressions, range(60)) >= 10



def test_equal_ops_merge_once():
    main = build_program(lambda x: paddle.tanh(x) + paddle.tanh(x) + paddle.tanh(x))
    assert eliminate_common_subexpressions(main) == 2
    assert [op.type for op in main.global_block().ops].count("tanh") == 1


def test_different_attrs_do_not_merge():
    main = build_program(lambda x: paddle.sum(x, axis=0) + paddle.sum(x, axis=1)[0])
    assert eliminate_common_subexpressions(main) == 0


def test_random_ops_do_not_merge():
    main = build_program(lambda x: x + paddle.rand([2, 3]) - paddle.rand([2, 3]))
    assert eliminate_common_subexpressions(main) == 0
    out = run(main, ["x"], main.fetch_names, [np.zeros((2, 3), "float32")], times=1)[0][0]
    assert np.any(out != 0)


def test_reads_of_a_mutated_array_do_not_merge():
    def fn(x):
        arr = create_array("float32")
        i = paddle.zeros([], "int64")
        arr = array_write(x, i, arr)
        first = array_read(arr, i)
        arr = array_write(x * 2.0, i, arr)
        return first + array_read(arr, i)
    main = build_program(fn)
    eliminate_common_subexpressions(main)
    reads = [op for op in main.global_block().ops if op.type == "array_read"]
    assert len(reads) == 2
    x = np.ones((2, 3), "float32")
    np.testing.assert_array_equal(run(main, ["x"], main.fetch_names, [x])[0][0], x * 3)
