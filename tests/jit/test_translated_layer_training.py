"""A jit.load'ed model fine-tunes as Paddle's TranslatedLayer does: its forward runs the saved
program, gradients reach its parameters (and inputs), optimizers step them, and jit.save writes
the trained values; checked step by step against the original model trained eagerly. A model
saved with list / dict arguments also takes Paddle's flattened positional tensors."""
import copy

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.jit.translated_layer import InputMismatchError
from dy2st.static import InputSpec
from tests.support import BranchyNet, randn


class Mlp(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(6, 8)
        self.fc2 = paddle.nn.Linear(8, 3)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if h.mean() > 0.3:          # a tensor `if`: the saved program holds a cond op
            h = h * 0.5
        return self.fc2(h)


def _saved(model, tmp_path, spec):
    model.eval()
    paddle.jit.save(model, str(tmp_path / "m"), input_spec=spec)
    return paddle.jit.load(str(tmp_path / "m"))


def _batches(n=4):
    return [(paddle.to_tensor(randn(10 + k, 5, 6)), paddle.to_tensor(randn(20 + k, 5, 3)))
            for k in range(n)]


def _params_by_value_order(layer):
    return [p.numpy() for p in layer.parameters() if not p.stop_gradient]


@pytest.mark.parametrize("make_opt", [lambda ps: paddle.optimizer.SGD(0.1, parameters=ps),
                                      lambda ps: paddle.optimizer.Adam(0.01, parameters=ps)])
def test_fine_tuning_matches_training_the_original_eagerly(make_opt, tmp_path):
    paddle.seed(5)
    model = Mlp()
    reference = copy.deepcopy(model)
    loaded = _saved(model, tmp_path, [InputSpec([None, 6], "float32")])
    loaded.train()
    opt_loaded = make_opt(loaded.parameters())
    opt_ref = make_opt(reference.parameters())
    for x, y in _batches():
        loss = F.mse_loss(loaded(x), y)
        loss.backward()
        ref_loss = F.mse_loss(reference(x), y)
        ref_loss.backward()
        np.testing.assert_allclose(float(loss), float(ref_loss), rtol=1e-5)
        for p, q in zip(loaded.parameters(), reference.parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6)
        opt_loaded.step()
        opt_ref.step()
        opt_loaded.clear_grad()
        opt_ref.clear_grad()
    for p, q in zip(loaded.parameters(), reference.parameters()):
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-4, atol=1e-6)


def test_fine_tuned_model_saves_and_loads_its_new_weights(tmp_path):
    paddle.seed(6)
    loaded = _saved(Mlp(), tmp_path, [InputSpec([None, 6], "float32")])
    opt = paddle.optimizer.SGD(0.2, parameters=loaded.parameters())
    x, y = _batches(1)[0]
    before = loaded(x).numpy()
    losses = []
    for _ in range(5):
        loss = F.mse_loss(loaded(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    paddle.jit.save(loaded, str(tmp_path / "tuned"))
    again = paddle.jit.load(str(tmp_path / "tuned"))
    with paddle.no_grad():
        after = loaded(x).numpy()
        np.testing.assert_allclose(again(x).numpy(), after, rtol=1e-6)
    assert not np.allclose(after, before)
    # the fine-tuned file trains on too, from where the first left off
    opt2 = paddle.optimizer.SGD(0.2, parameters=again.parameters())
    F.mse_loss(again(x), y).backward()
    opt2.step()
    assert float(F.mse_loss(again(x), y)) < losses[-1]


def test_gradients_reach_inputs_of_a_loaded_model(tmp_path):
    paddle.seed(7)
    model = Mlp()
    loaded = _saved(model, tmp_path, [InputSpec([None, 6], "float32")])
    a = randn(3, 4, 6)
    x1 = paddle.to_tensor(a, stop_gradient=False)
    x2 = paddle.to_tensor(a, stop_gradient=False)
    (g1,) = paddle.grad((loaded(x1) ** 2).sum(), [x1])
    (g2,) = paddle.grad((model(x2) ** 2).sum(), [x2])
    np.testing.assert_allclose(g1.numpy(), g2.numpy(), rtol=1e-4, atol=1e-6)


def test_frozen_parameters_get_no_gradient(tmp_path):
    paddle.seed(8)
    loaded = _saved(Mlp(), tmp_path, [InputSpec([None, 6], "float32")])
    first = loaded.parameters()[0]
    first.stop_gradient = True
    x, y = _batches(1)[0]
    F.mse_loss(loaded(x), y).backward()
    assert first.grad is None
    assert all(p.grad is not None for p in loaded.parameters()[1:])


def test_frozen_model_runs_inference_only(tmp_path):
    paddle.seed(9)
    loaded = _saved(Mlp(), tmp_path, [InputSpec([None, 6], "float32")])
    for p in loaded.parameters():
        p.stop_gradient = True
    out = loaded(paddle.to_tensor(randn(1, 2, 6)))
    assert out.stop_gradient
    with pytest.raises(paddle.autograd.GradientError, match="does not depend"):
        out.sum().backward()
    with paddle.no_grad():
        assert loaded(paddle.to_tensor(randn(1, 2, 6))).stop_gradient


def test_branchy_saved_model_gradients_match_eager_on_both_branches(tmp_path):
    paddle.seed(10)
    model = BranchyNet()
    loaded = _saved(model, tmp_path, [InputSpec([None, 4], "float32")])
    for shift in (3.0, -3.0):          # each branch of the saved cond
        x = paddle.to_tensor(randn(2, 5, 4, shift=shift))
        (loaded(x) * paddle.to_tensor([1.0, -2.0, 0.5])).sum().backward()
        (model(x) * paddle.to_tensor([1.0, -2.0, 0.5])).sum().backward()
        for p, q in zip(loaded.parameters(), model.parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)
            p.clear_grad()
            q.clear_grad()


def _flat_keys(loaded):
    """The dict keys in the order of the flattened inputs (the InputSpec names given)."""
    return [s.name for s in loaded.concrete_program.inputs]


class DictForward(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, inputs):
        return self.fc(inputs["a"]) * inputs["scale"] + self.fc(inputs["b"])


class ListAndTensor(paddle.nn.Layer):
    def forward(self, xs, y):
        return xs[0] * y - xs[1]


def test_dict_argument_takes_the_dict_or_flattened_tensors(tmp_path):
    paddle.seed(11)
    model = DictForward()
    spec = [{"a": InputSpec([None, 3], "float32", "a"), "b": InputSpec([None, 3], "float32", "b"),
             "scale": InputSpec([1], "float32", "scale")}]
    loaded = _saved(model, tmp_path, spec)
    a, b, s = randn(1, 4, 3), randn(2, 4, 3), np.array([2.0], "float32")
    want = model({"a": paddle.to_tensor(a), "b": paddle.to_tensor(b),
                  "scale": paddle.to_tensor(s)}).numpy()
    by_dict = loaded({"a": paddle.to_tensor(a), "b": paddle.to_tensor(b),
                      "scale": paddle.to_tensor(s)})
    np.testing.assert_allclose(by_dict.numpy(), want, rtol=1e-6)
    order = _flat_keys(loaded)
    assert sorted(order) == ["a", "b", "scale"]
    values = {"a": a, "b": b, "scale": s}
    flat = loaded(*[paddle.to_tensor(values[n]) for n in order])
    np.testing.assert_allclose(flat.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(loaded(*[values[n] for n in order]).numpy(), want, rtol=1e-6)
    with pytest.raises(InputMismatchError, match="takes 1 argument.*or its 3 tensor"):
        loaded(paddle.to_tensor(a), paddle.to_tensor(b))


def test_list_argument_takes_the_list_or_flattened_tensors(tmp_path):
    model = ListAndTensor()
    spec = [[InputSpec([None, 3], "float32"), InputSpec([None, 3], "float32")],
            InputSpec([None, 3], "float32")]
    loaded = _saved(model, tmp_path, spec)
    x0, x1, y = randn(1, 2, 3), randn(2, 2, 3), randn(3, 2, 3)
    want = x0 * y - x1
    t = paddle.to_tensor
    np.testing.assert_allclose(loaded([t(x0), t(x1)], t(y)).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(loaded(t(x0), t(x1), t(y)).numpy(), want, rtol=1e-6)
    with pytest.raises(InputMismatchError):
        loaded(t(x0), t(x1))


def test_flattened_call_trains_a_dict_model(tmp_path):
    paddle.seed(12)
    model = DictForward()
    spec = [{"a": InputSpec([None, 3], "float32", "a"), "b": InputSpec([None, 3], "float32", "b"),
             "scale": InputSpec([1], "float32", "scale")}]
    loaded = _saved(model, tmp_path, spec)
    order = _flat_keys(loaded)
    values = {"a": randn(1, 4, 3), "b": randn(2, 4, 3), "scale": np.array([0.5], "float32")}
    loaded(*[paddle.to_tensor(values[n]) for n in order]).sum().backward()
    model({k: paddle.to_tensor(v) for k, v in values.items()}).sum().backward()
    for p, q in zip(loaded.parameters(), model.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)
