"""convert_call: which callables are converted and which are called as they are."""
import functools
import json
import math
import types

import numpy as np

import dy2st as paddle
from dy2st.jit.convert_call import convert_call
from dy2st.jit.options import options


def user_fn(x):
    if x.sum() > 0:
        return x
    return -x


class Thing:
    def method(self, x):
        return x * 2


class Lay(paddle.nn.Layer):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x


@paddle.jit.not_to_static
def skipped(x):
    return x


def gen(x):
    yield x


def test_user_function_is_converted_and_cached():
    c = convert_call(user_fn)
    assert c is not user_fn
    assert isinstance(c, types.FunctionType) and c.__name__ == "user_fn"
    assert c.__code__.co_filename.startswith("<dy2st ")
    assert convert_call(user_fn).__code__ is c.__code__        # by code object


def test_bound_method_is_converted_and_stays_bound():
    t = Thing()
    c = convert_call(t.method)
    assert isinstance(c, types.MethodType) and c.__self__ is t
    assert c.__func__ is not Thing.method
    x = paddle.to_tensor(np.array([1.0], np.float32))
    np.testing.assert_allclose(c(x).numpy(), [2.0])


def test_layer_call_goes_through_converted_forward():
    layer = Lay()
    assert convert_call(layer) is layer      # Layer.__call__ converts forward while tracing
    x = np.array([1.0, 2.0], np.float32)
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xs = paddle.static.data("x", [2], "float32")
        out = layer(xs)
    got = paddle.static.Executor().run(main, feed={"x": x}, fetch_list=[out])[0]
    np.testing.assert_allclose(got, layer(paddle.to_tensor(x)).numpy())
    assert "forward" not in layer.__dict__          # nothing is left on the instance


def test_left_alone():
    for fn in (len, print, math.sqrt, json.dumps, np.sum, np.ndarray, functools.partial,
               paddle.add, paddle.nn.functional.relu, skipped, gen, int, Thing):
        assert convert_call(fn) is fn, fn


def test_ignore_module_by_name():
    saved = set(options.ignored_modules)
    try:
        paddle.jit.ignore_module([user_fn.__module__])
        assert convert_call(user_fn) is user_fn
    finally:
        options.ignored_modules = saved
    assert convert_call(user_fn) is not user_fn


def test_ignore_module_after_a_first_conversion_and_back():
    # what convert_call remembers per function must not outlive the options it depended on
    assert convert_call(user_fn) is not user_fn
    saved = set(options.ignored_modules)
    try:
        paddle.jit.ignore_module([user_fn.__module__])
        assert convert_call(user_fn) is user_fn
    finally:
        options.ignored_modules = saved
    assert convert_call(user_fn) is not user_fn


def test_left_alone_twice_and_after_reset():
    for _ in range(2):
        assert convert_call(paddle.add) is paddle.add
    options.always_skipped.clear()
    assert convert_call(paddle.add) is paddle.add


def test_function_without_source_called_as_is_from_converted_code():
    ns = {}
    exec("def made(x):\n    return x * 3\n", ns)
    assert convert_call(ns["made"]) is ns["made"]


def calls_exec_made(x, fn):
    return fn(x) + 1


def test_sourceless_helper_still_runs_in_static_mode():
    ns = {}
    exec("def made(x):\n    return x * 3\n", ns)
    sf = paddle.jit.to_static(calls_exec_made)
    out = sf(paddle.to_tensor(np.array([1.0], np.float32)), ns["made"])
    np.testing.assert_allclose(out.numpy(), [4.0])


def test_static_function_is_inlined():
    sf = paddle.jit.to_static(user_fn)
    c = convert_call(sf)
    assert isinstance(c, types.FunctionType) and c.__code__.co_filename.startswith("<dy2st ")


ACT = lambda x: x * 2 if x.sum() > 0 else x - 1  # noqa: E731 - a lambda defined outside


def _scale(x, k):
    if x.mean() > 0:
        return x * k
    return x


HALF = functools.partial(_scale, k=0.5)


def uses_outside_lambda_and_partial(x):
    return ACT(x) + HALF(x)


def test_lambdas_and_partials_defined_outside_are_converted():
    sf = paddle.jit.to_static(uses_outside_lambda_and_partial)
    for v in (1.0, -1.0):
        x = paddle.to_tensor(np.full(2, v, np.float32))
        np.testing.assert_allclose(sf(x).numpy(), uses_outside_lambda_and_partial(x).numpy())
    assert sf.num_programs == 1
    assert "cond" in str(sf.program)
