"""to_static(full_graph=False): every cause of a graph break runs with the eager result, the
code around a break runs as compiled regions, and errors name the user's line."""
import math

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.graph_break.dispatch import state_of
from tests.support import randn, tensor


def regions(sf):
    state = state_of(sf)
    return [] if state is None else state.regions


def steps(sf):
    return [kind for kind, _ in state_of(sf).steps]


def check_calls(fn, inputs, *, static=None, **kwargs):
    """fn through to_static(full_graph=False) equals eager fn on every input (twice over)."""
    sf = static or paddle.jit.to_static(fn, **kwargs)
    for args in list(inputs) + list(inputs):
        want = fn(*args)
        got = sf(*args)
        np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, "numpy") else got),
                                   np.asarray(want.numpy() if hasattr(want, "numpy") else want),
                                   rtol=1e-6, atol=1e-6)
    return sf


# --- the examples ---------------------------------------------------------------------
class SimpleNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(10, 3)

    def forward(self, x, y):
        x = self.linear(x)
        x = x + y
        np_x = x.numpy()
        np_x = np.sum(np_x) * 2
        return paddle.to_tensor(np_x)


def test_simple_net_at_several_batch_sizes():
    paddle.seed(3)
    net = SimpleNet()
    eager = SimpleNet.forward
    paddle.jit.to_static(net, full_graph=False)
    for n in (10, 4, 10, 7, 4):
        x, y = tensor(randn(n, n, 10)), tensor(randn(50 + n, 3))
        np.testing.assert_allclose(net(x, y).numpy(), eager(net, x, y).numpy(), rtol=1e-5)
    sf = net.forward
    assert [b.lineno for b in sf.graph_breaks] == [SimpleNet.forward.__code__.co_firstlineno + 4]
    assert steps(sf) == ["region", "island", "region"]
    assert regions(sf)[0].num_programs == 3          # one per batch size, not per call


def unsupport_func(x):
    x = 2 * x
    t = x.numpy()          # t depends on x's value
    t = np.ones(t)         # a shape taken from a value
    return paddle.to_tensor(t)


def test_shape_taken_from_a_value():
    sf = paddle.jit.to_static(unsupport_func, full_graph=False)
    for v in ([2], [3], [1], [3]):
        assert sf(tensor(v, "int64")).shape == unsupport_func(tensor(v, "int64")).shape
    assert [b.source for b in sf.graph_breaks] == ["t = np.ones(t)         # a shape taken from a value"]


def test_full_graph_true_keeps_the_strict_error():
    sf = paddle.jit.to_static(unsupport_func, full_graph=True)
    with pytest.raises(TypeError, match="In user code:(.|\n)*np.ones"):
        sf(tensor([2], "int64"))


def test_default_is_full_graph_false():
    sf = paddle.jit.to_static(unsupport_func)
    assert sf(tensor([2], "int64")).shape == [4]
    assert len(sf.graph_breaks) == 1


# --- causes -----------------------------------------------------------------------------------
def numpy_between(x, w):
    h = paddle.matmul(x, w)
    if h.mean() > 0:                        # stays a cond op in region 0
        h = h * 2
    idx = np.argsort(h.numpy(), axis=-1)
    return h + paddle.to_tensor(idx).astype("float32")


def test_numpy_function_between_two_regions():
    w = tensor(randn(1, 4, 4))
    sf = check_calls(numpy_between, [(tensor(randn(s, 3, 4, shift=d)), w)
                                     for s, d in ((2, 3.0), (3, -3.0))])
    assert steps(sf) == ["region", "island", "region"]
    first = regions(sf)[0].program
    assert "cond" in str(first) and "matmul" in str(first)
    assert sf.graph_breaks[0].kind == "numpy"
    assert "np.argsort" in sf.graph_breaks[0].reason and "paddle.argsort" in sf.graph_breaks[0].reason


def tolist_feeds_python(x):
    h = x * 2
    v = h.tolist()
    v = sorted(v)
    return paddle.to_tensor(v) + h


def item_feeds_math(x):
    h = x * 2
    r = math.sqrt(abs(h.sum().item()))
    return h * r


def test_tolist_and_item_feeding_python_code():
    check_calls(tolist_feeds_python, [(tensor([3.0, 1.0, 2.0]),), (tensor([0.5, -1.0, 4.0]),)])
    sf = check_calls(item_feeds_math, [(tensor([3.0, 1.0]),), (tensor([-4.0, 1.0]),)])
    assert steps(sf) == ["region", "island", "region"]


def python_decision(x):
    h = x * 2
    big = bool(np.any(h.numpy() > 2))        # a decision made from the tensor's value
    if big:
        h = h + 1
    else:
        h = h * -1
    return h.sum()


def test_python_decision_flipping_between_calls():
    inputs = [(tensor([3.0, 1.0]),), (tensor([0.5, -1.0]),)] * 3
    sf = check_calls(python_decision, inputs)
    after = regions(sf)[1]
    assert after.num_programs == 2                   # one entry per value of `big`, both right


def try_around_tensor_if(x):
    y = x * 2
    try:
        if y.sum() > 0:
            y = y + 1
    except ValueError:
        y = y - 1
    return y * 3


def test_tensor_if_inside_try_is_an_island():
    sf = check_calls(try_around_tensor_if, [(tensor([1.0, 2.0]),), (tensor([-5.0, 1.0]),)])
    assert steps(sf) == ["region", "island", "region"]
    assert "try" in sf.graph_breaks[0].reason


def nested_generator(x):
    def gen(t):
        for k in range(3):
            yield t * k
    h = x + 1
    acc = h * 0
    for v in gen(h):
        acc = acc + v
    return acc


def test_nested_generator():
    sf = check_calls(nested_generator, [(tensor([1.0, 2.0]),), (tensor([-3.0, 0.5]),)])
    assert steps(sf) == ["island", "region"]
    assert "yield" in sf.graph_breaks[0].reason


COUNTER = 0


def global_in_branch(x):
    global COUNTER
    y = x + 1
    if y.sum() > 0:
        COUNTER += 1
    return y * 2


def test_global_write_inside_an_if():
    global COUNTER
    sf = paddle.jit.to_static(global_in_branch)
    COUNTER = 0
    for v in ([1.0, 2.0], [-5.0, 1.0], [1.0, 2.0]):
        np.testing.assert_allclose(sf(tensor(v)).numpy(), (np.array(v) + 1) * 2)
    assert COUNTER == 2                             # once per call with a positive sum
    assert "global" in sf.graph_breaks[0].reason


_ns = {"np": np}
exec("def helper_without_source(t):\n    return float(np.asarray(t).sum())\n", _ns)
helper_without_source = _ns["helper_without_source"]


def calls_code_without_source(x):
    h = x * 2
    s = helper_without_source(h)
    return h + s


def test_call_into_code_without_source():
    sf = check_calls(calls_code_without_source, [(tensor([1.0, 2.0]),), (tensor([3.0, 2.0]),)])
    assert steps(sf) == ["region", "island", "region"]


def test_function_without_source_runs_eagerly():
    ns = {"paddle": paddle, "np": np}
    exec("def f(x):\n    return paddle.to_tensor(np.sum(x.numpy())) + x\n", ns)
    with pytest.warns(UserWarning, match="runs f eagerly"):
        sf = check_calls(ns["f"], [(tensor([1.0, 2.0]),), (tensor([3.0, 4.0]),)])
    assert "source" in sf.graph_breaks[0].reason


def appends_to_argument(x, out):
    h = x * 2
    out.append(h)
    return h + 1


def test_side_effect_on_an_argument_list():
    sf = paddle.jit.to_static(appends_to_argument)
    got, want = [], []
    for v in ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0]):
        np.testing.assert_allclose(sf(tensor(v), got).numpy(),
                                   appends_to_argument(tensor(v), want).numpy())
    assert [g.numpy().tolist() for g in got] == [w.numpy().tolist() for w in want]
    assert sf.graph_breaks[0].kind == "side-effect" and "out" in sf.graph_breaks[0].reason


class Counting(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.linear = paddle.nn.Linear(2, 2)

    def forward(self, x):
        self.calls += 1
        return self.linear(x) * 2


def test_side_effect_on_python_state_of_the_layer():
    net = paddle.jit.to_static(Counting(), full_graph=False)
    for _ in range(4):
        net(tensor(randn(0, 3, 2)))
    assert net.calls == 4
    assert regions(net.forward)[0].num_programs == 1


# --- granularity, control flow, order --------------------------------------------------------
def early_return_before_island(x, flag):
    h = x * 3
    if flag:
        return h
    s = np.median(h.numpy())
    return h - paddle.to_tensor(s)


def test_early_return_before_an_island():
    check_calls(early_return_before_island, [(tensor([1.0, 5.0, 2.0]), True),
                                             (tensor([1.0, 5.0, 2.0]), False),
                                             (tensor([4.0, 0.0, 2.0]), False)])


def island_in_tensor_branch(x):
    h = x + 1
    if h.sum() > 0:
        h = h + paddle.to_tensor(np.cumsum(h.numpy()))
    return h * 2


def island_in_loop(x, n):
    h = x
    for i in range(n):
        h = h + paddle.to_tensor(np.flip(h.numpy()).copy())
        if i == 1:
            break
    return h


def island_in_tensor_while(x):
    k = 0
    while x.sum() < 20:
        x = x + paddle.to_tensor(np.abs(x.numpy()) + 1)
        k += 1
    return x, k


def test_islands_inside_control_flow():
    check_calls(island_in_tensor_branch, [(tensor([1.0, 2.0]),), (tensor([-5.0, 1.0]),)])
    check_calls(island_in_loop, [(tensor([1.0, 2.0]), 3), (tensor([1.0, 2.0]), 1),
                                 (tensor([1.0, 2.0]), 0)])
    sf = paddle.jit.to_static(island_in_tensor_while)
    for v in ([1.0, 2.0], [0.5, 0.0], [30.0, 1.0]):
        got, want = sf(tensor(v)), island_in_tensor_while(tensor(v))
        np.testing.assert_allclose(got[0].numpy(), want[0].numpy())
        assert got[1] == want[1]


def decision_in_the_header(x, w):
    h = paddle.matmul(x, w)
    if np.sum(h.numpy()) > 0:                   # the header breaks: it runs as Python
        h = paddle.nn.functional.relu(h) * 2
        h = h + 1
    else:
        h = paddle.tanh(h) - 1
    return h.mean(axis=-1)


def test_a_header_that_breaks_keeps_both_branches_compiled():
    w = tensor(randn(0, 4, 4))
    sf = check_calls(decision_in_the_header, [(tensor(randn(s, 3, 4, shift=d)), w)
                                              for s, d in ((1, 4.0), (2, -4.0))])
    assert steps(sf) == ["region", "open", "region"]
    assert len(regions(sf)) == 4                # before, each branch, after
    assert all(r.num_programs == 1 for r in regions(sf))
    assert sf.graph_breaks[0].source == "if np.sum(h.numpy()) > 0:                   # the header breaks: it runs as Python"


def island_in_a_python_loop(x, n):
    for i in range(n):
        x = paddle.tanh(x) * 2                   # compiled, each turn
        m = float(np.median(x.numpy()))          # Python
        x = x - m                                # compiled, each turn
        if i == 2:
            break
    return x.sum()


def test_an_island_inside_a_loop_leaves_the_rest_of_the_body_compiled():
    sf = check_calls(island_in_a_python_loop, [(tensor([1.0, 2.0, 5.0]), 4),
                                               (tensor([0.5, -2.0, 1.0]), 2),
                                               (tensor([0.5, -2.0, 1.0]), 0)])
    assert steps(sf) == ["open", "region"]
    body = [r for r in regions(sf) if "tanh" in str(r.program)]
    assert len(body) == 1 and body[0].num_programs == 1


def prints_around_a_break(x):
    h = x * 2
    t = np.sum(h.numpy())
    print("island", float(t))
    return h + t


def test_print_in_an_island_runs_once_per_call_in_order(capsys):
    sf = paddle.jit.to_static(prints_around_a_break)
    sf(tensor([1.0, 2.0]))
    capsys.readouterr()
    for v in ([1.0, 2.0], [3.0, 4.0]):
        sf(tensor(v))
    assert capsys.readouterr().out == "island 6.0\nisland 14.0\n"


def two_breaks_on_different_paths(x, k):
    h = x * 2
    a = np.sum(h.numpy())
    if k > 0:
        h = h + paddle.to_tensor(np.cumsum(h.numpy()))
    return h + a


def test_breaks_on_a_new_path_are_found_and_every_call_is_right():
    sf = check_calls(two_breaks_on_different_paths, [(tensor([1.0, 2.0]), 0),
                                                    (tensor([1.0, 2.0]), 1),
                                                    (tensor([3.0, 2.0]), 1),
                                                    (tensor([3.0, 2.0]), 0)])
    assert len(sf.graph_breaks) == 2
    assert steps(sf) == ["region", "island", "open", "region"]


def no_break(x):
    if x.mean() > 0:
        x = x * 2
    return x + 1


def test_no_break_gives_the_single_program_of_full_graph():
    loose = paddle.jit.to_static(no_break)
    strict = paddle.jit.to_static(no_break, full_graph=True)
    for v in ([1.0, 2.0], [-3.0, 1.0], [2.0, 2.0]):
        np.testing.assert_allclose(loose(tensor(v)).numpy(), strict(tensor(v)).numpy())
    assert loose.num_programs == strict.num_programs == 1
    assert loose.graph_breaks == [] and state_of(loose) is None
    assert str(loose.program) == str(strict.program)


# --- errors -----------------------------------------------------------------------------------
def fails_in_island(x):
    h = x * 2
    n = int(np.sum(h.numpy()))
    z = np.ones(n)
    return h + z.sum()


def fails_in_region(x, w):
    h = x * 2
    s = np.sum(h.numpy())
    return paddle.matmul(h, w) + s


def test_errors_name_the_user_line_in_islands_and_regions():
    from tests.support import check_user_error
    here = __file__
    sf = paddle.jit.to_static(fails_in_island)
    sf(tensor([1.0, 2.0]))
    with pytest.raises(ValueError) as info:
        sf(tensor([-1.0, -2.0]))
    assert "In user code:" in str(info.value)
    check_user_error(info.value, here, "z = np.ones(n)")
    sf = paddle.jit.to_static(fails_in_region)
    sf(tensor(randn(0, 2, 3)), tensor(randn(1, 3, 2)))
    with pytest.raises(ValueError) as info:
        sf(tensor(randn(0, 2, 3)), tensor(randn(1, 4, 2)))
    assert "In user code:" in str(info.value)
    check_user_error(info.value, here, "return paddle.matmul(h, w) + s")


def numpy_values_after_a_break(x):
    h = x * 2
    y = h.numpy()
    top = np.argsort(-y, axis=-1)[..., :2]
    best = np.take_along_axis(y, top, -1).sum(-1)
    scale = np.float32(0.5) * best.max()
    return paddle.to_tensor(best) * scale, top, scale, y.shape[0]


def test_values_keep_their_eager_types_across_regions():
    sf = paddle.jit.to_static(numpy_values_after_a_break)
    for seed in (0, 1, 2, 3):
        x = tensor(randn(seed, 3, 4))
        got, want = sf(x), numpy_values_after_a_break(x)
        assert [type(v) for v in got] == [type(v) for v in want]
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g.numpy() if hasattr(g, "numpy") else g),
                                       np.asarray(w.numpy() if hasattr(w, "numpy") else w),
                                       rtol=1e-6)


LAST = None


def stores_a_tensor_globally(x):
    global LAST
    h = x * 2
    LAST = h
    return h + 1


def test_a_tensor_stored_into_a_global():
    global LAST
    sf = paddle.jit.to_static(stores_a_tensor_globally)
    for v in ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0]):
        np.testing.assert_allclose(sf(tensor(v)).numpy(), np.array(v) * 2 + 1)
        assert type(LAST) is paddle.Tensor
        np.testing.assert_allclose(LAST.numpy(), np.array(v) * 2)
    assert sf.graph_breaks[0].source == "LAST = h"
