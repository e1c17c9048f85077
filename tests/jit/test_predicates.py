"""Tensor predicates with several elements (issue 13): Python raises only on the paths that test
their truth, so the converted program raises there, when it runs, at the user's line; a
one-element predicate of any rank is an ordinary predicate."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.support import check_user_error, three_modes

SPEC = [[None, 3]]


def ambiguous_helper(x):
    if x[0] > 0:                          # several elements: fails when tested
        return x + 1.0
    return x


def nested_if(x):
    if x.sum() > 100:
        if x[0] > 0:                      # nested
            x = x + 1.0
    return x * 2.0


def elif_chain(x):
    if x.sum() > 100:
        x = x + 1.0
    elif x.sum() < -100:
        x = ambiguous_helper(x)
    elif x[0] > 0:                        # third test of the chain
        x = x * 3.0
    return x - 1.0


def while_condition(x):
    if x.sum() > 100:
        while x[0] > 0:
            x = x - 1.0
    return x + 0.5


def while_body(x):
    while x.sum() > 100:
        if x[0] > 0:                      # in a while body
            x = x - 1.0
    return x + 0.25


def and_right(x):
    if x.sum() > 100 and x[0] > 0:
        x = x + 1.0
    return x


def or_right(x):
    if x.sum() < 100 or x[0] > 0:
        x = x + 1.0
    return x


def not_operand(x):
    if x.sum() > 100:
        if not x[0] > 0:
            x = x + 1.0
    return x


def and_left(x):
    if x.sum() > 100:
        x = x * 2.0 if x[0] > 0 and x.sum() > 0 else x
    return x


def one_element_predicates(x):
    if x[0:1, 0] > 0:                     # shape [1]
        x = x + 1.0
    if x[0:1, 0:1] > 1:                   # shape [1, 1]
        x = x * 2.0
    while x[0:1, 0:1].sum(axis=1) < 5:    # shape [1] as a while condition
        x = x + 1.0
    return x


SAFE = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], "float32")         # sum 7.5
BIG = np.full([2, 3], 30.0, "float32")                                 # sum 180
SMALL = np.full([2, 3], -30.0, "float32")                              # sum -180
HELPER_LINE = "if x[0] > 0:                          # several elements"

# (function, an input on which eager never tests the ambiguous predicate, one on which it does,
#  the user line that fails)
CASES = [
    (nested_if, SAFE, BIG, "if x[0] > 0:                      # nested"),
    (elif_chain, BIG, SMALL, HELPER_LINE),
    (while_condition, SAFE, BIG, "while x[0] > 0:"),
    (while_body, SAFE, BIG, "if x[0] > 0:                      # in a while body"),
    (elif_chain, BIG, SAFE, "elif x[0] > 0:                        # third test"),
    (and_right, SAFE, BIG, "if x.sum() > 100 and x[0] > 0:"),
    (or_right, SAFE, BIG, "if x.sum() < 100 or x[0] > 0:"),
    (not_operand, SAFE, BIG, "if not x[0] > 0:"),
    (and_left, SAFE, BIG, "x = x * 2.0 if x[0] > 0 and x.sum() > 0 else x"),
]
IDS = [c[0].__name__ for c in CASES]


@pytest.mark.parametrize("fn,safe,_raising,_line", CASES, ids=IDS)
def test_untaken_ambiguous_predicate_converts_and_saves(fn, safe, _raising, _line, tmp_path):
    eager, static, loaded = three_modes(fn, [safe], SPEC, tmp_path)
    np.testing.assert_allclose(static[0], eager[0], rtol=1e-6)
    np.testing.assert_allclose(loaded[0], eager[0], rtol=1e-6)


@pytest.mark.parametrize("fn,_safe,raising,line", CASES, ids=IDS)
def test_taken_ambiguous_predicate_raises_at_the_users_line(fn, _safe, raising, line, tmp_path):
    x = paddle.to_tensor(raising)
    with pytest.raises(ValueError, match="ambiguous"):
        fn(x)
    static_fn = paddle.jit.to_static(fn, input_spec=[InputSpec([None, 3], "float32")],
                                     full_graph=True)
    with pytest.raises(ValueError, match="ambiguous") as info:
        static_fn(x)
    check_user_error(info.value, __file__, line)
    path = str(tmp_path / "m")
    paddle.jit.save(static_fn, path)
    with pytest.raises(ValueError, match="ambiguous"):
        paddle.jit.load(path)(x)


def test_not_of_an_ambiguous_value_outside_an_if_raises_when_reached():
    def f(x):
        if x.sum() > 100:
            x = x * 0.0 + float(not x[0] > 0)
        return x
    g = paddle.jit.to_static(f, full_graph=True)
    np.testing.assert_allclose(g(paddle.to_tensor(SAFE)).numpy(), SAFE)
    with pytest.raises(ValueError, match="ambiguous"):
        g(paddle.to_tensor(BIG))


@pytest.mark.parametrize("shift", [-3.0, 0.5, 4.0])
def test_one_element_predicates_of_rank_one_and_two(shift, tmp_path):
    x = SAFE + shift
    eager, static, loaded = three_modes(one_element_predicates, [x], SPEC, tmp_path)
    np.testing.assert_allclose(static[0], eager[0], rtol=1e-6)
    np.testing.assert_allclose(loaded[0], eager[0], rtol=1e-6)
