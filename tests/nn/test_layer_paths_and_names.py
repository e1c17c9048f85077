"""Paddle's module paths under paddle.nn.layer (`paddle.nn.layer.activation.ReLU`) and the
`_name` built-in layers keep from their `name` argument, which PaddleClas and PaddleSeg read."""
import pytest

import dy2st as paddle
import dy2st.nn as nn


@pytest.mark.parametrize("module, cls", [("activation", "ReLU"), ("activation", "Hardswish"),
                                         ("common", "Linear"), ("common", "Dropout"),
                                         ("conv", "Conv2D"), ("norm", "BatchNorm2D"),
                                         ("pooling", "AdaptiveAvgPool2D"), ("loss", "MSELoss"),
                                         ("container", "Sequential"), ("rnn", "LSTM"),
                                         ("transformer", "MultiHeadAttention"),
                                         ("vision", "PixelShuffle"),
                                         ("distance", "PairwiseDistance")])
def test_paddle_module_paths_hold_the_same_classes(module, cls):
    mod = getattr(paddle.nn.layer, module)
    assert getattr(mod, cls) is getattr(nn, cls)
    assert cls in mod.__all__


def test_import_forms_of_the_module_paths():
    import dy2st.nn.layer.activation as act
    from dy2st.nn.layer.activation import ReLU
    from dy2st.nn.layer.layers import Layer
    assert ReLU is nn.ReLU and Layer is nn.Layer
    # PaddleSeg's Activation: `act_name in activation.__dict__` / `eval("activation.ReLU")()`
    assert "ReLU" in act.__dict__ and isinstance(act.__dict__["ReLU"](), nn.Layer)
    assert "Layer" not in act.__all__     # only the family's own classes


def test_unknown_submodule_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        paddle.nn.layer.nosuch


def test_builtin_layers_keep_their_name_argument():
    assert nn.AdaptiveAvgPool2D(1)._name is None
    assert nn.AdaptiveAvgPool2D(1, name="gap")._name == "gap"
    assert nn.Conv2D(3, 4, 3)._name is None      # Paddle's Conv2D takes no name
    assert nn.BatchNorm2D(4, name="bn")._name == "bn"
    assert nn.ReLU(name="act")._name == "act"
    assert nn.Linear(2, 3, name="fc")._name == "fc"


def test_paddleclas_style_subclass_reads_name():
    class TheseusPool(nn.AdaptiveAvgPool2D):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.stage = self._name or "pool"

    assert TheseusPool(1).stage == "pool"
    assert TheseusPool(1, name="head")._name == "head"


def test_user_layers_are_left_alone():
    class Mine(nn.Layer):
        def __init__(self, name=None):
            super().__init__()
            self.label = name

    m = Mine("x")
    assert m._name is None and m.label == "x"
