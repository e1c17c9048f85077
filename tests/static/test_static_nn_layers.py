"""paddle.static.nn layer functions (conv2d, batch_norm, embedding, layer_norm, ...) and
case / switch_case: in a static Program run by the Executor they match the dy2st.nn layers
holding the same parameters, and train through append_backward."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from tests.support import randn


def _build(fn, shapes, dtypes=None):
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xs = [paddle.static.data(f"x{i}", s, (dtypes or ["float32"] * len(shapes))[i])
              for i, s in enumerate(shapes)]
        out = fn(*xs)
    return main, out


def _run(main, out, *arrays):
    return paddle.static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(arrays)},
                                        fetch_list=[out])[0]


def test_conv2d_with_activation_matches_functional():
    main, out = _build(lambda x: paddle.static.nn.conv2d(x, 4, 3, padding=1, act="relu"),
                       [[None, 3, 6, 6]])
    params = list(main.persistables.values())
    a = randn(0, 2, 3, 6, 6)
    want = F.relu(F.conv2d(paddle.to_tensor(a), params[0], params[1], padding=1)).numpy()
    np.testing.assert_allclose(_run(main, out, a), want, rtol=1e-5, atol=1e-6)
    assert [list(p.shape) for p in params] == [[4, 3, 3, 3], [4]]


def test_batch_norm_training_and_test_modes():
    a = randn(1, 4, 3, 5, 5, shift=2.0)
    main, out = _build(lambda x: paddle.static.nn.batch_norm(x), [[None, 3, 5, 5]])
    got = _run(main, out, a)
    mean, var = a.mean(axis=(0, 2, 3), keepdims=True), a.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(got, (a - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-4)
    running = [t for n, t in main.persistables.items() if n.endswith("_mean")][0]
    np.testing.assert_allclose(running.numpy(), 0.1 * a.mean(axis=(0, 2, 3)), rtol=1e-4)
    test_main, test_out = _build(lambda x: paddle.static.nn.batch_norm(x, is_test=True),
                                 [[None, 3, 5, 5]])
    np.testing.assert_allclose(_run(test_main, test_out, a), a / np.sqrt(1 + 1e-5), rtol=1e-5)


def test_embedding_and_layer_norm():
    ids = np.array([[1, 3], [0, 2]], "int64")
    main, out = _build(lambda i: paddle.static.nn.embedding(i, [5, 4], padding_idx=0),
                       [[None, 2]], ["int64"])
    table = list(main.persistables.values())[0].numpy()
    want = table[ids]
    want[ids == 0] = 0.0
    np.testing.assert_allclose(_run(main, out, ids), want, rtol=1e-6)
    a = randn(2, 3, 4, 5)
    main, out = _build(lambda x: paddle.static.nn.layer_norm(x, begin_norm_axis=1),
                       [[None, 4, 5]])
    flat = a.reshape(3, -1)
    norm = (flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(_run(main, out, a), norm.reshape(a.shape), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="size must be"):
        paddle.static.nn.embedding(paddle.to_tensor(ids), [5])


def test_group_instance_norm_prelu_and_transpose_conv_shapes():
    x = paddle.to_tensor(randn(0, 2, 4, 6, 6))
    assert paddle.static.nn.group_norm(x, groups=2).shape == [2, 4, 6, 6]
    assert paddle.static.nn.instance_norm(x).shape == [2, 4, 6, 6]
    for mode, n in (("all", 1), ("channel", 4), ("element", 144)):
        y = paddle.static.nn.prelu(x, mode)
        np.testing.assert_allclose(y.numpy(), np.where(x.numpy() > 0, x.numpy(),
                                                       0.25 * x.numpy()), rtol=1e-6)
    assert paddle.static.nn.conv2d_transpose(x, 3, filter_size=3).shape == [2, 3, 8, 8]
    with pytest.raises(ValueError, match="unknown activation"):
        paddle.static.nn.conv2d(x, 2, 3, act="nosuch")


def test_static_layers_train_with_append_backward():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [None, 3, 6, 6], "float32")
        y = paddle.static.data("y", [None, 1], "float32")
        h = paddle.static.nn.conv2d(x, 2, 3, act="relu")
        h = paddle.static.nn.layer_norm(h)
        pred = paddle.static.nn.fc(h, 1)
        loss = F.mse_loss(pred, y)
        paddle.optimizer.SGD(0.05).minimize(loss)
    exe = paddle.static.Executor()
    a, t = randn(0, 8, 3, 6, 6), randn(1, 8, 1)
    losses = [float(exe.run(main, feed={"x": a, "y": t}, fetch_list=[loss])[0])
              for _ in range(8)]
    assert losses[-1] < losses[0]


def test_case_and_switch_case_in_a_program():
    def fn(x, i):
        a = paddle.static.nn.case([(x.sum() > 10.0, lambda: x * 2.0),
                                   (x.sum() > 0.0, lambda: x + 1.0)], default=lambda: x * 0.0)
        b = paddle.static.nn.switch_case(i, {1: lambda: x - 1.0, 3: lambda: x * 3.0},
                                         default=lambda: -x)
        return a + b

    main, out = _build(fn, [[3], []], ["float32", "int64"])
    for xv, iv in [([5.0, 5.0, 5.0], 1), ([1.0, 1.0, 1.0], 3), ([-1.0, -1.0, -1.0], 7)]:
        x, i = np.array(xv, "float32"), np.array(iv, "int64")
        s = x.sum()
        a = x * 2 if s > 10 else x + 1 if s > 0 else x * 0
        b = {1: x - 1, 3: x * 3}.get(iv, -x)
        np.testing.assert_allclose(_run(main, out, x, i), a + b, rtol=1e-6)


def test_case_and_switch_case_eagerly_and_their_errors():
    x = paddle.to_tensor([1.0, 2.0])
    assert float(paddle.static.nn.case([(x.sum() > 5, lambda: x.sum()),
                                        (x.sum() > 0, lambda: x.sum() * 10)])) == 30.0
    assert float(paddle.static.nn.switch_case(2, [lambda: x[0], lambda: x[1]])) == 2.0
    assert float(paddle.static.nn.switch_case(paddle.to_tensor(0), [(0, lambda: x[1]),
                                                                    (1, lambda: x[0])])) == 2.0
    with pytest.raises(TypeError, match="pred_fn_pairs"):
        paddle.static.nn.case([])
    with pytest.raises(TypeError, match="must be callable"):
        paddle.static.nn.case([(x.sum() > 0, 3)])
    with pytest.raises(ValueError, match="repeated"):
        paddle.static.nn.switch_case(0, [(0, lambda: x), (0, lambda: x)])


def test_deform_conv2d_builds_its_parameters_and_matches_the_layer_function():
    main, out = _build(lambda x, o, m: paddle.static.nn.deform_conv2d(
        x, o, m, num_filters=4, filter_size=3, padding=1, deformable_groups=1),
        [[None, 2, 5, 5], [None, 18, 5, 5], [None, 9, 5, 5]])
    weight, bias = list(main.persistables.values())
    assert list(weight.shape) == [4, 2, 3, 3] and list(bias.shape) == [4]
    x, o, m = randn(0, 2, 2, 5, 5), randn(1, 2, 18, 5, 5), randn(2, 2, 9, 5, 5)
    want = paddle.vision.ops.deform_conv2d(*[paddle.to_tensor(a) for a in (x, o)], weight,
                                           bias, padding=1, mask=paddle.to_tensor(m))
    np.testing.assert_allclose(_run(main, out, x, o, m), want.numpy(), rtol=1e-5, atol=1e-5)
    main, out = _build(lambda x, o: paddle.static.nn.deform_conv2d(x, o, None, 3, [2, 2],
                                                                   bias_attr=False),
                       [[None, 2, 5, 5], [None, 8, 4, 4]])
    assert [list(p.shape) for p in main.persistables.values()] == [[3, 2, 2, 2]]
    assert _run(main, out, x, randn(3, 2, 8, 4, 4)).shape == (2, 3, 4, 4)
