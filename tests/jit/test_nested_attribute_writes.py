"""An attribute set in a tensor `if` or loop nested in another is an output of the outer one
too (`if a: if b: self.cache = v`), as a name is: static results match eager on inputs that
take every branch and several trip counts (fuzzer seeds 7, 10, 14 of the attribute holders)."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import assert_agrees_with_eager

INPUTS = [np.array([[2.0, 1, 1]], "float32"), np.array([[-1.0, 1, 1], [3, 3, 3]], "float32"),
          np.array([[-0.1, -0.2, 0.1]], "float32"), np.array([[0.5, -2, 1], [-1, 1, 1],
                                                              [1, 1, -3]], "float32")]


class Box:
    def __init__(self, a):
        self.a = a


def set_in_a_nested_if(x):
    h = x.mean(axis=0)
    d = Box(h * 2.0)
    if x.sum() > 0.0:
        if x[0, 0] <= -0.5:
            d.a = h
    return d.a - h


def set_in_an_elif_then_returned(x):
    h = x.mean(axis=0)
    d = Box(h * 2.0)
    if x.sum() < 0.0:
        h = h * 3.0
    elif x[0, 0] <= -0.5:
        d.a = h + 1.0
    else:
        if x[-1, 2] > 0.5:
            d.a = h * -1.0
        return d.a + h
    return d.a - h


def set_in_an_if_in_a_loop_in_an_if(x):
    h = x.mean(axis=0)
    d = Box(h * 0.0)
    if x.shape[0] > 0 and h.sum() > -5.0:
        for row in x:
            if row[0] > 0.0:
                d.a = d.a + row
            else:
                d.a = d.a - row * 0.5
    return d.a


def nested_object_set_in_a_loop_in_an_if(x):
    h = x.mean(axis=0)
    outer = Box(Box(h))
    if h.sum() > 0.0:
        for row in x:
            outer.a.a = outer.a.a * 0.5 + row
    return outer.a.a


class Cached(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.cache = None

    def forward(self, x):
        y = self.fc(x)
        self.cache = y * 0.0
        if y.mean() > -10.0:
            if y.sum() > 0.0:
                self.cache = y * 2.0
            else:
                self.cache = y - 1.0
        return self.cache + y


@pytest.mark.parametrize("fn", [set_in_a_nested_if, set_in_an_elif_then_returned,
                                set_in_an_if_in_a_loop_in_an_if,
                                nested_object_set_in_a_loop_in_an_if])
def test_attribute_set_in_nested_control_flow(fn, tmp_path):
    assert_agrees_with_eager(fn, INPUTS, tmp_path)


def test_layer_attribute_set_in_a_nested_tensor_if(tmp_path):
    paddle.seed(3)
    layer = Cached()
    assert_agrees_with_eager(layer, INPUTS, tmp_path)
