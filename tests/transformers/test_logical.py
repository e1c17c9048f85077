"""logical pass: and / or / not with tensors and Python values, Python short-circuit kept."""
import numpy as np

from tests.support import code_text

CALLS = []


def record(v):
    CALLS.append(v)
    return v


def tensor_and(x):
    if (x.sum() > 0) and (x.max() < 5):
        return x + 1
    return x - 1


def tensor_or_not(x):
    if not (x.sum() > 0) or x.min() > 2:
        y = x * 2
    else:
        y = x * 3
    return y


def python_and_short_circuit(x, a):
    if a and record(a) > 1:
        x = x + 1
    return x


def python_or_short_circuit(x, a):
    if a or record(a):
        x = x + 1
    return x


def none_guard(x, d):
    # the right side would raise on d=None if it were evaluated
    if d is not None and d["scale"] > 1:
        x = x * d["scale"]
    return x


def mixed_tensor_python(x, flag):
    c = flag and (x.sum() > 0)
    if c:
        return x + 1
    return x


def value_of_or(x, k):
    return x * (k or 3)


def not_python(x, flag):
    if not flag:
        return x * 5
    return x


def chained(x):
    if x.sum() > 0 and x.min() > 0 and x.max() < 10:
        return x * 10
    return x


X = np.array([1.0, 2.0, 3.0], np.float32)


def test_tensor_and(check):
    sf = check(tensor_and, X, -X, X * 10)
    assert "_jst.And(lambda:" in code_text(sf.code)
    assert "logical_and" in str(sf.program)


def test_tensor_or_not(check):
    sf = check(tensor_or_not, X, -X, X + 5)
    assert "logical_not" in str(sf.program) and "logical_or" in str(sf.program)


def test_and_short_circuit_python_operands(check):
    CALLS.clear()
    check(python_and_short_circuit, (X, 0), (X, 0))
    assert CALLS == []                       # right side never evaluated (eager nor static)
    check(python_and_short_circuit, (X, 2))
    assert CALLS == [2, 2]


def test_or_short_circuit_python_operands(check):
    CALLS.clear()
    check(python_or_short_circuit, (X, 5))
    assert CALLS == []
    check(python_or_short_circuit, (X, 0))
    assert CALLS == [0, 0]


def test_none_guard_not_evaluated(check):
    check(none_guard, (X, None), (X, {"scale": 3.0}), (X, {"scale": 0.5}))


def test_mixed_tensor_and_python(check):
    check(mixed_tensor_python, (X, True), (X, False), (-X, True))


def test_or_returns_operand_value(check):
    check(value_of_or, (X, 0), (X, 2))


def test_not_on_python_value(check):
    sf = check(not_python, (X, True), (X, False))
    assert "logical_not" not in str(sf.program)


def test_chained_and(check):
    check(chained, X, -X, X * 4, X * 0.1)
