"""Audit round 4, Python-language cases: try/except/finally, `with` and context managers of
the user's own, generators, *args/**kwargs, super() and mixins, properties and descriptors,
callable objects, class vs instance attributes, global/nonlocal, del (tools/audit_cases.py)."""
# ruff: noqa: B023 - closures read loop variables late on purpose where that is the case
import contextlib
import functools

import numpy as np

import dy2st as paddle
from tools.equivalence import Variant

RNG = np.random.default_rng(24)


def rows(n, shift=0.0, scale=1.0):
    return (RNG.standard_normal((n, 3)) * scale + shift).astype("float32")


# both signs of the sum, 1 to 4 rows (trip counts of a loop over rows)
XS = [(rows(2, 1.0),), (rows(3, -1.0),), (rows(1, 0.0, 0.5),), (rows(4, 0.5),), (rows(2, -2.0),)]
FG_SAVE = ("full_graph", "saved")
SAVE = ("saved",)    # a None batch dim: a clear refusal of a Python loop over rows is allowed


def C(group, fn, inputs=None, **kw):
    """A case named after fn; layer=True: fn builds the Layer."""
    if kw.pop("layer", False):
        return Variant(group, fn.__name__, layer=fn, inputs=inputs or XS, **kw)
    return Variant(group, fn.__name__, fn=fn, inputs=inputs or XS, **kw)


# ====================================================== try / except / finally
def try_finally_rebinds(x):
    try:
        y = x * 2.0
    finally:
        y = y + 1.0
    return y


def _raise_if_positive(t):
    if t.sum() > 0:
        raise ValueError("positive")
    return t * 3.0


def try_except_raise_under_tensor_if(x):
    try:
        y = _raise_if_positive(x)
    except ValueError:
        y = x - 1.0
    return y


def try_except_else_finally(x):
    out = []
    try:
        y = x * 2.0
    except ZeroDivisionError:
        y = x
    else:
        out.append(y.sum())
    finally:
        out.append(y.mean())
    return y + out[0] * out[-1]


def try_in_tensor_loop(x):
    acc = x[0] * 0.0
    for r in x:
        try:
            acc = acc + r * 2.0
        finally:
            acc = acc - 0.5
    return acc


def except_python_error_from_shape(x):
    try:
        k = [1.0, 2.0][x.shape[0]]
    except IndexError:
        k = -1.0
    return x * k


# ====================================================== with and context managers
class Scale:
    entered = 0

    def __init__(self, k):
        self.k = k

    def __enter__(self):
        Scale.entered += 1
        return self.k

    def __exit__(self, *exc):
        return False


def user_context_manager(x):
    with Scale(3.0) as k:
        y = x * k
    return y + Scale.entered * 0.0


class Swallow:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


def with_swallows_error(x):
    y = x * 1.0
    with Swallow():
        y = y * 2.0
        raise ValueError("ignored")
    return y + 1.0


FLAG = {"on": False}


@contextlib.contextmanager
def flag_on():
    FLAG["on"] = True
    try:
        yield 2.0
    finally:
        FLAG["on"] = False


def contextmanager_flag(x):
    with flag_on() as k:
        y = x * k if FLAG["on"] else x
    if not FLAG["on"]:
        y = y + 1.0
    return y


def with_tensor_if_inside(x):
    with flag_on() as k:
        if x.sum() > 0:
            y = x * k
        else:
            y = x - k
    return y


def with_in_tensor_loop(x):
    acc = x[0] * 0.0
    for r in x:
        with flag_on() as k:
            acc = acc + r * k
    return acc


# ====================================================== generators
def _doubled(t):
    for r in t:
        yield r * 2.0


def generator_over_rows(x):
    return paddle.stack(list(_doubled(x))).sum(0)


def _running(t):
    s = t[0] * 0.0
    for r in t:
        s = s + r
        yield s


def generator_running_sum(x):
    out = x[0] * 0.0
    for s in _running(x):
        out = out + s
    return out


def _pair():
    yield 1.5
    yield -2.0


def generator_next(x):
    g = _pair()
    a = next(g)
    b = next(g)
    return x * a + b


def generator_expression_sum(x):
    return sum(r * float(k) for k, r in enumerate(x))


def _from_list(t):
    yield from [t * 2.0, t + 1.0]


def yield_from(x):
    a, b = _from_list(x)
    return a - b


# ====================================================== *args / **kwargs
def _combine(a, b=1.0, *rest, scale=2.0, **opts):
    out = a * b * scale
    for r in rest:
        out = out + r
    if opts.get("neg"):
        out = -out
    return out


def _forward_all(*args, **kwargs):
    return _combine(*args, **kwargs)


def args_kwargs_forwarding(x):
    return _forward_all(x, 0.5, x, x * 2.0, scale=3.0, neg=True)


def kwargs_from_dict(x):
    kw = {"scale": 0.25}
    if x.shape[0] > 2:
        kw["neg"] = True
    return _combine(x, **kw)


def partial_with_kwargs(x):
    f = functools.partial(_combine, b=2.0, scale=-1.0)
    return f(x) + f(x * 2.0, neg=True)


def default_mutable_arg(x):
    def add_to(t, acc=[]):    # noqa: B006 - the shared default is what is checked
        acc.append(t)
        return len(acc)
    return x * float(add_to(x))


# ====================================================== super(), mixins, properties
class Base(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x) * 2.0


class ScaleMixin:
    factor = 0.5

    def scaled(self, t):
        return t * self.factor


class Child(ScaleMixin, Base):
    def forward(self, x):
        y = super().forward(x)
        if y.sum() > 0:
            y = self.scaled(y)
        return y + 1.0


class GrandChild(Child):
    factor = 3.0

    def forward(self, x):
        return super().forward(x) - x


def seeded(cls):
    paddle.seed(11)
    return cls()


class WithProperty(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([3], default_initializer=paddle.nn.initializer.Constant(0.5))

    @property
    def w2(self):
        return self.w * 2.0

    def forward(self, x):
        return x * self.w2 + self.w


class Doubled:
    """A descriptor that reads a tensor attribute of its owner and doubles it."""

    def __get__(self, obj, owner):
        return obj.base * 2.0


class WithDescriptor(paddle.nn.Layer):
    twice = Doubled()

    def __init__(self):
        super().__init__()
        self.base = self.create_parameter([3], default_initializer=paddle.nn.initializer.Constant(1.5))

    def forward(self, x):
        return x - self.twice


class Affine:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __call__(self, t):
        return t * self.a + self.b


AFF = Affine(2.0, -1.0)


def callable_object(x):
    return AFF(x) + Affine(0.5, 0.0)(x)


def _aff_between(k):
    AFF.a = [2.0, -1.0, 0.25, 2.0, 3.0][k]


class Counter:
    def __init__(self):
        self.n = 0

    def __call__(self, t):
        self.n += 1
        return t * float(self.n)


CNT = Counter()


def callable_with_state(x):
    return CNT(x) + CNT(x)


def _cnt_between(k):
    if k == 0:
        CNT.n = 0


class K:
    k = 2.0


KI = K()


def class_vs_instance_attr(x):
    return x * KI.k + K.k


def _k_between(k):
    if k == 1:
        KI.k = 5.0              # the instance now shadows the class attribute
    elif k == 2:
        K.k = -1.0
    elif k == 3:
        del KI.k                # the class attribute again
    elif k == 0:
        K.k = 2.0
        KI.__dict__.pop("k", None)


class WithStatic:
    @staticmethod
    def twice(t):
        return t * 2.0

    @classmethod
    def shift(cls, t):
        return t + cls.offset

    offset = 1.0


def static_and_class_methods(x):
    return WithStatic.twice(x) + WithStatic().shift(x)


# ====================================================== global / nonlocal
G = 0


def global_int_under_tensor_if(x):
    global G
    if x.sum() > 0:
        G = G + 1
    return x * 1.0 + 0.0 * G


def _g_between(k):
    global G
    if k == 0:
        G = 0


def global_int_read_after_tensor_if(x):
    global G
    if x.sum() > 0:
        G = 5
    else:
        G = 7
    return x * float(G)


GT = {"t": None}


def global_tensor_rebound_under_tensor_if(x):
    global GT_VAL
    if x.mean() > 0:
        GT_VAL = x * 2.0
    else:
        GT_VAL = x * -1.0
    return GT_VAL + 1.0


GT_VAL = None


def nonlocal_under_tensor_if(x):
    count = 0
    scale = x * 0.0

    def bump(t):
        nonlocal count, scale
        if t.sum() > 0:
            scale = scale + t
        count += 1

    for r in x:
        bump(r)
    return scale * float(count)


def nonlocal_tensor_in_helper(x):
    total = x[0] * 0.0

    def add(t):
        nonlocal total
        total = total + t

    add(x[0])
    add(x[-1] * 2.0)
    return total


# ====================================================== del
def del_name_then_rebind(x):
    y = x * 2.0
    z = y + 1.0
    del y
    y = z * 3.0
    return y


def del_list_item(x):
    parts = [x * 1.0, x * 2.0, x * 3.0]
    del parts[1]
    return parts[0] + parts[1]


def del_dict_key_under_tensor_if(x):
    d = {"a": x * 1.0, "b": x * 2.0}
    if x.sum() > 0:
        d["b"] = d["b"] + 1.0
    del d["a"]
    return d["b"] * float(len(d))


def del_slice(x):
    parts = [x * float(k) for k in range(4)]
    del parts[::2]
    return parts[0] + parts[1]


CASES = [
    C(1, try_finally_rebinds), C(1, try_except_raise_under_tensor_if, refusal_ok=FG_SAVE),
    C(1, try_except_else_finally), C(1, try_in_tensor_loop),
    C(1, except_python_error_from_shape, refusal_ok=FG_SAVE),
    C(2, user_context_manager), C(2, with_swallows_error), C(2, contextmanager_flag),
    C(2, with_tensor_if_inside), C(2, with_in_tensor_loop),
    C(3, generator_over_rows, refusal_ok=SAVE), C(3, generator_running_sum, refusal_ok=SAVE),
    C(3, generator_next, refusal_ok=FG_SAVE), C(3, generator_expression_sum, refusal_ok=SAVE), C(3, yield_from),
    C(4, args_kwargs_forwarding), C(4, kwargs_from_dict, refusal_ok=("saved",)),
    C(4, partial_with_kwargs), C(4, default_mutable_arg),
    C(5, lambda: seeded(Child), layer=True), C(5, lambda: seeded(GrandChild), layer=True),
    C(5, lambda: seeded(WithProperty), layer=True), C(5, lambda: seeded(WithDescriptor), layer=True),
    C(5, callable_object, between=_aff_between), C(5, callable_with_state, between=_cnt_between, save=False),
    C(5, class_vs_instance_attr, between=_k_between), C(5, static_and_class_methods),
    C(6, global_int_under_tensor_if, between=_g_between, refusal_ok=FG_SAVE),
    C(6, global_int_read_after_tensor_if, refusal_ok=FG_SAVE),
    C(6, global_tensor_rebound_under_tensor_if, refusal_ok=FG_SAVE),
    C(6, nonlocal_under_tensor_if, refusal_ok=FG_SAVE), C(6, nonlocal_tensor_in_helper),
    C(7, del_name_then_rebind), C(7, del_list_item), C(7, del_dict_key_under_tensor_if),
    C(7, del_slice),
]
# the lambdas above are named "<lambda>": name them after the class they build
for _c, _n in zip([c for c in CASES if c.name == "<lambda>"],
                  ["super_chain_mixin", "super_grandchild_class_attr", "property_reads_param",
                   "descriptor_reads_param"]):
    _c.name = _n
