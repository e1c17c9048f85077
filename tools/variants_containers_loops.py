"""Issue 24 variants, items 5-12 (list entries changed in place, tensor arrays in dicts, Layer
dict attributes, walrus, dict keys and dtypes in loops, reversed ranges, backward inside):
programs for tools/equivalence_variants.py."""
import dy2st as paddle
from tools.variants_autograd_values import V, nn, rows, seeded, with_n


# ============================================================== item 5: list entries in place
def le_add_(x):
    acc = []
    h = x * 1.0
    for i in range(2):
        acc.append(h)
        h.add_(x)
    return acc[0] + acc[1] * 2.0


def le_setitem_tensor_index(x):
    acc = []
    h = x * 2.0
    acc.append(h)
    j = (x[0, 0] > 0).astype("int64")
    h[j] = x[0] * 5.0
    return acc[0]


def le_assign_output(x):
    acc = []
    h = x * 2.0
    acc.append(h)
    paddle.assign(x * 7.0, output=h)
    return acc[0] + h


def le_dict_alias(x):
    h = x * 1.0
    d = {"h": h}
    acc = [h]
    d["h"].scale_(3.0)
    return acc[0]


def le_tensor_loop(x):      # documented refusal in one graph: one object appended per turn
    acc = []
    h = x[0] * 1.0
    for r in x:
        acc.append(h)
        h[1] = r[1] * 2.0
    return acc[0] + h


def le_imul(x):
    acc = []
    h = x * 1.0
    acc.append(h)
    h *= 2.0
    return acc[0] + h


def le_tuple_entry(x):
    h = x * 1.0
    t = (h, 1)
    h.add_(x)
    return t[0] * t[1]


def _stash(acc, h):
    acc.append(h)


def le_appended_in_helper(x):
    acc = []
    h = x * 1.0
    _stash(acc, h)
    h[0] = x[0] * 4.0
    return acc[0]


def le_under_tensor_if(x):
    acc = []
    h = x * 1.0
    acc.append(h)
    if x.sum() > 0:
        h[0] = x[0] * 4.0
    else:
        h.subtract_(x)
    return acc[0] * 2.0


def le_entry_changes_name(x):
    h = x * 1.0
    acc = [h]
    acc[0].multiply_(x)
    return h


def le_extend_then_change(x):
    h = x * 1.0
    g = x * 2.0
    acc = []
    acc.extend([h, g])
    g.clip_(-0.5, 0.5)
    h[:, 0] = 0.0
    return acc[0] + acc[1]


# ============================================================== item 6: tensor arrays in dicts
def da_nested_loops(x):
    d = {"acc": []}
    for k in range(2):
        for r in x:
            d["acc"].append(r * float(k + 1))
    return paddle.stack(d["acc"]).sum(axis=0)


def da_two_keys(x):
    d = {"a": [], "b": []}
    for r in x:
        d["a"].append(r)
        d["b"].append(r * 2.0)
    return paddle.concat(d["a"]) + paddle.concat(d["b"])


def da_while(x):
    d = {"acc": [x[0] * 0.0]}
    i = paddle.zeros([], "int64")
    while i < x.shape[0]:
        d["acc"].append(x[i] + d["acc"][-1])
        i += 1
    return d["acc"][-1]


def da_nested_dict(x):
    d = {"inner": {"acc": []}}
    for r in x:
        d["inner"]["acc"].append(r.sum())
    return paddle.stack(d["inner"]["acc"]) * 2.0


def da_plus_equal(x):
    d = {"acc": []}
    for r in x:
        d["acc"] += [r * 3.0]
    return paddle.stack(d["acc"]).mean(axis=0)


def da_under_if(x):
    d = {"acc": []}
    for r in x:
        if r.sum() > 0:
            d["acc"].append(r)
        else:
            d["acc"].append(-r)
    return paddle.stack(d["acc"]).sum(axis=0)


# ============================================================== item 7: Layer dict attribute
class DictAttr(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.cache = {"k": paddle.zeros([3])}

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            self.cache["k"] = h.mean(axis=0)
        else:
            self.cache["k"] = h.max(axis=0)
        return h + self.cache["k"]


class DictAttrOneBranch(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.cache = {"k": paddle.ones([3])}

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            self.cache["k"] = h.mean(axis=0)
        return h * self.cache["k"]


class NestedDictAttr(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.state = {"a": {"b": paddle.zeros([3])}}

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            self.state["a"]["b"] = h.sum(axis=0)
        else:
            self.state["a"]["b"] = -h.sum(axis=0)
        return h - self.state["a"]["b"]


class ListAttr(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.buf = [paddle.zeros([3]), paddle.zeros([3])]

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            self.buf[0] = h.mean(axis=0)
        else:
            self.buf[1] = h.mean(axis=0)
        return h + self.buf[0] - self.buf[1]


class DictAttrLoop(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.cache = {"s": paddle.zeros([3])}

    def forward(self, x):
        h = self.fc(x)
        for r in h:
            self.cache["s"] = self.cache["s"] * 0.5 + r
        return h + self.cache["s"]


class DictAttrElif(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.cache = {"k": paddle.zeros([3])}

    def forward(self, x):
        h = self.fc(x)
        m = h.mean()
        if m > 0.3:
            self.cache["k"] = h[0]
        elif m > -0.3:
            self.cache["k"] = h[-1] * 2.0
        else:
            self.cache["k"] = h.min(axis=0)
        out = h + self.cache["k"]
        return out * self.cache["k"]


class DictAttrNewKey(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.cache = {}

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            self.cache["k"] = h.mean(axis=0)
        else:
            self.cache["k"] = h.max(axis=0)
        return h + self.cache["k"]


# ============================================================== item 8: walrus
def wal_tuple_test(x):
    s = x.sum() * 0.0
    n = 0
    while (n := n + 1) < 4 and (s := s + x.mean()) < 2.0:
        s = s + 0.1
    return x * s + n


def wal_if_test(x):
    if (m := x.mean()) > 0:
        return x - m
    return x + m * 2.0


def wal_elif(x):
    if (a := x.sum()) > 2.0:
        return x * a
    elif (b := x.max()) > 0.5:
        return x + b + a
    return x - a


def wal_zero_trips(x):
    s = x.sum()
    while (s := s * 2.0) < -100.0:
        s = s + 1.0
    return x * s


def wal_nested_fn(x):
    def grow(t):
        acc = t.sum() * 0.0
        while (acc := acc + t.abs().mean()) < 1.0:
            pass
        return acc
    return x * grow(x)


def wal_in_tensor_for(x):
    acc = x[0] * 0.0
    for r in x:
        if (t := r.sum()) > 0:
            acc = acc + t
    return acc


def wal_tensor_in_expr(x):
    y = (z := x * 2.0) + z.sum()
    return y * z


def wal_read_after_loop(x):
    s = x.sum() * 0.0
    while (t := s + x.abs().mean()) < 3.0:
        s = t
    return x * t + s


# ============================================================== item 9: dict key in loop
def key_some_turns(x, n):
    d = {"a": x}
    i = paddle.zeros([], "int64")
    while i < n:
        if x.sum() + i.astype("float32") > 2.0:
            d["b"] = x * i.astype("float32")
        i += 1
    return d.get("b", x * -1.0) + d["a"]


def key_get_zero_trips(x, n):
    d = {}
    for i in range(n):
        d["s"] = x * 2.0
    return d.get("s", x * 5.0)


def key_in_after(x, n):
    d = {"a": 1}
    for i in range(n):
        d["k"] = x.sum()
    return x * 2.0 if "k" in d else x * 3.0


def key_missing_read(x, n):
    d = {}
    for i in range(n):
        d["k"] = x + 1.0
    return d["k"]


def key_setdefault(x, n):
    d = {}
    for i in range(n):
        d.setdefault("k", x * 0.0)
        d["k"] = d["k"] + x
    return d["k"] if "k" in d else x


def key_update(x, n):
    d = {"a": x}
    for i in range(n):
        d.update({"b": d["a"] * 2.0})
    return d["a"] + d.get("b", x)


def key_len(x, n):
    d = {"a": x}
    for i in range(n):
        d["b"] = x * 2.0
    return x * len(d)


# ============================================================== item 10: None / dtype
def none_while(x, n):
    y = None
    i = paddle.zeros([], "int64")
    while i < n:
        y = x * 2.0 if y is None else y + x
        i += 1
    return x if y is None else y


def int_to_float_for(x, n):
    s = paddle.zeros([3], "int64")
    for i in range(n):
        s = s + x[0]
    return s


def python_int_to_tensor(x, n):
    s = 0
    for i in range(n):
        s = s + x.sum()
    return x * s


def bool_to_float(x, n):
    m = x > 0
    for i in range(n):
        m = m + x
    return m.astype("float32") * x


def none_nested(x, n):
    y = None
    for i in range(n):
        for r in x:
            y = r if y is None else y + r
    return x * 0.0 if y is None else x + y


def int32_to_int64(x, n):
    s = paddle.zeros([3], "int32")
    for i in range(n):
        s = s + paddle.ones([3], "int64")
    return x * s.astype("float32")


def none_returned_dtype(x, n):
    s = paddle.zeros([3], "int64")
    i = paddle.zeros([], "int64")
    while i < n:
        s = s + x[0] * 0.5
        i += 1
    return s


# ============================================================== item 11: reversed(range)
def rev_basic(x, n):
    acc = x * 0.0
    for i in reversed(range(n)):
        acc = acc * 2.0 + paddle.cast(i, "float32")
    return acc


def rev_start_stop(x, n):
    acc = x * 0.0
    for i in reversed(range(1, n)):
        acc = acc * 3.0 + paddle.cast(i, "float32")
    return acc


def rev_break(x, n):
    acc = x * 0.0
    for i in reversed(range(n)):
        if i < 1:
            break
        acc = acc + paddle.cast(i, "float32") * x
    return acc


def rev_enumerate(x, n):
    acc = x * 0.0
    for k, i in enumerate(reversed(range(n))):
        acc = acc + paddle.cast(i, "float32") * (k + 1)
    return acc


def rev_shape(x):
    acc = x[0] * 0.0
    for i in reversed(range(x.shape[0])):
        acc = acc * 0.5 + x[i]
    return acc


def rev_len_list(x, n):
    vals = [x * 1.0, x * 2.0, x * 3.0]
    acc = x * 0.0
    for i in reversed(range(len(vals))):
        acc = acc * 2.0 + vals[i]
    return acc + paddle.cast(n, "float32")


def rev_nested(x, n):
    acc = x * 0.0
    for i in reversed(range(n)):
        for j in reversed(range(i)):
            acc = acc + paddle.cast(i * 3 + j, "float32")
    return acc


def rev_continue(x, n):
    acc = x * 0.0
    for i in reversed(range(n)):
        if i % 2 == 0:
            continue
        acc = acc * 2.0 + paddle.cast(i, "float32")
    return acc


# ============================================================== item 12: backward inside
class BackwardStep(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        loss = (self.fc(x) * x).sum()
        loss.backward()
        return loss, self.fc.weight.grad * 1.0


def _backward_layer():
    paddle.seed(9)
    return BackwardStep()


def bw_input_only(x):
    loss = (x * x).sum()
    loss.backward()
    return loss


def bw_update_with_grad(x):
    loss = (paddle.tanh(x) * x).sum()
    loss.backward()
    return x - 0.1 * x.grad


def bw_under_loop(x):
    total = x.sum() * 0.0
    for k in range(2):
        loss = (x * float(k + 1)).pow(2).sum()
        loss.backward()
        total = total + loss
    return total, x.grad * 1.0


def bw_two_inputs(x, y):
    loss = (x * y).sum() + (y * y).sum()
    loss.backward()
    return loss


def bw_tensor_if(x):
    if x.sum() > 0:
        loss = (x ** 3).sum()
    else:
        loss = (x * 2.0).sum()
    loss.backward()
    return loss


def bw_intermediate(x):
    h = x * 2.0
    h.stop_gradient = False
    loss = (h * h).sum()
    loss.backward()
    return loss, x.grad * 1.0



BW = dict(grad_inputs=(0,), outer_backward=False, save=False)

VARIANTS = [
    V(5, le_add_), V(5, le_setitem_tensor_index), V(5, le_assign_output), V(5, le_dict_alias),
    V(5, le_tensor_loop, refusal_ok=("full_graph", "saved"), refusal_errors=("ValueError",)),
    V(5, le_imul), V(5, le_tuple_entry), V(5, le_appended_in_helper),
    V(5, le_under_tensor_if), V(5, le_entry_changes_name), V(5, le_extend_then_change),

    V(6, da_nested_loops), V(6, da_two_keys), V(6, da_while), V(6, da_nested_dict),
    V(6, da_plus_equal), V(6, da_under_if),

    V(7, lambda: seeded(DictAttr), layer=True), V(7, lambda: seeded(DictAttrOneBranch), layer=True),
    V(7, lambda: seeded(NestedDictAttr), layer=True), V(7, lambda: seeded(ListAttr), layer=True),
    V(7, lambda: seeded(DictAttrLoop), layer=True), V(7, lambda: seeded(DictAttrElif), layer=True),
    V(7, lambda: seeded(DictAttrNewKey), layer=True),

    V(8, wal_tuple_test), V(8, wal_if_test), V(8, wal_elif), V(8, wal_zero_trips),
    V(8, wal_nested_fn), V(8, wal_in_tensor_for), V(8, wal_tensor_in_expr),
    V(8, wal_read_after_loop),

    V(9, key_some_turns, with_n()), V(9, key_get_zero_trips, with_n()), V(9, key_in_after, with_n()),
    V(9, key_missing_read, with_n((1, 0, 2))), V(9, key_setdefault, with_n()),
    V(9, key_update, with_n()), V(9, key_len, with_n()),

    # (a saved model fails clearly where a widened loop ran no turn: docs/conversion_limits.md)
    V(10, none_while, with_n()), V(10, int_to_float_for, with_n((1, 0, 2)), refusal_ok=("saved",)),
    V(10, python_int_to_tensor, with_n()), V(10, bool_to_float, with_n((1, 0, 2))),
    V(10, none_nested, with_n()), V(10, int32_to_int64, with_n((1, 0, 2))),
    V(10, none_returned_dtype, with_n((0, 1, 2)), refusal_ok=("saved",)),

    V(11, rev_basic, with_n((0, 1, 3, 2))), V(11, rev_start_stop, with_n((0, 1, 4))),
    V(11, rev_break, with_n((0, 1, 3))), V(11, rev_enumerate, with_n((0, 1, 3))),
    V(11, rev_shape), V(11, rev_len_list, with_n((0, 2))), V(11, rev_nested, with_n((0, 1, 3))),
    V(11, rev_continue, with_n((0, 1, 4))),

    V(12, _backward_layer, layer=True, **BW), V(12, bw_input_only, **BW),
    V(12, bw_update_with_grad, **BW), V(12, bw_under_loop, **BW),
    V(12, bw_two_inputs, [(rows(2), rows(2)), (rows(3), rows(3))], grad_inputs=(0, 1),
      outer_backward=False, save=False),
    V(12, bw_tensor_if, **BW), V(12, bw_intermediate, **BW),
]

for _v in VARIANTS:     # lambdas that build Layers are named after their class
    if _v.name == "<lambda>":
        _v.name = "attr_" + type(_v.layer()).__name__
