"""Python state a converted function changes where the side-effect scan did not look (audit
round 5): a helper of another module writing its global, a class attribute, `+=` on a list or
array parameter, default arguments the function itself grows, and library functions that change
what they are given (heapq, bisect, setattr, `vars(o).update`, numpy's `out=`). Each happens on
every call, as in eager code, in both full_graph settings and with a graph break; before, the
compiled program ran it once (or twice: in the trace and again)."""
import bisect
import heapq

import numpy as np
import pytest

import dy2st as paddle
from tests.jit import module_state_helpers as helpers
from tests.support import BREAK_MODES, graph_break

X = np.arange(6, dtype="float32").reshape(2, 3) - 2.0


class Counter:
    n = 0


class Cfg:
    pass


CFG = Cfg()
HEAP, SORTED, HOLD = [], [], []
BUF = np.zeros(3, "float32")


def other_module_global(x, brk):
    if brk:
        graph_break(x)
    return helpers.counted(x) + 0.0


def class_attribute(x, brk):
    if brk:
        graph_break(x)
    Counter.n += 1
    return x * float(Counter.n)


def _extend(lst, v):
    lst += [v]


def list_parameter_augmented(x, brk):
    if brk:
        graph_break(x)
    _extend(HOLD, 1.0)
    return x * float(len(HOLD))


def _grow(t, acc=[]):  # noqa: B006 - the default list grows per call, as in eager Python
    acc.append(1)
    return t * float(len(acc))


def default_list_of_a_helper(x, brk):
    if brk:
        graph_break(x)
    return _grow(x)


def own_default_list(x, brk, acc=[]):  # noqa: B006
    if brk:
        graph_break(x)
    acc.append(2)
    return x * float(sum(acc))


def _npgrow(t, w=np.ones(3, "float32")):  # noqa: B008 - a numpy default changed in place
    w += 1.0
    return t * paddle.to_tensor(w)


def default_array_augmented(x, brk):
    if brk:
        graph_break(x)
    return _npgrow(x)


def _npitem(t, w=np.zeros(3, "float32")):  # noqa: B008
    w[0] = w[0] + 1.0
    return t + paddle.to_tensor(w)


def default_array_item_written(x, brk):
    if brk:
        graph_break(x)
    return _npitem(x)


def heappush_global(x, brk):
    if brk:
        graph_break(x)
    heapq.heappush(HEAP, 5 - len(HEAP))
    return x * float(HEAP[0]) + float(len(HEAP))


def insort_global(x, brk):
    if brk:
        graph_break(x)
    bisect.insort(SORTED, 3 - len(SORTED))
    return x * float(SORTED[0]) + float(len(SORTED))


def setattr_builtin(x, brk):
    if brk:
        graph_break(x)
    setattr(CFG, "k", CFG.k + 1)  # noqa: B010 - the builtin is what is checked
    return x * float(CFG.k)


def vars_update(x, brk):
    if brk:
        graph_break(x)
    vars(CFG).update(k=CFG.k + 2)
    return x + float(CFG.k)


def numpy_out(x, brk):
    if brk:
        graph_break(x)
    np.add(BUF, 1.0, out=BUF)
    return x * paddle.to_tensor(BUF)


def _state():
    return (helpers.CALLS, Counter.n, list(HOLD), list(_grow.__defaults__[0]),
            list(own_default_list.__defaults__[0]), _npgrow.__defaults__[0].tolist(),
            _npitem.__defaults__[0].tolist(), list(HEAP), list(SORTED), CFG.k, BUF.tolist())


def _set_state(s):
    helpers.CALLS, Counter.n, HOLD[:], _grow.__defaults__[0][:] = s[0], s[1], s[2], s[3]
    own_default_list.__defaults__[0][:] = s[4]
    _npgrow.__defaults__[0][:], _npitem.__defaults__[0][:] = s[5], s[6]
    HEAP[:], SORTED[:], CFG.k, BUF[:] = s[7], s[8], s[9], s[10]


FRESH = (0, 0, [], [], [], [1.0] * 3, [0.0] * 3, [], [], 0, [0.0] * 3)


@pytest.fixture(autouse=True)
def fresh_state():
    _set_state(FRESH)
    yield
    _set_state(FRESH)


@pytest.mark.parametrize("full_graph,brk", BREAK_MODES)
@pytest.mark.parametrize("fn", [other_module_global, class_attribute, list_parameter_augmented,
                                default_list_of_a_helper, own_default_list,
                                default_array_augmented, default_array_item_written,
                                heappush_global, insort_global, setattr_builtin, vars_update,
                                numpy_out], ids=lambda f: f.__name__)
def test_the_change_happens_on_every_call(fn, full_graph, brk):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for i in range(3):
        before = _state()
        got = static(paddle.to_tensor(X), brk).numpy()
        after_static = _state()
        _set_state(before)
        expected = fn(paddle.to_tensor(X), brk).numpy()
        np.testing.assert_allclose(got, expected, err_msg=f"call {i + 1}")
        assert after_static == _state(), f"call {i + 1}"


def local_heap(x):
    h = []
    heapq.heappush(h, 2)
    heapq.heappush(h, 1)
    return x * float(h[0])


def test_a_library_call_on_a_local_list_keeps_one_program():
    static = paddle.jit.to_static(local_heap)
    for _ in range(3):
        np.testing.assert_allclose(static(paddle.to_tensor(X)).numpy(), X)
    assert static.num_programs == 1 and static.graph_breaks == []
