"""`y.stop_gradient = False` in a to_static function on a value that needs no gradient on the call
(a detach, a value computed under no_grad or from tensors that need none) makes `y` a new leaf,
as eager code: the outputs computed from it need a gradient, a returned `y` is a leaf that gets
`.grad` from the call's backward and from later eager code, in both full_graph settings; on a
value that needs a gradient it changes nothing."""
import json

import numpy as np
import pytest

import dy2st as paddle

X = np.array([1.0, -2.0, 0.5], "float32")
W = np.array([0.5, 1.5, -1.0], "float32")


def _detached(x, w):
    y = x.detach()
    y.stop_gradient = False
    return (y * w).sum(), y


def _under_no_grad(x, w):
    with paddle.no_grad():
        y = x * 2.0
    y.stop_gradient = False
    return (y * y * w).sum(), y


def _computed(x, w):
    y = x * 2.0             # needs a gradient when x does: then the flag changes nothing
    y.stop_gradient = False
    return (y * w).sum(), y


def _not_returned(x, w):
    y = paddle.exp(x.detach())
    y.stop_gradient = False
    return (y * w).sum()


def _chained(x, w):
    a = x.detach()
    a.stop_gradient = False
    b = a * 3.0             # computed from the new leaf: not a leaf itself
    b.stop_gradient = False
    return (b * w).sum(), a, b


def _run(fn, needs, later):
    x, w = (paddle.to_tensor(a, stop_gradient=not n) for a, n in zip((X, W), needs))
    out = fn(x, w)
    out = out if isinstance(out, tuple) else (out,)
    z, rest = out[0], out[1:]
    state = [z.stop_gradient] + [(t.stop_gradient, t.is_leaf) for t in rest]
    z.backward(retain_graph=later)
    if later and rest:
        (rest[0] * rest[0]).sum().backward()     # eager code after the call adds to the leaf's grad
    grads = [None if t.grad is None else t.grad.numpy() for t in (x, w) + tuple(rest)]
    return state, grads


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [_detached, _under_no_grad, _computed, _not_returned, _chained],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("needs", [(True, True), (False, True), (False, False)],
                         ids=["both", "w", "none"])
def test_a_new_leaf_agrees_with_eager(fn, needs, full_graph):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for later in (False, True):
        want, got = _run(fn, needs, later), _run(static, needs, later)
        assert got[0] == want[0]
        for g, w in zip(got[1], want[1]):
            assert (g is None) == (w is None)
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=1e-6)


def _in_a_branch(x, w):
    y = x.detach()
    if x.sum() > 0:
        y.stop_gradient = False
    return (y * w).sum()


def test_a_new_leaf_on_some_paths_is_refused_at_its_line():
    static = paddle.jit.to_static(_in_a_branch)
    x, w = paddle.to_tensor(X), paddle.to_tensor(W, stop_gradient=False)
    with pytest.raises(paddle.autograd.GradientError if hasattr(paddle.autograd, "GradientError")
                       else RuntimeError, match=r"test_new_leaves.py\", line \d+.*some paths"):
        static(x, w)


def test_create_graph_through_a_new_leaf_is_refused():
    static = paddle.jit.to_static(_detached)
    x, w = paddle.to_tensor(X), paddle.to_tensor(W, stop_gradient=False)
    z, y = static(x, w)
    with pytest.raises(RuntimeError, match="new leaf"):
        paddle.grad([z], [w], create_graph=True)


def _input_made_leaf(x, w):
    x.stop_gradient = False
    return (x * w).sum()


@pytest.mark.parametrize("full_graph", [True, False])
def test_an_input_set_to_need_a_gradient_changes_the_callers_tensor(full_graph):
    static = paddle.jit.to_static(_input_made_leaf, full_graph=full_graph)
    for run in (_input_made_leaf, static):
        x, w = paddle.to_tensor(X), paddle.to_tensor(W)
        z = run(x, w)
        assert not z.stop_gradient and not x.stop_gradient
        z.backward()
        np.testing.assert_allclose(x.grad.numpy(), W)
        assert w.grad is None


def _to_tensor_copy(x, w):
    # eagerly a copy that is a new leaf: x's gradient comes through `* x` only
    y = paddle.to_tensor(x * 2.0, stop_gradient=False)
    return (y * x * w).sum(), y


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_to_tensor_copy_that_needs_a_gradient_is_a_new_leaf(full_graph):
    # the copy was an `assign`, so the gradient flowed back through it into x (audit round 5)
    grads = []
    for fn in (_to_tensor_copy, paddle.jit.to_static(_to_tensor_copy, full_graph=full_graph)):
        x = paddle.to_tensor(X, stop_gradient=False)
        loss, y = fn(x, paddle.to_tensor(W))
        loss.backward()
        assert not y.stop_gradient
        grads.append((x.grad.numpy(), y.grad.numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-6)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-6)


class _Head(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.fc.weight.set_value(np.eye(3, dtype="float32") * 0.5 + 0.1)

    def forward(self, x):
        y = self.fc(x).detach()
        y.stop_gradient = False
        return (y * y).sum(), y, self.fc(x) * y


class _NoGradHead(_Head):
    def forward(self, x):
        with paddle.no_grad():
            y = self.fc(x)
        y.stop_gradient = False
        return y * 2.0          # depends on nothing else that needs a gradient


def _fine_tune(model, x_needs):
    x = paddle.to_tensor(X[None], stop_gradient=not x_needs)
    out = model(x)
    out = out if isinstance(out, tuple) else (out,)
    flags = [(o.stop_gradient, o.is_leaf) for o in out]
    sum(o.sum() for o in out).backward()
    params = sorted(model.parameters(), key=lambda p: p.name)
    grads = [None if t.grad is None else t.grad.numpy() for t in params + list(out) + [x]]
    model.clear_gradients(set_to_zero=False)
    return flags, grads


@pytest.mark.parametrize("cls", [_Head, _NoGradHead], ids=lambda c: c.__name__)
def test_a_loaded_model_keeps_its_new_leaves(cls, tmp_path):
    # the file lost them: the outputs computed from the leaf stopped gradients (a backward
    # from them alone raised), a returned leaf got no `.grad`
    spec = [paddle.static.InputSpec([None, 3], "float32")]
    paddle.jit.save(cls(), str(tmp_path / "m"), input_spec=spec)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    loaded.train()
    for x_needs in (False, True):
        want, got = _fine_tune(cls(), x_needs), _fine_tune(loaded, x_needs)
        assert got[0] == want[0]
        assert [g is None for g in got[1]] == [g is None for g in want[1]]
        for g, w in zip(got[1], want[1]):
            if w is not None:
                np.testing.assert_allclose(g, w, rtol=1e-6)


def test_the_file_lists_new_leaves_as_format_version_4(tmp_path):
    spec = [paddle.static.InputSpec([None, 3], "float32")]
    paddle.jit.save(_Head(), str(tmp_path / "m"), input_spec=spec)
    doc = json.loads((tmp_path / "m.json").read_text())
    assert doc["format_version"] == 4 and len(doc["new_leaves"]) == 1
    leaf = doc["new_leaves"][0]
    assert leaf["block"] == 0 and leaf["var"] in doc["program"]["fetch_names"]
    # a model without new leaves is still written as before
    paddle.jit.save(paddle.nn.Linear(3, 3), str(tmp_path / "plain"), input_spec=spec)
    plain = json.loads((tmp_path / "plain.json").read_text())
    assert "new_leaves" not in plain and plain["format_version"] < 4
    doc["new_leaves"].append({"var": "no_such_var", "block": 0})
    (tmp_path / "m.json").write_text(json.dumps(doc))
    with pytest.raises(Exception, match=r"new_leaves\[1\].*no_such_var"):
        paddle.jit.load(str(tmp_path / "m"))


def _leaf_then_loop(x, w, n):
    y = x.detach() * 2.0
    y.stop_gradient = False
    h = w * 1.0
    for _ in range(n):
        h = h * y           # the leaf is read only when a turn runs
    return h, y


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_new_leaf_read_only_in_a_loop_that_ran_no_turn(full_graph):
    # the leaf's gradient was zeros (not None), and an output reading no tensor that needs a
    # gradient on this path needed one
    static = paddle.jit.to_static(_leaf_then_loop, full_graph=full_graph)
    for n in (0, 2, 0):
        for w_needs in (False, True):
            found = []
            for run in (_leaf_then_loop, static):
                x, w = paddle.to_tensor(X), paddle.to_tensor(W, stop_gradient=not w_needs)
                h, y = run(x, w, paddle.to_tensor(np.array(n, "int64")))
                found.append([h.stop_gradient, y.stop_gradient])
                if not h.stop_gradient:
                    h.sum().backward()
                found[-1] += [None if t.grad is None else t.grad.numpy().tolist() for t in (w, y)]
            assert found[1] == found[0]
            assert (found[0][0] is True) == (n == 0 and not w_needs)


# programs that run their own backward: the new leaf is where the traced backward() and
# paddle.grad start, and `y.grad` read in the trace is its gradient, as eager's
def _own_backward(x, w):
    y = x.detach() * 2.0
    y.stop_gradient = False
    z = (y * y * w).sum()
    z.backward()
    return z * 1.0, y.grad * 1.0, y


def _own_backward_twice(x, w):
    y = x.detach() * 2.0
    y.stop_gradient = False
    (y * y * w).sum().backward()
    first = y.grad * 1.0
    (y * w).sum().backward()        # through the leaf, not through the freed ops before it
    return first, y.grad * 1.0, y


def _own_backward_no_turn(x, w, n):
    y = x.detach() * 2.0
    y.stop_gradient = False
    h = x * w
    for _ in range(n):
        h = h * y
    h.sum().backward()
    found = paddle.zeros([3]) - 1.0 if y.grad is None else y.grad * 1.0
    return found, y


def _own_paddle_grad(x, w):
    with paddle.no_grad():
        y = x * 2.0
    y.stop_gradient = False
    z = (y * y * w).sum()
    gy, gw = paddle.grad([z], [y, w], allow_unused=True)
    return z * 1.0, gy, paddle.zeros([3]) - 1.0 if gw is None else gw


def _state(out, x, w):
    """Values, and per returned leaf its flags and `.grad`; x's and w's `.grad`."""
    found = []
    for t in out:
        found.append(t.numpy().tolist())
        if t.is_leaf and not t.stop_gradient:
            found.append(None if t.grad is None else t.grad.numpy().tolist())
    return found + [None if t.grad is None else t.grad.numpy().tolist() for t in (x, w)]


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn, counts", [
    (_own_backward, (None,)), (_own_backward_twice, (None,)),
    (_own_backward_no_turn, (0, 2)), (_own_paddle_grad, (None,)),
], ids=lambda v: v.__name__ if callable(v) else "")
@pytest.mark.parametrize("needs", [(False, True), (True, True), (False, False)],
                         ids=["w", "both", "none"])
def test_a_new_leaf_in_a_program_that_runs_its_own_backward(fn, counts, needs, full_graph):
    # backward() raised "does not depend on any tensor that needs a gradient" or gave the
    # outputs reading the leaf no gradient, `y.grad` was None, paddle.grad raised for y or
    # gave None; a second backward through the leaf was refused as "a second time"
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for n in counts:
        found = []
        for run in (fn, static):
            x, w = (paddle.to_tensor(a, stop_gradient=not k) for a, k in zip((X, W), needs))
            args = (x, w) if n is None else (x, w, paddle.to_tensor(np.array(n, "int64")))
            try:
                found.append(_state(run(*args), x, w))
            except paddle.autograd.GradientError as e:  # eager's error where nothing needs one
                assert "does not depend on any tensor that needs a gradient" in str(e)
                found.append("refused")
        assert found[1] == found[0]
