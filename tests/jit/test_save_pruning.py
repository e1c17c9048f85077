"""jit.save's output_spec and input_names_after_prune (Paddle's MNIST test saves the prediction
of a model that also returns accuracy and loss, and only the image input)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


class Classifier(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    @paddle.jit.to_static
    def forward(self, img, label=None):
        pred = paddle.nn.functional.softmax(self.fc(img))
        if label is not None:
            loss = paddle.nn.functional.cross_entropy(pred, label, use_softmax=False).mean()
            acc = paddle.metric.accuracy(pred, label)
            return pred, acc, loss
        return pred


def _call():
    model = Classifier()
    img = paddle.rand([4, 3])
    label = paddle.to_tensor(np.array([[0], [1], [1], [0]], "int64"))
    model.eval()
    pred, acc, loss = model(img, label)
    return model, img, label, pred, acc, loss


def test_output_spec_keeps_the_chosen_output_and_pruning_drops_the_unused_input(tmp_path):
    model, img, label, pred, acc, loss = _call()
    prefix = str(tmp_path / "mnist")
    paddle.jit.save(model, prefix, input_spec=[img, label], output_spec=[pred],
                    input_names_after_prune=[img.name])
    loaded = paddle.jit.load(prefix)
    np.testing.assert_allclose(loaded(img).numpy(), pred.numpy(), rtol=1e-6)
    assert [s.name for s in loaded._concrete.inputs] == ["img"]


def test_output_spec_can_pick_several_outputs_in_its_own_order(tmp_path):
    model, img, label, pred, acc, loss = _call()
    prefix = str(tmp_path / "two")
    paddle.jit.save(model, prefix, input_spec=[img, label], output_spec=[loss, pred])
    got_loss, got_pred = paddle.jit.load(prefix)(img, label)
    np.testing.assert_allclose(got_loss.numpy(), loss.numpy(), rtol=1e-6)
    np.testing.assert_allclose(got_pred.numpy(), pred.numpy(), rtol=1e-6)


def test_names_after_prune_keep_a_named_input_and_refuse_unknown_names(tmp_path):
    model, img, label, pred, acc, loss = _call()
    specs = [InputSpec([None, 3], "float32", "image"), InputSpec([None, 1], "int64", "label")]
    with pytest.raises(ValueError, match="not inputs"):
        paddle.jit.save(model, str(tmp_path / "bad"), input_spec=specs, output_spec=[pred],
                        input_names_after_prune=["nope"])
    paddle.jit.save(model, str(tmp_path / "kept"), input_spec=specs, output_spec=[pred],
                    input_names_after_prune=["image", "label"])
    loaded = paddle.jit.load(str(tmp_path / "kept"))
    np.testing.assert_allclose(loaded(img, label).numpy(), pred.numpy(), rtol=1e-6)


def test_output_spec_refuses_a_tensor_the_last_call_did_not_return(tmp_path):
    model, img, label, pred, acc, loss = _call()
    with pytest.raises(ValueError, match="not one of the outputs"):
        paddle.jit.save(model, str(tmp_path / "x"), input_spec=[img, label],
                        output_spec=[pred * 2])
