"""A dataclass object a to_static function returns holds the call's tensors, as eager's does:
it held the trace's symbolic values (any use of them failed or printed a symbol)."""
import dataclasses

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


@dataclasses.dataclass
class Out:
    logits: object
    loss: object
    tag: str = "head"


@dataclasses.dataclass(frozen=True)
class Frozen:
    value: object
    scale: float = 2.0


def make_out(x):
    h = x * 2.0
    if x.sum() > 0:
        h = h + 1.0
    return Out(h, (h * h).mean())


def make_nested(x):
    return {"a": Frozen(x + 1.0), "b": [Out(x * 3.0, x.sum(), tag="t")]}


def _with_break(x):
    n = int(x.sum().numpy())        # a graph break with full_graph=False
    return Out(x * n, x.mean())


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_returned_dataclass_holds_tensors(full_graph):
    sf = paddle.jit.to_static(make_out, full_graph=full_graph)
    for v in ([1.0, 2.0], [-1.0, -3.0]):
        want = make_out(paddle.to_tensor(np.array(v, "float32")))
        got = sf(paddle.to_tensor(np.array(v, "float32")))
        assert type(got) is Out and got.tag == "head"
        assert isinstance(got.logits, paddle.Tensor) and isinstance(got.loss, paddle.Tensor)
        np.testing.assert_allclose(got.logits.numpy(), want.logits.numpy())
        np.testing.assert_allclose(got.loss.numpy(), want.loss.numpy(), rtol=1e-6)


def test_frozen_and_nested_dataclasses_and_gradients():
    sf = paddle.jit.to_static(make_nested)
    x = paddle.to_tensor(np.array([1.0, 2.0], "float32"), stop_gradient=False)
    got = sf(x)
    assert type(got["a"]) is Frozen and got["a"].scale == 2.0
    np.testing.assert_allclose(got["a"].value.numpy(), [2.0, 3.0])
    assert got["b"][0].tag == "t"
    (got["a"].value.sum() + got["b"][0].logits.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 4.0])


def test_a_dataclass_returned_after_a_graph_break():
    sf = paddle.jit.to_static(_with_break, full_graph=False)
    for v in ([1.0, 2.0], [2.0, 2.0]):
        got = sf(paddle.to_tensor(np.array(v, "float32")))
        want = _with_break(paddle.to_tensor(np.array(v, "float32")))
        assert type(got) is Out
        np.testing.assert_allclose(got.logits.numpy(), want.logits.numpy())


def test_a_saved_model_returns_its_fields_as_a_tuple(tmp_path):
    # (a model file names no user class: as for a namedtuple, a plain tuple in its place)
    sf = paddle.jit.to_static(make_out, input_spec=[InputSpec([None], "float32")])
    paddle.jit.save(sf, str(tmp_path / "m"))
    x = paddle.to_tensor(np.array([1.0, 2.0], "float32"))
    logits, loss, tag = paddle.jit.load(str(tmp_path / "m"))(x)
    want = make_out(x)
    np.testing.assert_allclose(logits.numpy(), want.logits.numpy())
    np.testing.assert_allclose(loss.numpy(), want.loss.numpy(), rtol=1e-6)
    assert tag == "head"
