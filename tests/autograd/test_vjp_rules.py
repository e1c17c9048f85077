"""Every op in the registry has a gradient rule or is marked as having none, and every rule is
checked against central finite differences in float64 (the case table is vjp_cases.py)."""
from typing import Set

import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd import GradientError
from dy2st.autograd.rules import NO_GRAD, RULES
from dy2st.runtime.registry import OPS, hooks
from tests.autograd.vjp_cases import (
    CASES,
    REFUSING,
    SECOND_ORDER,
    Case,
    cotangents,
    eager_grads,
    eager_tensors,
    loss_value,
)

# cond and while are differentiated by autograd/control_flow_grad.py when a Program is (eager code
# runs Python control flow and never records them).
CONTROL_FLOW = {"cond", "while"}

# Ops whose rules are checked by tests/autograd/test_array_rules.py (tensor arrays are Python
# lists eagerly, so the eager tape never records them).
ARRAY_OPS = {"array_write", "array_read", "array_stack", "array_concat", "array_pop",
             "array_slice", "array_join", "array_grad_read", "array_grad_put",
             "array_grad_clear", "array_grad_add", "array_grad_unstack",
             "array_grad_split", "array_grad_insert", "array_grad_unslice",
             "array_grad_head", "array_grad_tail"}
# The py_layer ops' rules call the user's backward; they only exist in traced programs (eagerly
# a PyLayer is one tape node), and tests/autograd/test_py_layer*.py check them under to_static.
# py_func exists in static programs only (tests/static/test_static_training_helpers.py).
TRACED_ONLY = {"py_layer", "py_layer_multi", "py_func"}


def check_eager(case: Case, seed: int = 0) -> None:
    """The eager gradient of sum(out * random cotangent) against central finite differences."""
    arrays = case.arrays(seed)
    cots = cotangents(case, arrays, seed + 1)
    for i, got in zip(case.diff, eager_grads(case, arrays, cots)):
        a = arrays[i]
        numeric = np.zeros_like(a)
        for k in range(a.size):
            plus, minus = list(arrays), list(arrays)
            plus[i], minus[i] = a.copy(), a.copy()
            plus[i].flat[k] += case.eps
            minus[i].flat[k] -= case.eps
            numeric.flat[k] = (loss_value(case, plus, cots)
                               - loss_value(case, minus, cots)) / (2 * case.eps)
        got = np.zeros_like(a) if got is None else got
        assert got.shape == a.shape, f"{case.name}: input {i} gradient shape {got.shape}"
        np.testing.assert_allclose(got, numeric, rtol=case.rtol, atol=case.atol,
                                   err_msg=f"{case.name}: gradient of input {i}")


def recorded_ops(case: Case) -> Set[str]:
    """The ops that the tape recorded while running the case (its inner gradients too)."""
    seen: Set[str] = set()
    original = hooks.record

    def spy(opdef, inputs, attrs, out):
        seen.add(opdef.name)
        original(opdef, inputs, attrs, out)
    hooks.record = spy
    try:
        paddle.seed(0)
        case.fn(*eager_tensors(case, case.arrays()))
    finally:
        hooks.record = original
    return seen


@pytest.mark.parametrize("case", CASES + SECOND_ORDER, ids=lambda c: c.name)
def test_vjp_matches_finite_differences(case):
    check_eager(case)


def test_case_names_are_unique():
    names = [c.name for c in CASES + SECOND_ORDER + list(REFUSING.values())]
    assert len(names) == len(set(names))


def test_every_op_has_a_rule_or_is_marked_no_grad():
    missing = sorted(set(OPS) - set(RULES) - NO_GRAD - CONTROL_FLOW)
    assert not missing, f"ops with neither a gradient rule nor mark_no_grad: {missing}"
    assert not set(RULES) & NO_GRAD


def test_every_rule_is_checked_by_a_case():
    covered: Set[str] = set(ARRAY_OPS) | set(REFUSING) | TRACED_ONLY
    for case in CASES + SECOND_ORDER:
        covered |= recorded_ops(case)
    unchecked = sorted(set(RULES) - covered)
    assert not unchecked, f"gradient rules that no case checks: {unchecked}"


@pytest.mark.parametrize("op", sorted(REFUSING))
def test_refusing_rules_raise_a_clear_error(op):
    case = REFUSING[op]
    with pytest.raises(GradientError, match="not supported"):
        check_eager(case)


def test_no_grad_ops_stop_gradients():
    x = paddle.to_tensor([1.0, -2.0, 3.0], stop_gradient=False)
    for out in (paddle.argmax(x), x > 0, paddle.argsort(x), paddle.shape(x)):
        assert out.stop_gradient and out._node is None
