"""Audit round 6, calls: *args/**kwargs forwarding and keyword-only arguments, decorators
(functools.wraps, lru_cache, counting wrappers), properties, static and class methods,
super().forward, recursion with a Python depth, global/nonlocal writes in nested functions
(tools/audit_cases.py)."""
import functools

import dy2st as paddle
from tools.audit_cases_layers import BUILT, built
from tools.audit_cases_python import FG_SAVE, XS, C

nn = paddle.nn


# ====================================================== arguments and decorators (group 42)
def _kw_only(t, *, scale=2.0, shift=None):
    if shift is not None:
        t = t + shift
    if t.sum() > 0:
        return t * scale
    return t


def keyword_only_arguments(x):
    return _kw_only(x, shift=x[0]) + _kw_only(x, scale=-1.0)


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        return fn(*a, **k) * 2.0
    return wrapper


@doubled
def _branchy(t, k=1.0):
    if t.sum() > 0:
        return t * k
    return t - k


def decorated_helper_with_tensor_if(x):
    return _branchy(x, k=3.0)


@doubled
def decorated_top_level(x):
    if x.mean() > 0:
        return x + 1.0
    return x - 1.0


@functools.lru_cache(maxsize=None)
def _positions(n):
    return paddle.arange(n, dtype="float32")


def lru_cached_tensor_helper(x):
    return x * _positions(x.shape[1]).unsqueeze(0)


@functools.lru_cache(maxsize=None)
def _weights_for(n):
    return [1.0 / (i + 1) for i in range(n)]


def lru_cached_python_helper(x):
    ws = _weights_for(x.shape[0])
    out = x[0] * 0.0
    for w, r in zip(ws, x):
        out = out + r * w
    return out


def _clear_lru(k):
    _positions.cache_clear()
    _weights_for.cache_clear()


def _inner_args(t, *rest, **opts):
    y = t
    for r in rest:
        y = y + r
    if opts.get("neg") and y.sum() > 0:
        y = -y
    return y * opts.get("k", 1.0)


def _middle_args(*args, **kwargs):
    return _inner_args(*args, **kwargs)


def args_kwargs_two_levels(x):
    return _middle_args(x, x * 2.0, neg=True, k=0.5) + _middle_args(x)


def counted(fn):
    calls = [0]

    @functools.wraps(fn)
    def wrapper(*a):
        calls[0] += 1
        return fn(*a) + float(calls[0])
    wrapper.calls = calls
    return wrapper


@counted
def _counted_helper(t):
    return t * 2.0


def counting_decorator_side_effect(x):
    return _counted_helper(x)


def _reset_counted(k):
    _counted_helper.calls[0] = k


def lambda_default_captures_tensor(x):
    f = lambda t, w=x[0]: t * w  # noqa: E731 - the form under test
    return f(x) + f(x, x[-1])


def kwargs_dict_with_tensor_values(x):
    opts = {"shift": x.mean(), "scale": 0.5}
    return _kw_only(x, **opts)


# ====================================================== classes (group 43)
class SuperForwardLoop(nn.Linear):
    def __init__(self):
        super().__init__(3, 3)

    def forward(self, x):
        y = super().forward(x)
        out = y[0] * 0.0
        for r in y:
            if r.sum() > 0:
                out = out + r
        return out


class PropertyWeight(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.scale = 1.0

    @property
    def w(self):
        return self.lin.weight * self.scale

    def forward(self, x):
        return paddle.matmul(x, self.w)


def _scale_between(k):
    BUILT[-1].scale = [1.0, 2.0, -1.0, 0.5, 1.0][k]


class ClassMethodConfig(nn.Layer):
    K = 1.0

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    @classmethod
    def factor(cls):
        return cls.K * 2.0

    @staticmethod
    def squash(t):
        while t.abs().max() > 1.0:
            t = t * 0.5
        return t

    def forward(self, x):
        return self.squash(self.lin(x)) * self.factor()


def _k_between(k):
    ClassMethodConfig.K = [1.0, 3.0, -1.0, 0.5, 1.0][k]


class DispatchByName(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.mode = "up"

    def up(self, t):
        return t * 2.0

    def down(self, t):
        if t.sum() > 0:
            return t - 1.0
        return t

    def forward(self, x):
        return getattr(self, self.mode)(self.lin(x))


def _mode_between(k):
    BUILT[-1].mode = ["up", "down", "up", "down", "down"][k]


class AttrHolder:
    def __init__(self, **kw):
        self._d = kw

    def __getattr__(self, name):
        try:
            return self.__dict__["_d"][name]
        except KeyError:
            raise AttributeError(name) from None


HOLD = AttrHolder(scale=2.0, bias=0.5)


def getattr_hook_object(x):
    y = x * HOLD.scale
    if y.sum() > 0:
        y = y + HOLD.bias
    return y


def _hold_between(k):
    HOLD._d["scale"] = [2.0, -1.0, 0.5, 3.0, 1.0][k]


class Base(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        y = self.lin(x)
        if y.mean() > 0:
            return y
        return -y


class Child(Base):
    def forward(self, x):
        y = super().forward(x)
        for _ in range(2):
            y = super().forward(y)
        return y


# ====================================================== recursion (group 44)
def _rec_depth(t, d):
    if d == 0:
        return t
    if t.sum() > 0:
        return _rec_depth(t * 0.5, d - 1) + 1.0
    return _rec_depth(t + 1.0, d - 1)


def recursion_python_depth_tensor_if(x):
    return _rec_depth(x, 3)


def _is_even(t, n):
    return t if n == 0 else _is_odd(t * 2.0, n - 1)


def _is_odd(t, n):
    return -t if n == 0 else _is_even(t + 1.0, n - 1)


def mutual_recursion(x):
    return _is_even(x, 3) + _is_odd(x, 2)


def _tree_sum(node):
    if isinstance(node, (list, tuple)):
        total = None
        for c in node:
            v = _tree_sum(c)
            total = v if total is None else total + v
        return total
    return node * 1.0


def recursion_over_nested_lists(x):
    return _tree_sum([x[0], [x[-1] * 2.0, [x[0] - 1.0]], (x[-1],)])


DEPTH = [2]


def _depth_between(k):
    DEPTH[0] = [2, 0, 3, 1, 2][k]


def recursion_depth_from_global(x):
    return _rec_depth(x, DEPTH[0])


def _rec_early(t, d):
    if d == 0 or t.sum() > 5.0:
        return t
    return _rec_early(t * 1.5 + 0.5, d - 1)


def recursion_stops_on_tensor(x):
    return _rec_early(x, 4)


def _fib(n, memo):
    if n < 2:
        return n
    if n not in memo:
        memo[n] = _fib(n - 1, memo) + _fib(n - 2, memo)
    return memo[n]


def memoized_recursion_python(x):
    return x * float(_fib(x.shape[0] + 3, {}))


# ====================================================== global / nonlocal (group 45)
def nonlocal_counter_under_tensor_if(x):
    n = 0

    def bump(t):
        nonlocal n
        n += 1
        return t * 2.0
    y = x
    if x.sum() > 0:
        y = bump(y)
    y = bump(y)
    return y * float(n)


def nonlocal_tensor_in_loop(x):
    total = x[0] * 0.0

    def add(r):
        nonlocal total
        total = total + r
    for r in x:
        add(r)
    return total


G6 = None


def global_tensor_written_in_nested(x):
    def keep(t):
        global G6
        G6 = t * 2.0
    keep(x[0])
    return x + G6


def nonlocal_two_levels(x):
    acc = x[0] * 0.0

    def outer(t):
        def inner(r):
            nonlocal acc
            acc = acc + r
        for r in t:
            inner(r)
    outer(x)
    return acc


CALLS = [0]


def _calls_between(k):
    CALLS[0] = k


def _counted_global(t):
    CALLS[0] += 1
    return t * float(CALLS[0])


def global_counter_in_helper(x):
    if x.sum() > 0:
        return _counted_global(x)
    return x


def closure_sees_rebind_under_tensor_if(x):
    k = x * 1.0

    def scale(t):
        return t * k
    if x.sum() > 0:
        k = x * 2.0
    return scale(x)


def nonlocal_python_flag_in_loop(x):
    seen = False

    def mark():
        nonlocal seen
        seen = True
    for r in x:
        if r.sum() > 1.0:
            mark()
    return x * (2.0 if seen else 1.0)


CASES = [
    C(42, keyword_only_arguments), C(42, decorated_helper_with_tensor_if),
    C(42, decorated_top_level),
    C(42, lru_cached_tensor_helper, between=_clear_lru),
    C(42, lru_cached_python_helper, between=_clear_lru, refusal_ok=("saved",)),
    C(42, args_kwargs_two_levels),
    C(42, counting_decorator_side_effect, between=_reset_counted, save=False),
    C(42, lambda_default_captures_tensor), C(42, kwargs_dict_with_tensor_values),
    C(43, built(SuperForwardLoop), XS, layer=True, refusal_ok=("saved",)),
    C(43, built(PropertyWeight), XS, layer=True, between=_scale_between, save=False),
    C(43, built(ClassMethodConfig), XS, layer=True, between=_k_between, save=False),
    C(43, built(DispatchByName), XS, layer=True, between=_mode_between, save=False),
    C(43, getattr_hook_object, between=_hold_between, save=False),
    C(43, built(Child), XS, layer=True),
    C(44, recursion_python_depth_tensor_if), C(44, mutual_recursion),
    C(44, recursion_over_nested_lists),
    C(44, recursion_depth_from_global, between=_depth_between, save=False),
    C(44, recursion_stops_on_tensor), C(44, memoized_recursion_python, refusal_ok=("saved",)),
    C(45, nonlocal_counter_under_tensor_if, refusal_ok=FG_SAVE),
    C(45, nonlocal_tensor_in_loop, refusal_ok=("saved",)),
    C(45, global_tensor_written_in_nested, refusal_ok=FG_SAVE),
    C(45, nonlocal_two_levels, refusal_ok=("saved",)),
    C(45, global_counter_in_helper, between=_calls_between, save=False, refusal_ok=FG_SAVE),
    C(45, closure_sees_rebind_under_tensor_if),
    C(45, nonlocal_python_flag_in_loop, refusal_ok=FG_SAVE),
]
