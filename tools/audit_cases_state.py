"""Audit round 5, Python state changed between calls: module globals read by helpers of another
module, class attributes, functools.partial objects, default arguments (mutated by the caller or
by the function itself), closures, dispatch tables and the function's own writes
(tools/audit_cases.py)."""
import functools

import numpy as np

import dy2st as paddle
from tools import audit_state_helpers as H
from tools.audit_cases_layers import BUILT, built
from tools.audit_cases_python import FG_SAVE, C

F = paddle.nn.functional
STEPS = [0, 1, 2, 3, 4]


def _pick(values):
    """A between hook giving module state the k-th value before call k."""
    def set_state(k, _values=values):
        _values[1](_values[0][k])
    return set_state


# ====================================================== globals of another module
def other_module_float(x):
    return H.scaled(x) + 1.0


def _scale(k):
    H.SCALE = [1.0, 2.0, -0.5, 3.0, 1.0][k]


def other_module_string_branch(x):
    return H.activated(x - 0.3)


def _mode(k):
    H.MODE = ["tanh", "relu", "tanh", "relu", "relu"][k]


def other_module_list_mutated(x):
    return H.weighted(x)


def _weights(k):
    H.WEIGHTS[:] = [[1.0, 2.0], [1.0, 2.0, 3.0], [0.5], [], [2.0, -1.0]][k]


def other_module_dict_mutated(x):
    return H.biased(x)


def _table(k):
    H.TABLE["bias"] = [0.5, -1.0, 2.0, 0.0, 0.5][k]


def other_module_class_attrs(x):
    return H.configured(x)


def _config(k):
    H.Config.gain = [2.0, 3.0, 2.0, -1.0, 0.5][k]
    H.Config.use_bias = k % 2 == 0


def other_module_function_rebound(x):
    return H.through_act(x)


def _act(k):
    H.ACT = [paddle.tanh, F.relu, paddle.sigmoid, paddle.tanh, paddle.abs][k]


def other_module_counter(x):
    return H.counted(x) + 0.0


def _calls(k):
    if k == 0:
        H.CALLS = 0


def module_attribute_read_directly(x):
    if H.SCALE > 1.5:
        return x * H.SCALE
    return x - H.SCALE


# ====================================================== class attributes
class Base:
    k = 1.0

    def apply(self, t):
        return t * self.k


class Sub(Base):
    pass


OBJ = Sub()


def class_attr_through_subclass(x):
    return OBJ.apply(x) + Sub.k


def _class_k(k):
    Base.k = [1.0, 2.0, 2.0, -1.0, 0.5][k]
    if k == 2:
        Sub.k = 5.0
    elif "k" in Sub.__dict__:
        del Sub.k


class Counter:
    n = 0


def class_attr_counter_written(x):
    Counter.n += 1
    return x * float(Counter.n)


def _counter(k):
    if k == 0:
        Counter.n = 0


class Registry:
    fns = {"a": paddle.tanh}


def class_dict_dispatch(x):
    out = x
    for name in sorted(Registry.fns):
        out = Registry.fns[name](out)
    return out


def _registry(k):
    Registry.fns = {"a": paddle.tanh}
    if k >= 1:
        Registry.fns["b"] = paddle.abs
    if k >= 3:
        Registry.fns["c"] = F.relu


# ====================================================== functools.partial
def _affine(t, w, b=0.0):
    return t * w + b


AFF = functools.partial(_affine, w=2.0)


def partial_rebound(x):
    return AFF(x) + 1.0


def _partial(k):
    global AFF
    AFF = functools.partial(_affine, w=[2.0, -1.0, 2.0, 0.5, 3.0][k], b=float(k))


ARGS = [1.0]
PLIST = functools.partial(lambda t, ws: t * sum(ws), ws=ARGS)


def partial_of_mutated_list(x):
    return PLIST(x)


def _plist(k):
    ARGS[:] = [[1.0], [1.0, 2.0], [-3.0], [0.5, 0.5, 0.5], [2.0]][k]


def partial_keywords_mutated(x):
    return AFF(x, b=0.0) * 2.0


def _partial_keywords(k):
    AFF.keywords["w"] = [2.0, 4.0, -2.0, 2.0, 1.0][k]


# ====================================================== default arguments
def _helper_with_default(t, scale=1.0):
    return t * scale


def defaults_replaced(x):
    return _helper_with_default(x) + 1.0


def _defaults(k):
    _helper_with_default.__defaults__ = ([1.0, 2.0, -1.0, 3.0, 0.5][k],)


def _cfg_helper(t, cfg={"s": 1.0, "on": True}):  # noqa: B006 - mutated between calls on purpose
    if cfg["on"]:
        return t * cfg["s"]
    return t


def default_dict_mutated_by_caller(x):
    return _cfg_helper(x) - 0.5


def _cfg_default(k):
    d = _cfg_helper.__defaults__[0]
    d["s"], d["on"] = [(1.0, True), (2.0, True), (3.0, False), (-1.0, True), (1.0, False)][k]


def _grow(t, acc=[]):  # noqa: B006 - the default list grows per call, as in eager Python
    acc.append(1)
    return t * float(len(acc))


def default_list_grown_by_function(x):
    return _grow(x)


def _grow_between(k):
    if k == 0:
        _grow.__defaults__[0].clear()


def own_default_list_grown(x, acc=[]):  # noqa: B006 - the same, on the converted function
    acc.append(x.shape[0])
    return x * float(sum(acc))


def _own_between(k):
    if k == 0:
        own_default_list_grown.__defaults__[0].clear()


def _npgrow(t, w=np.ones(3, "float32")):  # noqa: B008 - a numpy default changed in place
    w += 1.0
    return t * paddle.to_tensor(w)


def default_numpy_grown_by_helper(x):
    return _npgrow(x)


def _npgrow_between(k):
    if k == 0:
        _npgrow.__defaults__[0][:] = 1.0


def _item_grow(t, w=np.zeros(3, "float32")):  # noqa: B008
    w[0] = w[0] + 1.0
    return t + paddle.to_tensor(w)


def default_numpy_item_written(x):
    return _item_grow(x)


def _item_grow_between(k):
    if k == 0:
        _item_grow.__defaults__[0][:] = 0.0


def list_argument_extended_by_augassign(x):
    _extend(HOLD, 1.0)
    return x * float(len(HOLD))


HOLD = []


def _extend(lst, v):
    lst += [v]


def _hold_between(k):
    if k == 0:
        HOLD.clear()


# ====================================================== closures and dispatch tables
def _make_scaler():
    state = {"s": 1.0}

    def scale(t):
        return t * state["s"]

    def set_s(v):
        state["s"] = v
    return scale, set_s


SCALER, SET_S = _make_scaler()


def closure_state_changed(x):
    return SCALER(x) + 0.0


def _closure(k):
    SET_S([1.0, -2.0, 3.0, 0.0, 1.5][k])


def _make_cell():
    s = 1.0

    def scale(t):
        return t * s

    def set_s(v):
        nonlocal s
        s = v
    return scale, set_s


CELL_SCALE, CELL_SET = _make_cell()


def closure_cell_rebound(x):
    return CELL_SCALE(x)


def _cell(k):
    CELL_SET([1.0, 2.0, -1.0, 0.5, 4.0][k])


OPS = [paddle.tanh, paddle.abs]


def dispatch_list_changed(x):
    out = x
    for op in OPS:
        out = op(out) + 0.1
    return out


def _ops(k):
    OPS[:] = [[paddle.tanh, paddle.abs], [paddle.abs], [], [F.relu, paddle.tanh, paddle.exp],
              [paddle.tanh, paddle.abs]][k]


class Holder:
    def __init__(self):
        self.scale = 1.0

    def run(self, t):
        return t * self.scale


HOLDER = Holder()
BOUND = HOLDER.run


def bound_method_object_changed(x):
    return BOUND(x) + 1.0


def _bound(k):
    HOLDER.scale = [1.0, 2.0, 0.5, -1.0, 3.0][k]


def global_tensor_changed_in_place(x):
    return x * GT_W


GT_W = paddle.to_tensor([1.0, 2.0, 3.0])


def _gt_w(k):
    GT_W.set_value(np.array([1.0, 2.0, 3.0], "float32") * (k + 1) * (-1) ** k)


def global_tensor_rebound(x):
    return x + GT_B


GT_B = paddle.to_tensor([0.5, 0.5, 0.5])


def _gt_b(k):
    global GT_B
    GT_B = paddle.to_tensor([0.5, -1.0, 2.0]) * float(k)


# ====================================================== Layers and library state between calls
def default_dtype_changed(x):
    return x.astype("float64") * paddle.to_tensor([1.0, 2.0, 3.0])


def _default_dtype(k):
    paddle.set_default_dtype("float64" if k in (1, 3) else "float32")


class Hooked(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(3, 3)
        self.act = paddle.nn.Tanh()

    def forward(self, x):
        return self.act(self.lin(x))


HOOKS = {}


def _hooks(k):
    m = BUILT[-1]
    if k == 1:
        HOOKS["post"] = m.register_forward_post_hook(lambda layer, i, o: o * 2.0)
        HOOKS["pre"] = m.lin.register_forward_pre_hook(lambda layer, i: (i[0] + 1.0,))
    elif k == 3:
        HOOKS.pop("post").remove()
        HOOKS.pop("pre").remove()


def _swap(k):
    m = BUILT[-1]
    if k == 1:
        m.act = paddle.nn.ReLU()
    elif k == 2:
        m.lin.weight = m.create_parameter(
            [3, 3], default_initializer=paddle.nn.initializer.Constant(0.5))
    elif k == 3:
        m.lin.eval()


CASES = [
    C(32, other_module_float, between=_scale), C(32, other_module_string_branch, between=_mode),
    C(32, other_module_list_mutated, between=_weights),
    C(32, other_module_dict_mutated, between=_table),
    C(32, other_module_class_attrs, between=_config),
    C(32, other_module_function_rebound, between=_act),
    C(32, other_module_counter, between=_calls, save=False),
    C(32, module_attribute_read_directly, between=_scale),
    C(33, class_attr_through_subclass, between=_class_k),
    C(33, class_attr_counter_written, between=_counter, save=False),
    C(33, class_dict_dispatch, between=_registry),
    C(33, partial_rebound, between=_partial), C(33, partial_of_mutated_list, between=_plist),
    C(33, partial_keywords_mutated, between=_partial_keywords),
    C(34, defaults_replaced, between=_defaults),
    C(34, default_dict_mutated_by_caller, between=_cfg_default),
    C(34, default_list_grown_by_function, between=_grow_between, save=False),
    C(34, own_default_list_grown, between=_own_between, save=False),
    C(34, default_numpy_grown_by_helper, between=_npgrow_between, save=False),
    C(34, default_numpy_item_written, between=_item_grow_between, save=False),
    C(34, list_argument_extended_by_augassign, between=_hold_between, save=False),
    C(35, closure_state_changed, between=_closure), C(35, closure_cell_rebound, between=_cell),
    C(35, dispatch_list_changed, between=_ops), C(35, bound_method_object_changed, between=_bound),
    C(35, global_tensor_changed_in_place, between=_gt_w),
    C(35, global_tensor_rebound, between=_gt_b, refusal_ok=FG_SAVE),
    C(35, default_dtype_changed, between=_default_dtype),
    C(35, built(Hooked), layer=True, between=_hooks, save=False),
    C(35, built(type("Swapped", (Hooked,), {})), layer=True, between=_swap, save=False),
]
_ = STEPS, _pick
