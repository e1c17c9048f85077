"""call pass: user functions, methods, Layers, lambdas, closures, nested defs, other modules,
recursion, super().forward and decorated functions are converted; library calls are not."""
import functools
import importlib
import sys
import textwrap

import numpy as np
import pytest

import dy2st as paddle


def helper(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


def calls_helper(x):
    return helper(x) + helper(-x)


class Model:
    def __init__(self, k):
        self.k = k

    def scale(self, x):
        if x.mean() > 0:
            return x * self.k
        return x

    def run(self, x):
        return self.scale(x) + 1


def calls_method(x, model):
    return model.run(x)


class Inner(paddle.nn.Layer):
    def forward(self, x):
        if x.sum() > 0:
            x = x + 10
        return x


class Outer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        y = self.inner(x)
        return y * 2


class Base(paddle.nn.Layer):
    def forward(self, x):
        if x.mean() > 0:
            return x + 1
        return x - 1


class Derived(Base):
    def forward(self, x):
        y = super().forward(x)
        return y * 3


def uses_lambda(x):
    f = lambda v: v * 2 if v.sum() > 0 else v * -1  # noqa: E731
    return f(x) + f(-x)


def make_closure(k):
    def closure(x):
        if x.sum() > 0:
            return x * k
        return x
    return closure


def nested_def(x):
    def inner(v):
        if v.sum() > 0:
            return v + 100
        return v
    return inner(x) + inner(x * 0 - 1)


def recursive(x, depth):
    if depth == 0:
        return x
    if x.sum() > 0:
        y = x + 1
    else:
        y = x - 1
    return recursive(y, depth - 1)


def twice(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) * 2
    return wrapper


@twice
def decorated(x):
    if x.sum() > 0:
        return x + 1
    return x


def calls_decorated(x):
    return decorated(x) + 1


@paddle.jit.not_to_static
def eager_only(x):
    return x * 3


def calls_not_to_static(x):
    return eager_only(x)


def calls_builtins(x):
    n = max(2, 3)
    return x * n + np.float32(abs(-1))


X = np.array([1.0, 2.0, 3.0], np.float32)


def test_user_helper(check):
    sf = check(calls_helper, X, -X)
    assert "_jst.Call(helper)(x)" in sf.code
    assert "cond(" in str(sf.program)     # the helper's `if` became a cond op


def test_method_calls(check):
    m = Model(5.0)
    sf = check(calls_method, (X, m), (-X, m))
    assert "cond(" in str(sf.program)


def test_sub_layer(assert_same):
    for data in (X, -X * 100):
        layer = Outer()
        eager = layer(paddle.to_tensor(data))
        static_layer = paddle.jit.to_static(layer)
        assert_same(eager, static_layer(paddle.to_tensor(data)))
        assert "cond(" in str(static_layer.forward.program)


def test_super_forward(assert_same):
    layer = Derived()
    slayer = paddle.jit.to_static(Derived())
    for data in (X, -X):
        assert_same(layer(paddle.to_tensor(data)), slayer(paddle.to_tensor(data)))
    assert "cond(" in str(slayer.forward.program)


def test_lambda(check):
    sf = check(uses_lambda, X, -X)
    assert "cond(" in str(sf.program)


def test_closure(check):
    for k in (2.0, -3.0):
        sf = check(make_closure(k), X, -X)
        assert "cond(" in str(sf.program)


def test_nested_def(check):
    check(nested_def, X, -X)


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_recursion(check, depth):
    check(recursive, (X, depth), (-X * 0.1, depth))


def test_functools_wraps_decorated(check):
    sf = check(calls_decorated, X, -X)
    assert "cond(" in str(sf.program)
    sf2 = check(decorated, X, -X)
    assert "cond(" in str(sf2.program)


def test_not_to_static_called_as_is(check):
    check(calls_not_to_static, X)
    from dy2st.jit.convert_call import convert_call
    assert convert_call(eager_only) is eager_only


def test_library_functions_not_converted(check):
    from dy2st.jit.convert_call import convert_call
    check(calls_builtins, X)
    for fn in (np.sum, functools.reduce, paddle.add, textwrap.dedent):
        assert convert_call(fn) is fn
    # builtins that list a dict's keys pass through a check of flagged keys (jst/loop_dicts.py)
    for fn in (max, sorted, zip):
        assert convert_call(fn).__wrapped__ is fn and convert_call(fn) is convert_call(fn)
    assert convert_call(max)(3, 5) == 5 and convert_call(sorted)({"b": 1, "a": 2}) == ["a", "b"]


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    src = textwrap.dedent('''
        import dy2st as paddle

        def other(x):
            if x.sum() > 0:
                y = x * 4
            else:
                y = x * -4
            return y
    ''')
    (tmp_path / "my_user_helpers.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("my_user_helpers", None)
    mod = importlib.import_module("my_user_helpers")
    yield mod
    sys.modules.pop("my_user_helpers", None)


def test_function_from_other_user_module(check, user_module):
    def uses_other(x):   # a local function of this file that reads from the other module
        return user_module.other(x) + 1
    sf = check(uses_other, X, -X)
    assert "cond(" in str(sf.program)


def test_ignore_module_calls_as_is(user_module):
    from dy2st.jit.convert_call import convert_call
    from dy2st.jit.options import options
    saved = set(options.ignored_modules)
    try:
        assert convert_call(user_module.other) is not user_module.other
        paddle.jit.ignore_module([user_module])
        assert convert_call(user_module.other) is user_module.other
    finally:
        options.ignored_modules = saved
