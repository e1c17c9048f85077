"""Common-subexpression elimination keeps results identical and never merges random, effectful
or array-reading ops."""
import numpy as np
from random_programs import build_program, check_pass, run

import dy2st as paddle
from dy2st.runtime.passes.cse import eliminate_common_subexpressions
from dy2st.runtime.registry import apply
from dy2st.tensor import array_read, array_write, create_array


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


def test_a_merge_makes_later_ops_equal_and_they_merge_too():
    main = build_program(lambda x: paddle.exp(paddle.tanh(x)) * paddle.exp(paddle.tanh(x)))
    assert eliminate_common_subexpressions(main) == 2
    assert [op.type for op in main.global_block().ops] == ["tanh", "exp", "multiply"]


def _full(attrs):
    return apply("full", [], attrs)


def test_attrs_compare_by_value_not_by_order_and_zero_signs_differ():
    def fn(x):
        a = _full({"shape": [2, 3], "value": 0.5, "dtype": "float32"})
        b = _full({"dtype": "float32", "value": 0.5, "shape": [2, 3]})     # same attrs, other order
        c = _full({"shape": [2, 3], "value": 0.0, "dtype": "float32"})
        d = _full({"shape": [2, 3], "value": -0.0, "dtype": "float32"})   # -0.0 is not 0.0
        e = _full({"shape": [2, 3], "value": 0.0, "dtype": "float32"})
        return x + a + b + c / d + e
    main = build_program(fn)
    assert eliminate_common_subexpressions(main) == 2
    assert [op.type for op in main.global_block().ops].count("full") == 3


def test_many_ops_with_the_same_inputs_and_different_attrs_do_not_merge():
    main = build_program(lambda x: sum(x[i] for i in range(2)) + x[0])
    assert eliminate_common_subexpressions(main) == 1
    assert [op.type for op in main.global_block().ops].count("getitem") == 2


def test_pairwise_attr_comparison_agrees_with_attr_keys():
    from dy2st.runtime.passes.cse import attr_key, same_attr_value
    values = [0, 1, True, 1.0, 0.0, -0.0, float("nan"), "a", None, [1, 2], (1, 2), [1.0, 2],
              {"k": "int", "v": 3}, {"k": "int", "v": 4}, {"v": 3, "k": "int"},
              {"shape": [2, 3], "value": -0.0}, {"shape": [2, 3], "value": 0.0}]
    for a in values:
        for b in values:
            assert same_attr_value(a, b) == (attr_key(a) == attr_key(b)), (a, b)
