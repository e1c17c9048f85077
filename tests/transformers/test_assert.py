"""assert pass: a tensor assert is a run-time check whose failure names the user's line."""
import inspect
import os

import numpy as np
import pytest

import dy2st as paddle
from tests.support import code_text

MESSAGES = []


def msg(text):
    MESSAGES.append(text)
    return text


def assert_positive(x):
    y = x * 2
    assert y.sum() > 0, "sum must be positive"
    return y


def assert_lazy_message(x):
    assert x.min() > -100, msg("too small")
    return x + 1


def assert_python(x, n):
    assert n > 0, "n must be positive"
    return x * n


def assert_no_message(x):
    assert paddle.all(x >= 0)
    return x


X = np.array([1.0, 2.0], np.float32)


def line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, ln in enumerate(lines) if text in ln)


def test_tensor_assert_passes_and_fails_at_run_time():
    sf = paddle.jit.to_static(assert_positive)
    out = sf(paddle.to_tensor(X))                 # traced with a passing input: no error at build
    np.testing.assert_allclose(out.numpy(), X * 2)
    assert "assert" in str(sf.program)
    with pytest.raises(AssertionError) as info:
        sf(paddle.to_tensor(-X))                  # same program, fails when it runs
    assert sf.num_programs == 1
    text = str(info.value)
    assert "sum must be positive" in text
    assert "In user code:" in text
    assert os.path.basename(__file__) in text
    assert f"line {line_of(assert_positive, 'assert y.sum')}" in text
    assert 'assert y.sum() > 0, "sum must be positive"' in text


def test_first_trace_with_failing_input_raises_at_run_not_build():
    sf = paddle.jit.to_static(assert_positive)
    with pytest.raises(AssertionError):
        sf(paddle.to_tensor(-X))
    assert sf.num_programs == 1                   # the build succeeded; the run failed
    np.testing.assert_allclose(sf(paddle.to_tensor(X)).numpy(), X * 2)


def test_message_not_evaluated_when_python_assert_passes():
    MESSAGES.clear()
    sf = paddle.jit.to_static(assert_python)
    sf(paddle.to_tensor(X), 2)
    assert MESSAGES == []
    with pytest.raises(AssertionError, match="n must be positive"):
        sf(paddle.to_tensor(X), 0)


def test_tensor_assert_without_message():
    sf = paddle.jit.to_static(assert_no_message)
    np.testing.assert_allclose(sf(paddle.to_tensor(X)).numpy(), X)
    with pytest.raises(AssertionError) as info:
        sf(paddle.to_tensor(np.array([1.0, -1.0], np.float32)))
    assert f"line {line_of(assert_no_message, 'assert paddle.all')}" in str(info.value)


def test_code_uses_assert_helper():
    code = paddle.jit.to_static(assert_lazy_message).code
    assert "_jst.Assert(" in code and "lambda:" in code_text(code)
    assert "assert " not in code
