"""Scenarios: closures, lambdas, recursion, default / keyword / *args / **kwargs parameters,
functions returning None on some paths, nested defs with nonlocal in Python loops."""
import numpy as np
import pytest

import dy2st as paddle


def _i(v):
    return np.array(v, dtype="int64")


def clip_helper(t, lo=-1.0, hi=1.0, *, scale=1.0):
    if t.max() > hi:
        t = paddle.clip(t, max=hi)
    if t.min() < lo:
        t = paddle.clip(t, min=lo)
    return t * scale


def defaults_and_keywords(x):
    a = clip_helper(x)
    b = clip_helper(x, hi=0.5)
    c = clip_helper(x, -0.1, scale=2.0)
    return a + b + c


def test_helper_with_defaults_and_keyword_only(check, arr):
    check(defaults_and_keywords, (arr([2.0, -3.0, 0.2]),), (arr([0.1, 0.2]),))


def top_default_arg(x, factor=2.0, use_bias=True):
    y = x * factor
    if use_bias:
        y = y + 1.0
    if y.sum() > 0:
        y = y * 0.5
    return y


def test_default_args_of_converted_function(check, arr):
    check(top_default_arg, (arr([1.0]),), (arr([1.0]), 3.0), (arr([-1.0]), 2.0, False))


def test_keyword_call_of_static_function(arr):
    sf = paddle.jit.to_static(top_default_arg)
    x = arr([1.0, -3.0])
    got = sf(paddle.to_tensor(x), use_bias=False, factor=4.0)
    want = top_default_arg(paddle.to_tensor(x), use_bias=False, factor=4.0)
    np.testing.assert_allclose(got.numpy(), want.numpy())


def star_args_sum(*tensors, weight=1.0):
    total = tensors[0] * 0.0
    for t in tensors:
        if t.sum() > 0:
            total = total + t * weight
    return total


def calls_star_args(x, y):
    return star_args_sum(x, y, x * y, weight=0.5)


def test_star_args_helper_with_tensor_if(check, arr):
    check(calls_star_args, (arr([1.0, 2.0]), arr([-3.0, 1.0])), (arr([-1.0, -2.0]), arr([3.0, 1.0])))


def kwargs_helper(x, **opts):
    out = x
    if opts.get("double", False):
        out = out * 2.0
    if "shift" in opts:
        out = out + opts["shift"]
    if out.mean() > 0:
        out = out - 1.0
    return out


def calls_kwargs(x):
    return kwargs_helper(x, double=True, shift=0.5) + kwargs_helper(x)


def test_kwargs_helper(check, arr):
    check(calls_kwargs, (arr([1.0]),), (arr([-2.0]),))


def star_args_top(x, *rest):
    out = x
    for r in rest:
        out = out + r
    if out.sum() > 0:
        return out
    return -out


def test_top_level_star_args(check, arr):
    check(star_args_top, (arr([1.0]), arr([2.0]), arr([3.0])), (arr([-1.0]),))


def kwargs_top(x, **kw):
    y = x * kw.get("scale", 1.0)
    if y.sum() > 0:
        y = y + 1.0
    return y


def test_top_level_kwargs(arr):
    sf = paddle.jit.to_static(kwargs_top)
    for s in (1.0, -2.0):
        x = paddle.to_tensor(arr([1.0, 2.0]))
        np.testing.assert_allclose(sf(x, scale=s).numpy(), kwargs_top(x, scale=s).numpy())


def splat_call(x, y):
    args = (x, y)
    kw = {"alpha": 0.5}
    return _blend(*args, **kw)


def _blend(a, b, alpha=0.1):
    if a.sum() > b.sum():
        return a * alpha + b
    return b * alpha + a


def test_call_with_splatted_args_and_kwargs(check, arr):
    check(splat_call, (arr([5.0]), arr([1.0])), (arr([1.0]), arr([5.0])))


# --- functions returning None on some paths ---------------------------------------------------

def maybe_scale(t, flag):
    if flag:
        return t * 2.0


def none_on_python_path(x, flag):
    r = maybe_scale(x, flag)
    if r is None:
        r = x
    return r


def test_helper_returns_none_on_python_path(check, arr):
    check(none_on_python_path, (arr([1.0]), True), (arr([1.0]), False))


def log_only(t):
    if t.sum() > 0:
        print("positive")


def calls_none_returning_helper_with_tensor_if(x):
    res = log_only(x)
    return x + 1.0, res


def test_helper_without_return_value_has_tensor_if(check, arr):
    check(calls_none_returning_helper_with_tensor_if, (arr([1.0]),), (arr([-1.0]),))


# --- closures and lambdas ---------------------------------------------------------------------

def make_scaler(k):
    def scaler(t):
        if t.mean() > 0:
            return t * k
        return t / k
    return scaler


def closure_factory(x):
    f2 = make_scaler(2.0)
    f3 = make_scaler(3.0)
    return f2(x) + f3(-x)


def test_closures_from_factory(check, arr):
    check(closure_factory, (arr([1.0, 2.0]),), (arr([-1.0, -2.0]),))


def lambda_in_loop(x, n):
    step = lambda t, k: t + k * 0.5  # noqa: E731
    for i in range(n):
        x = step(x, i)
    return x


@pytest.mark.parametrize("n", [0, 3])
def test_lambda_called_in_tensor_loop(check, arr, n):
    check(lambda_in_loop, (arr([1.0]), _i(n)))


def sorted_with_python_key_lambda(x):
    parts = [(3, x * 3.0), (1, x * 1.0), (2, x * 2.0)]
    ordered = sorted(parts, key=lambda p: p[0])
    return ordered[0][1] + ordered[-1][1]


def test_sorted_with_lambda_key_on_python_values(check, arr):
    check(sorted_with_python_key_lambda, (arr([1.0]),), (arr([-1.0]),))


def map_with_lambda(x):
    ys = list(map(lambda t: t * 2.0, [x, x + 1.0]))
    return ys[0] + ys[1]


def test_map_with_lambda(check, arr):
    check(map_with_lambda, (arr([1.0]),), (arr([-1.0]),))


def lambda_with_tensor_cond(x):
    pick = lambda t: t * 2.0 if t.sum() > 0 else t - 2.0  # noqa: E731
    return pick(x) + pick(-x)


def test_lambda_body_with_tensor_conditional(check, arr):
    check(lambda_with_tensor_cond, (arr([1.0]),), (arr([-1.0, 0.5]),))


# --- nonlocal in python loops -----------------------------------------------------------------

def nonlocal_counter(x):
    count = 0
    acc = x * 0.0

    def bump(t):
        nonlocal count, acc
        count += 1
        acc = acc + t

    for k in range(3):
        bump(x * k)
    return acc, count


def test_nonlocal_updated_in_python_loop(check, arr):
    check(nonlocal_counter, (arr([1.0, 2.0]),), (arr([-1.0]),))


def nonlocal_with_tensor_if_in_helper(x):
    total = paddle.zeros_like(x)

    def add(t):
        nonlocal total
        if t.sum() > 0:
            total = total + t
        else:
            total = total - t

    for k in range(-1, 2):
        add(x * k)
    return total


def test_nonlocal_assigned_in_tensor_if_of_helper(check, arr):
    check(nonlocal_with_tensor_if_in_helper, (arr([1.0, 2.0]),), (arr([-1.0]),))


def flag_set_by_closure_in_tensor_loop(x):
    seen = False
    hits = 0

    def mark():
        nonlocal seen, hits
        seen = True
        hits += 1
    for r in x:
        if r.sum() > 1.0:
            mark()
    return x * (2.0 if seen else 1.0) + hits


def test_nonlocal_written_by_a_closure_under_a_tensor_if_in_a_tensor_loop(check, arr):
    # audit round 6: the loop body's `if` (converted after the loop) did not carry the names
    # the closure writes, so the trace's `seen = True` held on every path (a silent x * 2)
    for full_graph in (True, False):
        check(flag_set_by_closure_in_tensor_loop, (arr([[1.0, 2.0], [0.0, 0.1]]),),
              (arr([[-1.0, 0.5], [0.2, 0.1]]),), (arr([[3.0, 1.0]]),), full_graph=full_graph)


def nonlocal_of_the_grandparent(x):
    acc = x[0] * 0.0

    def outer(t):
        def inner(r):
            nonlocal acc        # f's acc: outer itself does not bind it
            acc = acc + r
        for r in t:
            inner(r)
    outer(x)
    return acc


def test_a_nested_function_writing_its_grandparents_variable_in_a_loop(check, arr):
    # audit round 6: the loop in `outer` carries `acc`, and its helpers bound it to a new local
    # of `outer` (UndefinedVar) instead of f's variable: a false NameError
    for full_graph in (True, False):
        check(nonlocal_of_the_grandparent, (arr([[1.0, 2.0], [0.5, -1.0]]),),
              (arr([[3.0, 1.0]]),), full_graph=full_graph)


def nested_def_reads_loop_var(x):
    outs = []
    for k in range(3):
        def f(t, k=k):
            return t * (k + 1)
        outs.append(f(x))
    return paddle.stack(outs)


def test_nested_def_in_python_loop_default_binding(check, arr):
    check(nested_def_reads_loop_var, (arr([1.0, 2.0]),), (arr([3.0]),))


# --- recursion ------------------------------------------------------------------------------

def rec_pow(t, depth):
    if depth <= 0:
        return t
    if t.sum() > 100.0:
        return t
    return rec_pow(t * 2.0, depth - 1)


def recursion_with_tensor_stop(x, depth):
    return rec_pow(x, depth)


@pytest.mark.parametrize("depth", [0, 2, 10])
def test_recursion_python_depth_tensor_stop(check, arr, depth):
    check(recursion_with_tensor_stop, (arr([1.0, 2.0]), depth), (arr([60.0, 2.0]), depth))


def fib_like(t, n):
    if n < 2:
        return t
    return fib_like(t, n - 1) + fib_like(t * 0.5, n - 2)


def tree_recursion(x, n):
    return fib_like(x, n)


def test_tree_recursion_python_depth(check, arr):
    check(tree_recursion, (arr([1.0]), 4), (arr([2.0]), 0))


# --- plain class methods and functions passed around --------------------------------------

class Scaler:
    def __init__(self, k):
        self.k = k

    def __call__(self, t):
        if t.sum() > 0:
            return t * self.k
        return t

    def twice(self, t):
        return self(self(t))


def callable_object(x):
    s = Scaler(3.0)
    return s.twice(x)


def test_callable_object_with_tensor_if(check, arr):
    check(callable_object, (arr([1.0]),), (arr([-1.0]),))


def apply_all(fns, t):
    for f in fns:
        t = f(t)
    return t


def functions_in_list(x):
    return apply_all([paddle.tanh, lambda t: t * 2.0, paddle.nn.functional.relu], x)


def test_list_of_functions_applied(check, arr):
    check(functions_in_list, (arr([1.0, -1.0]),), (arr([0.1]),))


@paddle.jit.not_to_static
def _python_only(t):
    return t + 1.0


def not_to_static_helper(x):
    y = _python_only(x)
    if y.sum() > 0:
        y = y * 2.0
    return y


def test_not_to_static_helper(check, arr):
    check(not_to_static_helper, (arr([1.0]),), (arr([-5.0]),))


def decorated_inner(x):
    return _decorated_helper(x)


def _deco(fn):
    import functools

    @functools.wraps(fn)
    def wrapper(*a, **k):
        return fn(*a, **k) + 1.0
    return wrapper


@_deco
def _decorated_helper(t):
    if t.mean() > 0:
        return t * 2.0
    return t


def test_decorated_helper_with_tensor_if(check, arr):
    check(decorated_inner, (arr([1.0]),), (arr([-1.0]),))


def to_static_decorated_inner_call(x):
    return _inner_static(x) + 1.0


@paddle.jit.to_static
def _inner_static(t):
    if t.sum() > 0:
        return t - 1.0
    return t + 1.0


def test_calling_another_to_static_function(check, arr):
    check(to_static_decorated_inner_call, (arr([1.0]),), (arr([-1.0]),))
