"""A tensor loop whose loop variable changes dtype in its body (int64 -> float32, a Python number
-> a tensor, ...; issue 24, item 10): the loop carries the widened dtype, and the result has
eager's value and dtype for every trip count, 0 included. full_graph=False runs the code that
would show the other dtype as Python (a graph break); one graph (full_graph=True, jit.save)
fails at the loop's line on the calls where eager code would have the other dtype. The widening
steps add a 0-d tensor of another kind, or two 0-d tensors, which Paddle 3.3.1 promotes (it
refuses int64 [3] + float32 [3])."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.onnx.ops_side_effects import UncheckedWarning
from dy2st.static import InputSpec
from tests.autograd import gradcheck
from tests.support import check_user_error

TRIPS = (0, 1, 3)
X = np.array([[1.0, -2.0, 3.0], [0.5, 1.5, -1.0], [2.0, 0.25, 1.0]], "float32")


# ----------------------------------------------------------------------------- the forms
def range_int64_to_float32(x, n):
    s = paddle.zeros([3], "int64")
    for i in range(n):
        s = s + x[0, 0]
    return s


def while_float32_to_float64(x, n):
    s = paddle.zeros([3], "float32")
    i = paddle.zeros([], "int64")
    while i < n:
        s = s + x[0].astype("float64")
        i = i + 1
    return s


def rows_int32_to_int64(x, n):
    s = paddle.zeros([], "int32")
    for r in x[:n]:
        s = s + r[0].astype("int64")
    return s


def bool_to_int64(x, n):
    s = paddle.zeros([3], "bool")
    for i in range(n):
        s = s + x[0, 0].astype("int64")
    return s


def float16_to_float32(x, n):
    s = paddle.zeros([3], "float16")
    for i in range(n):
        s = s + x[0]
    return s


def number_to_tensor(x, n):
    s = 0
    for i in range(n):
        s = s + x[0]
    return s


def number_then_exact_read(x, n):
    s = 0.0
    for r in x[:n]:
        s = s + r.sum()
    return s * x[0]


def nested(x, n):
    s = paddle.zeros([3], "int64")
    for j in range(n):
        for i in range(n - 1):
            s = s + x[0, 0]
    return s


def two_loops(x, n):
    s = paddle.zeros([3], "int64")
    for i in range(n):
        s = s + x[0, 0]
    for i in range(n - 1):
        s = s + x[1, 0].astype("float64")
    return s


def exact_read_after(x, n):
    s = paddle.zeros([3], "int64")
    for i in range(n):
        s = s + x[0, 0]
    return s + x[1, 0], (s > 0).astype("int32"), s.astype("float64"), s.astype("float32") * x[2]


def none_to_tensor(x, n):
    s = None
    for i in range(n):
        s = x[0] * 2.0 if s is None else s + x[0]
    return s


# the forms whose result one graph gives for every trip count (a returned widened value hands
# out the value from before the loop where it ran no turn; exact reads are eager's anyway)
ONE_GRAPH = [range_int64_to_float32, while_float32_to_float64, rows_int32_to_int64,
             bool_to_int64, float16_to_float32, number_to_tensor, number_then_exact_read,
             nested, two_loops, exact_read_after, none_to_tensor]


def times_two(x, n):
    s = paddle.zeros([3], "int64")
    for turn in range(n):
        s = s + x[0, 0]
    return s * 2


def summed(x, n):
    s = paddle.zeros([3], "int64")
    for step in range(n):
        s = s + x[0, 0]
    t = s.sum()
    return t + 1


def nested_times_three(x, n):
    s = paddle.zeros([3], "int64")
    for outer in range(n):
        for i in range(n - 1):
            s = s + x[0, 0]
    return s * 3, s


def number_halved(x, n):
    s = 0
    for half in range(n):
        s = s + x[0]
    return s / 2


# the forms that read the widened value where its dtype shows: one graph fails at zero trips
SHOWS_DTYPE = [(times_two, "for turn in range(n):"), (summed, "for step in range(n):"),
               (nested_times_three, "for outer in range(n):"),
               (number_halved, "for half in range(n):")]


def _call(fn, trips):
    return fn(paddle.to_tensor(X), paddle.to_tensor(trips))


def _same(got, want):
    """Equal values and types: Tensors of one dtype, Python numbers of one type, None."""
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, paddle.Tensor):
        assert isinstance(got, paddle.Tensor) and got.dtype == want.dtype, (got, want)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    else:
        assert type(got) is type(want) and got == want, (got, want)


def _eager_dtypes_differ(fn, trips):
    """Whether eager code gives another dtype (or type) on this trip count than on trips=3."""
    def kinds(v):
        if isinstance(v, (tuple, list)):
            return tuple(kinds(a) for a in v)
        return str(v.dtype) if isinstance(v, paddle.Tensor) else type(v)
    return kinds(_call(fn, trips)) != kinds(_call(fn, 3))


@pytest.mark.parametrize("fn", ONE_GRAPH + [f for f, _ in SHOWS_DTYPE], ids=lambda f: f.__name__)
def test_default_mode_gives_eager_values_and_dtypes_across_calls(fn):
    sf = paddle.jit.to_static(fn)
    for trips in (0, 3, 0, 1, 3):       # one compiled entry (and its regions), every trip count
        _same(_call(sf, trips), _call(fn, trips))


@pytest.mark.parametrize("fn", ONE_GRAPH, ids=lambda f: f.__name__)
def test_one_graph_gives_eager_values_and_dtypes_across_calls(fn):
    sf = paddle.jit.to_static(fn, full_graph=True)
    for trips in (0, 3, 0, 1):
        _same(_call(sf, trips), _call(fn, trips))
    assert sf.num_programs == 1 and not sf.graph_breaks


@pytest.mark.parametrize("fn, loop", SHOWS_DTYPE, ids=lambda v: getattr(v, "__name__", ""))
def test_one_graph_fails_at_the_loop_where_eager_keeps_the_other_dtype(fn, loop):
    sf = paddle.jit.to_static(fn, full_graph=True)
    for trips in TRIPS:
        if not _eager_dtypes_differ(fn, trips):
            _same(_call(sf, trips), _call(fn, trips))
            continue
        with pytest.raises(TypeError, match="when the loop runs no turn, eager code keeps") as info:
            _call(sf, trips)
        check_user_error(info.value, __file__, loop)


def test_a_read_that_shows_the_dtype_is_a_graph_break_at_its_line():
    sf = paddle.jit.to_static(times_two)
    _same(_call(sf, 2), _call(times_two, 2))
    (brk,) = sf.graph_breaks
    assert brk.source == "return s * 2" and "after a turn of it" in brk.reason
    # the loop stays compiled: the region before the break holds the while op
    assert any(op.type == "while" for g in paddle.jit.explain(times_two, paddle.to_tensor(X),
                                                                paddle.to_tensor(2)).graphs
               for op in g.global_block().ops)


def test_code_after_the_loop_compiles_once_per_dtype():
    def f(x, n):
        s = paddle.zeros([3], "int64")
        for i in range(n):
            s = s + x[0, 0]
        k = s.sum()
        return k * 2 + s.max()
    sf = paddle.jit.to_static(f)
    for trips in (0, 2, 0, 3, 1):
        _same(_call(sf, trips), _call(f, trips))
    assert sf.num_programs <= 4     # the loop's region, and one region after it per dtype


# ----------------------------------------------------------------------------- what stays
def test_loops_that_keep_their_dtypes_compile_as_before():
    def f(x, n):
        s = paddle.zeros([3], "float32")
        k = 0
        for i in range(n):
            s = s + x[0]
            k = k + 1
        return s * 2.0, k
    sf = paddle.jit.to_static(f, full_graph=True)
    out = _call(sf, 2)
    np.testing.assert_allclose(out[0].numpy(), X[0] * 4.0)
    program = sf.concrete_program.main_program
    assert not program.widened_before
    ops = [op.type for b in program.blocks for op in b.ops]
    assert "check_defined" not in ops and ops.count("while") == 1


def test_widened_value_inside_the_body_is_not_checked():
    sf = paddle.jit.to_static(range_int64_to_float32, full_graph=True)
    _call(sf, 1)
    program = sf.concrete_program.main_program
    assert [op.type for b in program.blocks for op in b.ops].count("check_defined") == 0


# ----------------------------------------------------------------------------- gradients
def grad_int32(x, n):
    s = paddle.zeros([3], "int32")
    for i in range(n):
        s = s + (x * x).sum()
    return s * 1.5


def grad_number(x, n):
    s = 0
    for r in range(n):
        s = s + x.sin()
    return s * x


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [grad_int32, grad_number], ids=lambda f: f.__name__)
@pytest.mark.parametrize("trips", [1, 3])
def test_gradients_through_the_turns_match_finite_differences(fn, trips, full_graph):
    n = paddle.to_tensor(trips)
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    gradcheck.check(lambda x: fn(x, n), [np.array([0.5, -1.5, 2.0])], static_fn=lambda x: sf(x, n))


def test_no_turn_gives_eager_result_and_gradient():
    sf = paddle.jit.to_static(grad_number, full_graph=True)
    for trips in (2, 0):
        got = []
        for run in (grad_number, sf):
            x = paddle.to_tensor(np.array([0.5, -1.5, 2.0]), stop_gradient=False)
            out = run(x, paddle.to_tensor(trips))
            out.sum().backward()
            got.append((str(out.dtype), out.numpy(), x.grad.numpy()))
        (d0, v0, g0), (d1, v1, g1) = got
        assert d0 == d1
        np.testing.assert_allclose(v1, v0, rtol=1e-6)
        np.testing.assert_allclose(g1, g0, rtol=1e-6)


# ----------------------------------------------------------------------------- saved models
class Accumulate(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x, n):
        s = paddle.zeros([3], "int64")
        for i in range(n):
            s = s + self.fc(x).sum()
        return s


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_loaded_model_fails_at_the_loop_where_eager_keeps_the_other_dtype(full_graph, tmp_path):
    paddle.seed(5)
    net = Accumulate()
    st = paddle.jit.to_static(net, input_spec=[InputSpec([None, 3], "float32"),
                                               InputSpec([], "int64")], full_graph=full_graph)
    path = str(tmp_path / "m")
    paddle.jit.save(st, path)
    loaded = paddle.jit.load(path)
    for trips in TRIPS:
        x, n = paddle.to_tensor(X), paddle.to_tensor(trips)
        want = net(x, n)
        _same(st(x, n), want)           # to_static hands out the value from before the loop
        if trips:
            got = loaded(x, n)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)
            continue
        with pytest.raises(TypeError, match="'s' is int64 before the tensor loop") as info:
            loaded(x, n)
        assert "for i in range(n):" in str(info.value)


def test_onnx_export_says_the_zero_trip_check_is_left_out(tmp_path):
    # an ONNX graph cannot raise: the model gives the widened dtype where no turn ran
    specs = [InputSpec([None, 3], "float32"), InputSpec([], "int64")]
    st = paddle.jit.to_static(Accumulate(), input_spec=specs, full_graph=True)
    with pytest.warns(UncheckedWarning, match="widens a variable's dtype ran a turn"):
        paddle.onnx.export(st, str(tmp_path / "m"), input_spec=specs)
