"""Issue 24 variants, items 1-4 (no_grad, Python values read from tensors, late-binding
closures, Layer hooks through jit.save): programs for tools/equivalence_variants.py."""
# ruff: noqa: B023 - the closures bind loop variables late on purpose: that is what they check
import collections
import functools
import math

import numpy as np

import dy2st as paddle
from tools.equivalence import Variant

nn = paddle.nn
RNG = np.random.default_rng(0)


def rows(n, scale=1.0, shift=0.0):
    return (RNG.standard_normal((n, 3)) * scale + shift).astype("float32")


# inputs taking both signs of a sum and 1 to 4 rows
XS = [(rows(2, shift=1.0),), (rows(3, shift=-1.0),), (rows(1, 0.5),), (rows(4, shift=0.5),),
      (rows(2, shift=-2.0),)]


def _n(k):
    return np.array(k, "int64")


def with_n(trips=(0, 1, 3, 2)):
    return [(rows(2, shift=1.0), _n(k)) for k in trips]


def V(item, fn, inputs=None, **kw):
    """A Variant named after fn; layer=True: fn builds the Layer."""
    if kw.pop("layer", False):
        return Variant(item, fn.__name__, layer=fn, inputs=inputs or XS, **kw)
    return Variant(item, fn.__name__, fn=fn, inputs=inputs or XS, **kw)


FG_REFUSE = ("full_graph", "saved")     # item 2: a clear error in one graph is allowed


# ============================================================== item 1: no_grad
def ng_in_tensor_loop(x):
    acc = x * 0.0
    for r in x:
        with paddle.no_grad():
            c = r * 2.0
        acc = acc + c * r
    return acc


def ng_under_tensor_if(x):
    if x.sum() > 0:
        with paddle.no_grad():
            y = x * x
    else:
        y = x * 3.0
    return y * x


paddle.seed(3)
LIN = nn.Linear(3, 3)


def _apply_lin(t):
    return paddle.tanh(LIN(t))


def ng_around_layer_helper(x):
    with paddle.no_grad():
        y = _apply_lin(x)
    return y * x + LIN(x)


def sge_as_call(x):
    paddle.set_grad_enabled(False)
    y = x * 3.0
    paddle.set_grad_enabled(True)
    return y * x + x


class NoGradMethod(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    @paddle.no_grad()
    def stats(self, x):
        return self.fc(x).mean(axis=0)

    def forward(self, x):
        return self.fc(x) * self.stats(x)


def _ng_method():
    paddle.seed(4)
    return NoGradMethod()


def ng_inplace(x):
    y = x * 2.0
    with paddle.no_grad():
        y.add_(x * 0.5)
    return y * x


def ng_return_inside(x):
    with paddle.no_grad():
        if x.sum() > 0:
            return x * x
    return x * 2.0


def ng_flag_read(x):
    with paddle.no_grad():
        y = x * 2.0
    if y.stop_gradient:
        return y * x
    return y + x


def ng_is_grad_enabled(x):
    with paddle.no_grad():
        on = paddle.is_grad_enabled()
    return x * (2.0 if on else 5.0) * x


def ng_while_break(x):
    acc = x
    i = paddle.zeros([], "int64")
    with paddle.no_grad():
        while i < 4:
            acc = acc * 0.5 + x
            if acc.sum() > 3:
                break
            i += 1
    return acc * x


def ng_detach_vs_block(x):
    y = x.detach() * x
    with paddle.no_grad():
        z = y * 2.0
    return y + z


def ng_nested_sge_true(x):
    with paddle.no_grad():
        a = x * 2.0
        with paddle.set_grad_enabled(True):
            b = a * x
        c = b * x
    return a + b + c


# ============================================================== item 2: Python values
def item_range_bound(x):
    n = int((x > 0).astype("int64").sum())
    s = x[0] * 0.0
    for i in range(n):
        s = s + x[0] * float(i + 1)
    return s


def item_if_test(x):
    if x.sum().item() > 0:
        return x * 2.0
    return x * 3.0


def item_math(x):
    s = math.sqrt(abs(x.mean().item())) + math.exp(-abs(float(x[0, 0])))
    return x * s


def items_to_tensor(x):
    vals = [float(v) for v in x.sum(axis=1)]
    return paddle.to_tensor(vals, dtype="float32") * x.sum()


def float_loss_scale(x):
    scale = float(x.abs().max())
    return x * x / scale


def int_index_list(x):
    fns = [paddle.tanh, paddle.exp, paddle.sin]
    k = int(x[0, 0] > 0) + int(x[0, 1] > 0)
    return fns[k](x)


def bool_logic(x):
    flag = bool(x.sum() > 0) and bool(x.mean() < 1.0)
    return x * (2.0 if flag else 3.0)


def tolist_sum(x):
    rows = x.tolist()
    total = sum(sum(r) for r in rows)
    return x * total


def item_returned(x):
    return x * 2.0, x.sum().item()


def numpy_argmax(x):
    k = int(np.argmax(x.numpy().sum(axis=1)))
    return x[k] * x


def item_fstring_key(x):
    key = f"{int(x.sum().item() > 0)}"
    table = {"0": 2.0, "1": 5.0}
    return x * table[key]


def item_as_grad_scale(x):
    m = x.mean().item()
    return (x - m) * (x - m)


def tolist_counter(x):
    ids = (x > 0).astype("int64").sum(axis=1)
    c = collections.Counter(ids.tolist())
    return x * float(c.most_common(1)[0][0] + len(c))


def item_while_python(x):
    t = x.abs().sum().item()
    k = 0
    while t > 1.0:
        t = t / 2.0
        k += 1
    return x * k


# ============================================================== item 3: late binding
def lam_while(x):
    fs = []
    i = 0
    while i < 3:
        fs.append(lambda t: t * i)
        i += 1
    return fs[0](x) + fs[1](x)


def lam_nested_comprehension(x):
    fs = [[lambda t: t * (a + 2 * b) for b in range(2)] for a in range(3)]
    return fs[0][0](x) + fs[1][0](x)


def _scale(t, k):
    return t * k


def partial_in_loop(x):
    fs = []
    for i in range(3):
        fs.append(functools.partial(_scale, k=float(i)))
    return fs[0](x) + fs[2](x)


def default_arg_in_loop(x):
    fs = []
    for i in range(3):
        fs.append(lambda t, i=i: t + i)
    return fs[0](x) * fs[1](x)


def def_in_loop_rebound_after(x):
    fs = []
    for i in range(3):
        def g(t):
            return t + i
        fs.append(g)
    i = 10
    return fs[0](x)


def tensor_captured_in_loop(x):
    fs = []
    for i in range(3):
        h = x * float(i + 1)
        fs.append(lambda: h)
    return fs[0]() + fs[1]()


def lam_in_tensor_loop(x):
    f = None
    for r in x:
        f = lambda t: t + r  # noqa: E731
    return f(x) if f is not None else x


def lam_changed_after(x):
    k = 1.0
    f = lambda t: t * k  # noqa: E731
    k = 2.0
    return f(x)


def lam_in_comprehension_over_rows(x):
    fs = [lambda t: t * r for r in range(x.shape[0])]
    return fs[0](x)


def map_lambdas(x):
    fs = []
    for i in range(3):
        fs.append(lambda t: t * i)
    return sum(map(lambda f: f(x), fs))


def closure_in_while_tensor(x):
    i = paddle.zeros([], "int64")
    fs = []
    k = 0
    while k < 2:
        fs.append(lambda t: t * (k + 1))
        k += 1
    s = x
    while i < 2:
        s = fs[0](s)
        i += 1
    return s


# ============================================================== item 4: hooks
class Inner(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(x)


class Outer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.blocks = nn.LayerList([nn.Linear(3, 3), nn.Linear(3, 3)])

    def forward(self, x):
        h = self.inner(x)
        for b in self.blocks:
            h = b(h)
        return paddle.tanh(h)


class TwoOut(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        h = self.fc(x)
        return h, h.sum(axis=-1)


def seeded(cls):
    paddle.seed(7)
    return cls()


def _pre_tensor(layer, inputs):
    return inputs[0] * 2.0 + 1.0          # not a tuple: Paddle wraps it


def _pre_tuple(layer, inputs):
    return (inputs[0] - 0.5,)


def _post_new(layer, inputs, outputs):
    return outputs * 3.0 + inputs[0][:, :1]


def _post_tuple(layer, inputs, outputs):
    return outputs[0] * 2.0, outputs[1] + 1.0


def _post_sub(layer, inputs, outputs):
    return outputs + 0.25


def hook_pre_tensor():
    m = seeded(Outer)
    m.register_forward_pre_hook(_pre_tensor)
    return m


def hook_post_tuple_outputs():
    m = seeded(TwoOut)
    m.register_forward_post_hook(_post_tuple)
    return m


def hook_removed_before_save():
    m = seeded(Outer)
    h = m.register_forward_post_hook(_post_new)
    m.register_forward_pre_hook(_pre_tuple)
    h.remove()
    return m


def hook_in_layerlist():
    m = seeded(Outer)
    m.blocks[1].register_forward_post_hook(_post_sub)
    m.blocks[0].register_forward_pre_hook(_pre_tuple)
    return m


def hook_two_pre_order():
    m = seeded(Outer)
    m.register_forward_pre_hook(_pre_tensor)
    m.register_forward_pre_hook(_pre_tuple)
    m.register_forward_post_hook(_post_new)
    m.register_forward_post_hook(_post_sub)
    return m


def hook_top_and_sub():
    m = seeded(Outer)
    m.register_forward_post_hook(_post_new)
    m.inner.register_forward_pre_hook(_pre_tuple)
    return m


class SharedSub(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(self.fc(x))


def hook_shared_sublayer_twice():
    m = seeded(SharedSub)
    m.fc.register_forward_post_hook(_post_sub)
    m.register_forward_pre_hook(_pre_tuple)
    return m


def _scale_twice_hook(layer, inputs, outputs):
    if outputs.mean() > 0:
        return outputs * 2.0
    return None


def hook_returns_none_on_a_path():
    m = seeded(Outer)
    m.register_forward_post_hook(_scale_twice_hook)
    return m



VARIANTS = [
    V(1, ng_in_tensor_loop), V(1, ng_under_tensor_if), V(1, ng_around_layer_helper),
    V(1, sge_as_call), V(1, _ng_method, layer=True), V(1, ng_inplace),
    V(1, ng_return_inside), V(1, ng_flag_read), V(1, ng_is_grad_enabled), V(1, ng_while_break),
    V(1, ng_detach_vs_block), V(1, ng_nested_sge_true),

    V(2, item_range_bound, refusal_ok=FG_REFUSE), V(2, item_if_test, refusal_ok=FG_REFUSE),
    V(2, item_math, refusal_ok=FG_REFUSE), V(2, items_to_tensor, refusal_ok=FG_REFUSE),
    V(2, float_loss_scale, refusal_ok=FG_REFUSE), V(2, int_index_list, refusal_ok=FG_REFUSE),
    V(2, bool_logic, refusal_ok=FG_REFUSE), V(2, tolist_sum, refusal_ok=FG_REFUSE),
    V(2, item_returned, refusal_ok=FG_REFUSE), V(2, numpy_argmax, refusal_ok=FG_REFUSE),
    V(2, item_fstring_key, refusal_ok=FG_REFUSE), V(2, item_as_grad_scale, refusal_ok=FG_REFUSE),
    V(2, tolist_counter, refusal_ok=FG_REFUSE), V(2, item_while_python, refusal_ok=FG_REFUSE),

    V(3, lam_while), V(3, lam_nested_comprehension), V(3, partial_in_loop),
    V(3, default_arg_in_loop), V(3, def_in_loop_rebound_after), V(3, tensor_captured_in_loop),
    V(3, lam_in_tensor_loop), V(3, lam_changed_after),
    # refused at save, naming the line (a number from the symbolic batch: docs/fuzzing.md)
    V(3, lam_in_comprehension_over_rows, refusal_ok=("saved",)),
    V(3, map_lambdas), V(3, closure_in_while_tensor),

    V(4, hook_pre_tensor, layer=True), V(4, hook_post_tuple_outputs, layer=True),
    V(4, hook_removed_before_save, layer=True), V(4, hook_in_layerlist, layer=True),
    V(4, hook_two_pre_order, layer=True), V(4, hook_top_and_sub, layer=True),
    V(4, hook_shared_sublayer_twice, layer=True), V(4, hook_returns_none_on_a_path, layer=True),
]
