"""Semantics of the eager autograd engine: reuse and diamonds, retain_graph, .grad accumulation
and clearing, detach, allow_unused, seeds, in-place changes, create_graph, grad modes, hooks."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd import GradientError
from tests.support import source_line


def leaf(values, dtype="float64"):
    return paddle.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


def test_to_tensor_stops_gradients_by_default_and_parameters_do_not():
    assert paddle.to_tensor([1.0]).stop_gradient
    assert paddle.to_tensor([1.0], name="input_data").stop_gradient
    assert not paddle.nn.Linear(2, 2).weight.stop_gradient


def test_reuse_of_a_tensor_sums_its_gradients():
    x = leaf([1.0, 2.0, -3.0])
    (x * x + x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy() + 1)


def test_diamond():
    x = leaf([0.5, -1.5])
    a = paddle.exp(x)
    b, c = a * 3.0, paddle.sin(a)
    (b + c).sum().backward()
    ea = np.exp(x.numpy())
    np.testing.assert_allclose(x.grad.numpy(), ea * 3.0 + np.cos(ea) * ea)


def test_second_backward_through_freed_graph_is_refused():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(GradientError, match="retain_graph=True"):
        y.backward()


def test_retain_graph_allows_a_second_backward_and_grads_accumulate():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])


def test_grad_accumulates_across_graphs_until_cleared():
    x = leaf([1.0, 2.0])
    assert x.grad is None
    (x * 3.0).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 7.0])
    x.clear_grad()                          # set_to_zero=True: a zero gradient stays
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    (x * 2.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    x.clear_grad(set_to_zero=False)
    assert x.grad is None
    x.clear_gradient()
    assert x.grad is None


def test_grad_tensors_do_not_carry_a_graph():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    assert x.grad.stop_gradient and x.grad.is_leaf


def test_detach_cuts_the_graph():
    x = leaf([1.0, 2.0])
    d = (x * x).detach()
    assert d.stop_gradient and d.is_leaf
    np.testing.assert_array_equal(d.numpy(), [1.0, 4.0])
    (x * d).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 4.0])  # d counted as a constant


def test_backward_of_a_constant_is_refused():
    with pytest.raises(GradientError, match="stop_gradient=True"):
        paddle.to_tensor([1.0]).sum().backward()


def test_grad_of_an_unused_input():
    x, z = leaf([1.0]), leaf([2.0])
    y = (x * 2.0).sum()
    with pytest.raises(GradientError, match="input 1 .* not used.*allow_unused=True"):
        paddle.grad([y], [x, z], retain_graph=True)
    gx, gz = paddle.grad([y], [x, z], allow_unused=True)
    np.testing.assert_array_equal(gx.numpy(), [2.0])
    assert gz is None
    assert x.grad is None                    # paddle.grad leaves .grad alone


def test_non_scalar_backward_is_seeded_with_ones():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    (x * x).backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy())


def test_grad_tensor_seeds_backward():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    y.backward(paddle.to_tensor(np.array([1.0, 0.0, -2.0])))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.0, -12.0])
    with pytest.raises(ValueError, match="shape"):
        (x * x).backward(paddle.to_tensor(np.array([1.0, 2.0])))


def test_grad_outputs_seed_paddle_grad():
    x = leaf([1.0, 2.0])
    (g,) = paddle.grad([x * 3.0], [x], grad_outputs=[paddle.to_tensor(np.array([2.0, -1.0]))])
    np.testing.assert_allclose(g.numpy(), [6.0, -3.0])


def test_inplace_change_of_a_saved_input_is_an_error_naming_the_op_line():
    x = leaf([1.0, 2.0])
    y = x * 1.0
    z = y * y
    y[0] = 5.0
    line = source_line(__file__, "z = y * y")
    with pytest.raises(GradientError, match=rf"changed in place.*|line {line}") as err:
        z.sum().backward()
    assert f"line {line}" in str(err.value) and "changed in place" in str(err.value)


def test_inplace_method_on_a_saved_input_is_an_error():
    x = leaf([1.0, 2.0])
    y = paddle.exp(x)
    w = x * 1.0
    v = w * w
    w.add_(paddle.to_tensor(np.array([1.0, 1.0])))
    y.sum().backward()                    # exp saved its output, not w: fine
    with pytest.raises(GradientError, match="changed in place"):
        v.sum().backward()


def test_inplace_change_of_a_constant_that_an_op_saved_is_caught():
    w = leaf([1.0, 2.0])
    c = paddle.to_tensor(np.array([3.0, 4.0]))
    y = w * c
    c[1] = 0.0
    with pytest.raises(GradientError, match="changed in place"):
        y.sum().backward()


def test_inplace_ops_on_non_leaves_are_recorded():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2.0
    y[1] = 0.0                            # no gradient reaches x[1] through y any more
    y.multiply_(x)                        # y = (2x with y[1] = 0) * x
    y.scale_(3.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [12.0, 0.0, 36.0])


def test_setitem_with_a_value_that_needs_a_gradient():
    x = paddle.zeros([3], "float64")
    v = leaf([2.0])
    x[1:2] = v * v
    assert not x.stop_gradient
    (x * paddle.to_tensor(np.array([1.0, 5.0, 1.0]))).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [20.0])


def test_inplace_change_of_a_leaf_that_needs_a_gradient_is_refused():
    x = leaf([1.0, 2.0])
    with pytest.raises(GradientError, match="leaf tensor .*can't be changed in place"):
        x[0] = 3.0
    with pytest.raises(GradientError, match="leaf tensor"):
        x.add_(paddle.to_tensor(np.array([1.0, 1.0])))
    with paddle.no_grad():                # what optimizers do
        x[0] = 3.0
        x.scale_(2.0)
    np.testing.assert_array_equal(x.numpy(), [6.0, 4.0])


def test_create_graph_gives_differentiable_gradients():
    x = leaf([1.0, -2.0, 0.5])
    (g,) = paddle.grad([(x * x * x).sum()], [x], create_graph=True)
    assert not g.stop_gradient
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2)
    (gg,) = paddle.grad([g.sum()], [x])
    np.testing.assert_allclose(gg.numpy(), 6 * x.numpy())


def test_backward_after_create_graph_accumulates_second_order_into_grad():
    x = leaf([2.0])
    (g,) = paddle.grad([(x * x * x).sum()], [x], create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [12.0])


def test_no_grad_context_and_decorator():
    x = leaf([1.0])
    with paddle.no_grad():
        assert not paddle.is_grad_enabled()
        y = x * 2.0
    assert paddle.is_grad_enabled()
    assert y.stop_gradient and y.is_leaf

    @paddle.no_grad()
    def f(t):
        return t * 2.0

    @paddle.no_grad
    def g(t):
        return t * 2.0

    assert f(x).stop_gradient and g(x).stop_gradient
    assert paddle.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = leaf([1.0])
    with paddle.no_grad():
        with paddle.enable_grad():
            assert paddle.is_grad_enabled()
            y = x * 2.0
        assert not paddle.is_grad_enabled()

        @paddle.enable_grad()
        def f(t):
            return t * 3.0
        z = f(x)
    assert not y.stop_gradient and not z.stop_gradient


def test_set_grad_enabled():
    x = leaf([1.0])
    with paddle.set_grad_enabled(False):
        assert (x * 2.0).stop_gradient
        with paddle.set_grad_enabled(True):
            assert not (x * 2.0).stop_gradient
    assert paddle.is_grad_enabled()
    paddle.set_grad_enabled(False)
    try:
        assert not paddle.is_grad_enabled()
    finally:
        paddle.set_grad_enabled(True)
    assert paddle.is_grad_enabled()


def test_grad_mode_is_restored_after_an_exception():
    with pytest.raises(KeyError):
        with paddle.no_grad():
            raise KeyError("boom")
    assert paddle.is_grad_enabled()


def test_no_tape_when_nothing_needs_a_gradient():
    x = paddle.to_tensor(np.array([1.0, 2.0]))
    y = paddle.exp(x) * 2.0
    assert y.stop_gradient and y._node is None


def test_hooks_on_leaves_and_non_leaves():
    x = leaf([1.0, 2.0])
    seen = []
    h = x.register_hook(lambda g: seen.append(g.numpy().copy()))
    y = x * 3.0
    y.register_hook(lambda g: g * 2.0)        # doubles the gradient flowing back through y
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])
    np.testing.assert_allclose(seen[0], [6.0, 6.0])
    h.remove()
    x.clear_grad(set_to_zero=False)
    (x * 1.0).sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_hook_on_a_tensor_that_needs_no_gradient_is_refused():
    with pytest.raises(GradientError, match="stop_gradient=True"):
        paddle.to_tensor([1.0]).register_hook(lambda g: g)


def test_integer_outputs_carry_no_gradient():
    x = leaf([1.0, 3.0, 2.0])
    values, indices = paddle.topk(x, 2)
    assert not values.stop_gradient and indices.stop_gradient
    values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 1.0])


def test_gradient_dtype_follows_the_input():
    x = leaf([1.0, 2.0], "float32")
    (paddle.cast(x, "float64") * 2.0).sum().backward()
    assert x.grad.dtype == paddle.float32
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_missing_rule_has_a_clear_error():
    from dy2st.autograd.rules import RULES
    x = leaf([1.0, 2.0])
    y = paddle.sin(x)
    saved = RULES.pop("sin")
    try:
        with pytest.raises(GradientError, match="'sin'.*no gradient rule"):
            y.sum().backward()
    finally:
        RULES["sin"] = saved


def test_issue_example_trains_a_linear_layer():
    model = paddle.nn.Linear(32, 32)
    x = paddle.to_tensor(np.random.random([1, 1, 1, 32]).astype("float32"), name="input_data")
    target = paddle.sum(model(x))
    target.backward()
    np.testing.assert_allclose(model.weight.grad.numpy(),
                               np.repeat(x.numpy().reshape(32, 1), 32, axis=1), rtol=1e-6)
    np.testing.assert_allclose(model.bias.grad.numpy(), np.ones(32))


def test_grad_with_respect_to_an_intermediate_and_several_outputs():
    x = leaf([1.0, 2.0])
    h = x * x
    y1, y2 = (h * 3.0).sum(), paddle.sin(h).sum()
    gh, gx = paddle.grad([y1, y2], [h, x])
    np.testing.assert_allclose(gh.numpy(), 3.0 + np.cos(h.numpy()))
    np.testing.assert_allclose(gx.numpy(), (3.0 + np.cos(h.numpy())) * 2 * x.numpy())


def test_grad_through_a_long_chain():
    x = leaf([1.0, 2.0])
    y = x
    for _ in range(300):
        y = y * 1.01 + 0.0
    (g,) = paddle.grad([y.sum()], [x])
    np.testing.assert_allclose(g.numpy(), [1.01 ** 300] * 2)


def test_a_node_no_gradient_reaches_leaves_its_inputs_none():
    # the PyLayer gives its first input no gradient: the multiply before it is never run, so
    # w.grad stays None (it was zeros, which weight decay or momentum would act on)
    class FirstIgnored(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, a, b):
            return a * 0.0 + b * 2.0

        @staticmethod
        def backward(ctx, g):
            return None, g * 2.0
    w = paddle.to_tensor(np.ones(3, "float32"), stop_gradient=False)
    v = paddle.to_tensor(np.ones(3, "float32"), stop_gradient=False)
    FirstIgnored.apply(w * 3.0, v * 1.0).sum().backward()
    assert w.grad is None
    np.testing.assert_allclose(v.grad.numpy(), [2.0, 2.0, 2.0])
