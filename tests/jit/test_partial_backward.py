"""A backward reaching only some outputs of a to_static call runs no gradient op of the others,
through a tensor `if` and a tensor loop too: zero seeds for them made `0 * inf = NaN` (sqrt,
log, rsqrt, pow(x, 0.5), division at 0) in a gradient eager gives as a number."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd.absent_gradients import Unsupported, prune_absent
from dy2st.runtime.program import Operator, Program

W = np.array([0.7, 1.1, 0.4], "float32")
# a zero (the unused output's gradient is inf there), every branch and trip count
XS = [np.array(v, "float32") for v in ([0.0, 1.0, 4.0], [0.0, -1.0, -4.0], [0.0, 0.2, 0.1],
                                      [0.0, 0.3, 0.6])]


def _turns(x):
    return (x > 0.5).astype("int64").sum()      # 2, 0, 0 and 1 turns for XS


def cond_one_branch(x, w):
    a = (x * w).sin()
    if x.sum() > 0:
        b = x.sqrt()
    else:
        b = x * 2.0
    return a, b


def cond_both(x, w):
    if x.sum() > 0:
        a, b = (x * w).sin(), x.log()
    else:
        a, b = (x * w).cos(), x.rsqrt()
    return a, b


def loop_body(x, w):
    a = (x * w).tanh()
    b = x * 1.0
    k = paddle.zeros([], "int64")
    while k < _turns(x):
        b = b.pow(0.5) + 1.0 / b
        k = k + 1
    return a, b.sqrt()


def loop_both(x, w):
    a, b = x * w, x * 1.0
    k = paddle.zeros([], "int64")
    while k < _turns(x) + 1:
        a = a.sin() * w
        b = b.sqrt() + w / (b * 1.0)
        k = k + 1
    return a, b


def cond_in_loop(x, w):
    a, b = x * w, x * 1.0
    k = paddle.zeros([], "int64")
    while k < _turns(x) + 1:
        if a.sum() > 0:
            b = b.rsqrt() + b.log()
        else:
            b = b.pow(0.5)
        a = a.sin() * w
        k = k + 1
    return a, b


def branch_gives_none(x, w):
    # x.sqrt()'s gradient comes from the true branch only: the false one gives none, not 0 * inf
    h = x.sqrt()
    if x.sum() > 100.0:
        a = (x * w).sin() + h
    else:
        a = (x * w).sin()
    return a, h * 2.0


def branch_gives_none_in_loop(x, w):
    a, h = x * w, x * 1.0
    k = paddle.zeros([], "int64")
    while k < _turns(x) + 1:
        r = h.log()
        if a.sum() > 100.0:
            a = a + r
        else:
            a = a * w
        k = k + 1
    return a, r


def two_ifs(x, w):
    # the second `if` overwrites a: no gradient reaches the first one's sqrt (tools/
    # fuzz_partial.py, minimised); a flag masked at a `cond` gradient's input gave zeros that
    # the branch's own sqrt gradient made 0 * inf
    a, b = x * w, x * 1.0
    if (x * 0.5).sum() < 2.5:
        a = a.sqrt()
    if a.sum() > 0.0:
        a = 1.0 / b
    return b, a


def loops_over_an_if(x, w):
    # b's gradient out of the loops: zeros no seed reaches (each inner turn overwrites b),
    # then the `if` before them divides it by b = 0 (log); the inner loop ends flagged
    a, b, c = x * w, x * 1.0, x * 0.5
    if c.sum() > 2.5:
        c = c.pow(0.5)
    else:
        b = b.log()
    if c.sum() < 2.5:
        b = (c * w).sin()
    k = paddle.zeros([], "int64")
    while k < _turns(x):
        for _ in range(_turns(x)):
            b = b.tanh()
            b = 1.0 / a
        k = k + 1
    return c, b


def a_branch_local_in_a_loop(x, w):
    # c, assigned under the `if` only, is a loop variable the seed of `a` never reaches: its
    # gradient turn is cut, and the loop's result for it was left to the cut op, so the pruned
    # program read a value nothing assigned (UnboundLocalError; tools/fuzz_partial.py 1000030)
    a, b = x * w, x * 1.0
    for _ in range((x >= 0.0).astype("int64").sum() - 1):
        if b.sum() > 1.0:
            c = (a * w).sin()
            b = a * 0.5 + b
    return a, b


PROGRAMS = [cond_one_branch, cond_both, loop_body, loop_both, cond_in_loop,
            branch_gives_none, branch_gives_none_in_loop, two_ifs, loops_over_an_if,
            a_branch_local_in_a_loop]


def _grad(t):
    # (None as zeros: whether a leaf that no path reached gets None is tests/jit's concern)
    return np.zeros(t.shape, "float32") if t.grad is None else t.grad.numpy().copy()


def _run(fn, x, first, retain):
    xt = paddle.to_tensor(x, stop_gradient=False)
    wt = paddle.to_tensor(W, stop_gradient=False)
    outs = fn(xt, wt)
    outs[first].sum().backward(retain_graph=retain)
    got = [_grad(xt), _grad(wt)]
    if retain:
        with np.errstate(all="ignore"):
            outs[1 - first].sum().backward()     # the other output then: inf as eagerly
        got += [_grad(xt), _grad(wt)]
    return got


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_the_used_output_alone_gives_eagers_gradient(fn, full_graph):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for x in XS:
        with np.errstate(all="ignore"):
            want = _run(fn, x, 0, retain=True)
            got = _run(static, x, 0, retain=True)
        assert np.isfinite(want[0]).all() and np.isfinite(want[1]).all()
        for u, v in zip(want, got):
            np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-6)


def test_a_loop_variable_given_a_gradient_from_the_second_turn_back():
    # b's gradient starts absent and is present from the second turn back (b feeds a): the
    # last turn's sqrt, at 0 there, must not make 0 * inf in the first turn back
    def f(x, w):
        a, b = x * w, x * 1.0
        k = paddle.zeros([], "int64")
        while k < 3:
            a = a * 0.5 + b
            b = (x - k.astype("float32")).abs().sqrt() + w
            k = k + 1
        return a, b

    static = paddle.jit.to_static(f)
    x = np.array([2.0, 0.3, 5.0], "float32")
    want, got = (_run(fn, x, 0, retain=False) for fn in (f, static))
    assert np.isfinite(want[0]).all()
    for u, v in zip(want, got):
        np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [branch_gives_none, branch_gives_none_in_loop],
                         ids=lambda f: f.__name__)
def test_a_full_backward_takes_no_gradient_from_a_path_not_taken(fn):
    # every output seeded: the zeros a branch (or a turn that overwrites r) gives for x.sqrt()
    # or h.log() met their inf at 0, and eager never visits those ops
    def total(x, w):
        a, b = fn(x, w)
        return a.sum() + b.sum() * 0.5

    static = paddle.jit.to_static(total)
    for x in XS:
        got = []
        for f in (total, static):
            xt = paddle.to_tensor(x, stop_gradient=False)
            wt = paddle.to_tensor(W, stop_gradient=False)
            with np.errstate(all="ignore"):
                f(xt, wt).backward()
            got.append((xt.grad.numpy(), wt.grad.numpy()))
        for u, v in zip(*got):
            np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-6)


def read_in_a_loop(x, w):
    # tools/fuzz_partial.py seed 4000021: a is read only in the loop; with no turn, b's
    # gradient gave a zeros that met sqrt's inf at 0 (eager never visits a's ops for b)
    a = (x * 0.5).sqrt()
    b = x * w
    k = paddle.zeros([], "int64")
    while k < _turns(x):
        b = a.pow(0.5)
        k = k + 1
    return b, a


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_value_read_in_a_loop_of_no_turn_for_the_other_output(create_graph):
    static = paddle.jit.to_static(read_in_a_loop)
    for x in XS:
        with np.errstate(all="ignore"):
            want, got = ((_second_order(f, x, 0) if create_graph else _run(f, x, 0, True))
                         for f in (read_in_a_loop, static))
        if _turns(paddle.to_tensor(x)) == 0:
            assert np.isfinite(want[0]).all()
        for u, v in zip(want, got):
            np.testing.assert_allclose(v, u, rtol=1e-4, atol=1e-5, equal_nan=True)


def test_the_partial_gradient_agrees_with_finite_differences():
    static = paddle.jit.to_static(loop_both)
    x = XS[0]
    got = _run(static, x, 0, retain=False)[0]
    eps = 1e-3
    num = np.zeros(3)
    for i in range(3):
        e = np.zeros(3, "float64")
        e[i] = eps
        up, down = (static(paddle.to_tensor((x + s * e).astype("float32")),
                           paddle.to_tensor(W))[0].numpy().sum() for s in (1, -1))
        num[i] = (up - down) / (2 * eps)
    np.testing.assert_allclose(got, num, rtol=2e-2, atol=2e-3)


@pytest.mark.parametrize("first", [0, 1])
def test_a_branch_local_in_a_loop_agrees_with_finite_differences(first):
    static = paddle.jit.to_static(a_branch_local_in_a_loop)
    x = np.array([0.5, 1.0, 4.0], "float32")     # 2 turns, the `if` taken in both
    got = _run(static, x, first, retain=False)
    eps = 1e-3
    for k, arg in enumerate((x, W)):
        num = np.zeros(3)
        for i in range(3):
            e = np.zeros(3, "float32")
            e[i] = eps
            args = [paddle.to_tensor(x), paddle.to_tensor(W)]
            sums = []
            for sign in (1, -1):
                args[k] = paddle.to_tensor(arg + sign * e)
                sums.append(float(static(*args)[first].numpy().astype("float64").sum()))
            num[i] = (sums[0] - sums[1]) / (2 * eps)
        np.testing.assert_allclose(got[k], num, rtol=2e-2, atol=2e-3)


def item_then_a_loop_changing_a_list_entry(x):
    # tools/fuzz.py 7021021152, minimised: the region after the `.item()` break returns the
    # sum and the list entry it changes in place; the backward reaches the sum only, and the
    # pruned gradient program failed with UnboundLocalError from the second input shape on
    h = x.mean(axis=0)
    g = x.max(axis=0) * 0.5
    s = x.sum() * 0.1
    acc = [h * 0.0]
    text = f"{s.item():.3f}"
    for _ in range(x.shape[0]):
        for e in acc:
            if e.sum() > s:
                e.multiply_(g)
    return h + g + paddle.stack(acc).sum(axis=0) + float(text)


def test_a_graph_break_region_backwarded_from_one_of_its_outputs():
    static = paddle.jit.to_static(item_then_a_loop_changing_a_list_entry, full_graph=False,
                                  input_spec=[paddle.static.InputSpec([None, 3], "float32")])
    x3 = np.array([[0.8, 0.85, -0.75], [0.05, -0.04, -0.7], [-0.84, -0.8, -0.48]], "float32")
    for x in (x3[:1], x3, x3[:2], x3):
        got = []
        for fn in (item_then_a_loop_changing_a_list_entry, static):
            xt = paddle.to_tensor(x, stop_gradient=False)
            y = fn(xt)
            (y * y).sum().backward()
            got.append(xt.grad.numpy())
        np.testing.assert_allclose(got[1], got[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [cond_both, cond_in_loop], ids=lambda f: f.__name__)
def test_paddle_grad_of_one_output(fn):
    static = paddle.jit.to_static(fn)
    for x in XS[:2]:
        got = []
        for f in (fn, static):
            xt = paddle.to_tensor(x, stop_gradient=False)
            wt = paddle.to_tensor(W, stop_gradient=False)
            with np.errstate(all="ignore"):
                a, b = f(xt, wt)
                gx, gw = paddle.grad(a.sum(), [xt, wt], retain_graph=True)
                (hx,) = paddle.grad(b.sum(), [xt])
            got.append((gx.numpy(), gw.numpy(), hx.numpy()))
        assert np.isfinite(got[0][0]).all()
        for u, v in zip(*got):
            np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-6)


def _second_order(fn, x, first):
    """paddle.grad of one output with create_graph=True, then a backward of its squares."""
    xt = paddle.to_tensor(x, stop_gradient=False)
    wt = paddle.to_tensor(W, stop_gradient=False)
    outs = fn(xt, wt)
    grads = paddle.grad(outs[first].sum(), [xt, wt], create_graph=True, allow_unused=True)
    terms = [(g * g).sum() for g in grads if g is not None and not g.stop_gradient]
    if terms:
        sum(terms[1:], terms[0]).backward()
    return [np.zeros(3, "float32") if g is None else g.numpy() for g in grads] + \
        [_grad(xt), _grad(wt)]


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_second_order_gradients_of_one_output(fn):
    # the create_graph replay of one output's gradient replays the pruned program: the full
    # one, with zeros seeding the other output, met its 0 * inf (also in the second backward)
    static = paddle.jit.to_static(fn)
    for x in XS:
        with np.errstate(all="ignore"):
            want, got = (_second_order(f, x, 0) for f in (fn, static))
        assert np.isfinite(want[0]).all()
        for u, v in zip(want, got):
            np.testing.assert_allclose(v, u, rtol=1e-4, atol=1e-5, equal_nan=True)


def test_second_order_gradients_of_one_output_agree_with_finite_differences():
    # d/dx of |d a / d(x, w)|^2 against central differences of the to_static call's own
    # first-order gradient of a alone (both finite at this x)
    static = paddle.jit.to_static(cond_both)
    x = np.array([0.5, 1.0, 2.0], "float32")
    got = _second_order(static, x, 0)[2]

    def norm(v):
        xt = paddle.to_tensor(v.astype("float32"), stop_gradient=False)
        wt = paddle.to_tensor(W, stop_gradient=False)
        gx, gw = paddle.grad(static(xt, wt)[0].sum(), [xt, wt])
        return float((gx.numpy().astype("float64") ** 2).sum() + (gw.numpy() ** 2).sum())
    eps = 1e-2
    num = [(norm(x + eps * e) - norm(x - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(got, num, rtol=2e-2, atol=1e-2)


class TwoHeads(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            aux = (h * h).sqrt() + x.sqrt()
        else:
            aux = x.log()
        return h.tanh(), aux


def test_parameters_of_a_layer_and_after_jit_load(tmp_path):
    paddle.seed(3)
    layer = TwoHeads()
    x = np.array([[0.0, 1.0, 2.0]], "float32")
    static = paddle.jit.to_static(TwoHeads())
    static.set_state_dict(layer.state_dict())
    paddle.jit.save(static, str(tmp_path / "m"),
                    input_spec=[paddle.static.InputSpec([1, 3], "float32")])
    loaded = paddle.jit.load(str(tmp_path / "m"))
    loaded.train()
    got = []
    for model in (layer, static, loaded):
        xt = paddle.to_tensor(x, stop_gradient=False)
        with np.errstate(all="ignore"):
            head, _ = model(xt)
        head.sum().backward()
        params = {p.name.split(".")[-1] if p.name else i: p for i, p in
                  enumerate(model.parameters())}
        got.append([xt.grad.numpy()] + [p.grad.numpy() for p in params.values()])
        model.clear_gradients()
    assert np.isfinite(got[0][0]).all()
    for other in got[1:]:
        for u, v in zip(got[0], other):
            np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-6)


def test_no_grad_sections_and_stop_gradient_inputs_leak_no_inf():
    def f(x, w):
        h = x * 1.0
        k = paddle.zeros([], "int64")
        while k < 2:
            with paddle.no_grad():
                c = h.sqrt()
            h = h * 0.5 + c * w.log()
            k = k + 1
        return h, (x * w).rsqrt()

    static = paddle.jit.to_static(f)
    x = XS[0]
    w = np.array([0.0, 1.1, 0.4], "float32")
    got = []
    for fn in (f, static):
        xt = paddle.to_tensor(x, stop_gradient=False)
        wt = paddle.to_tensor(w)        # stop_gradient: its log's gradient (inf) is never formed
        with np.errstate(all="ignore"):
            fn(xt, wt)[0].sum().backward()
        got.append(xt.grad.numpy())
    assert np.isfinite(got[0]).all()
    np.testing.assert_allclose(got[1], got[0], rtol=1e-5)


def _concat_program(absent_shape):
    # the gradient of a multi-output op: a present gradient beside an absent one (computed from
    # the absent seed gs) needs zeros of the absent one's shape
    program = Program()
    g = program.global_block()
    for name in ("ga", "gs", "gb", "out"):
        g.create_var([-1], paddle.float32, name=name)
    g.vars["gb"]._shape = absent_shape
    g.ops.append(Operator("sqrt", ["gs"], ["gb"], {}))
    g.ops.append(Operator("concat", ["ga", "gb"], ["out"], {"axis": 0}))
    program.feed_names, program.fetch_names = ["ga", "gs"], ["out"]
    return program, g


def test_a_zero_of_unknown_shape_is_refused_by_the_pruner():
    program, g = _concat_program((-1,))
    with pytest.raises(Unsupported, match="unknown shape"):
        prune_absent(program, ["ga", "gs"], ["gs"])
    program, g = _concat_program((2,))
    assert prune_absent(program, ["ga", "gs"], ["gs"]) == [True]
    assert [op.type for op in g.ops] == ["full", "concat"]


def test_an_absent_seed_of_unknown_shape_stands_for_its_zeros():
    # the call feeds an absent seed zeros of its output's shape: no zero needs making
    program = Program()
    g = program.global_block()
    for name in ("ga", "gb", "out"):
        g.create_var([-1], paddle.float32, name=name)
    g.ops.append(Operator("concat", ["ga", "gb"], ["out"], {"axis": 0}))
    program.feed_names, program.fetch_names = ["ga", "gb"], ["out"]
    assert prune_absent(program, ["ga", "gb"], ["gb"]) == [True]
    assert [(op.type, op.inputs) for op in g.ops] == [("concat", ["ga", "gb"])]


def test_a_loop_gradient_starting_from_an_absent_seed_of_unknown_shape():
    # b's gradient starts absent (the seed of the output not used) and a later turn back gives
    # it one; with a None dim the pruned program still runs, so sqrt at 0 makes no 0 * inf
    def f(x, w):
        a, b = x * w, x * 1.0
        k = paddle.zeros([], "int64")
        while k < 3:
            a = a * 0.5 + b
            b = (x - k.astype("float32")).abs().sqrt() + w
            k = k + 1
        return a, b

    spec = [paddle.static.InputSpec([None], "float32")] * 2
    static = paddle.jit.to_static(f, input_spec=spec)
    x = np.array([2.0, 0.3, 5.0], "float32")
    want, got = (_run(fn, x, 0, retain=False) for fn in (f, static))
    assert np.isfinite(want[0]).all()
    for u, v in zip(want, got):
        np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-6)
