"""Private names (`self.__k` inside class C is `self._C__k`) in converted methods, Layers'
forward, static methods and nested functions: the same values as eager in both full_graph modes
and through jit.save / jit.load; and the mangling rule itself (dunders, underscored class names)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.transformers.mangle import class_of, enclosing_class, private_name

__offset = 100.0        # a module global whose name looks private: C.__offset reads _C__offset
_Scaler__offset = 3.0   # what `__offset` means inside class Scaler


def x_in():
    return paddle.to_tensor(np.array([[1.0, -2.0, 3.0]], "float32"))


class Scaler(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.__k = 2.0
        self.__lin = paddle.nn.Linear(3, 3)
        self.__cache = {"n": 1}

    def __twice(self, v):
        return v * self.__k

    @staticmethod
    def __shift(v, __by=1.0):
        return v + __by

    def forward(self, x):
        y = self.__twice(self.__lin(x)) + __offset            # global _Scaler__offset
        __local = [self.__shift(v, self.__k) for v in (y, y * 2)]
        if y.sum() > 0:                                       # a tensor `if`
            __local.append(y - self.__k)
        else:
            __local.append(y + self.__k)

        def __inner(v):                                       # nested def, name mangled too
            return v * self.__cache["n"]
        out = __inner(__local[0] + __local[-1])
        del __local
        return out


def expected(layer, x):
    w, b = layer._Scaler__lin.weight.numpy(), layer._Scaler__lin.bias.numpy()
    y = (x.numpy() @ w + b) * 2.0 + 3.0
    return (y + 2.0) + (y - 2.0 if y.sum() > 0 else y + 2.0)


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_layer_forward_matches_eager(full_graph, sign):
    paddle.seed(1)
    layer = Scaler()
    x = x_in() * sign
    eager = layer(x).numpy()
    np.testing.assert_allclose(eager, expected(layer, x), rtol=1e-5)
    static = paddle.jit.to_static(layer, full_graph=full_graph)
    np.testing.assert_allclose(static(x).numpy(), eager, rtol=1e-5)
    layer._Scaler__k = 3.0            # the attribute changed between calls: the guards see it
    np.testing.assert_allclose(static(x).numpy(), layer(x).numpy(), rtol=1e-5)


def test_saved_and_loaded(tmp_path):
    paddle.seed(2)
    layer = Scaler()
    x = x_in()
    static = paddle.jit.to_static(layer, input_spec=[paddle.static.InputSpec([None, 3])])
    paddle.jit.save(static, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for v in (x, -x):
        np.testing.assert_allclose(loaded(v).numpy(), layer(v).numpy(), rtol=1e-5)


class _Counter:
    __count = 0                     # class-private class attribute: _Counter__count

    def __init__(self):
        self.__step = paddle.to_tensor(2.0)

    def bump(self, x):
        global _Counter__seen
        _Counter__seen = True
        __total = x * self.__step + type(self).__count
        total = 0.0
        for i in range(3):            # a Python loop, and a comprehension over private names
            total = total + sum([__total * j for j in range(i)])
        return total

    @staticmethod
    def static_helper(x):
        return _Counter.__count + x.sum()


@pytest.mark.parametrize("full_graph", [True, False])
def test_method_and_static_method_of_an_underscored_class(full_graph):
    c = _Counter()
    x = x_in()
    eager = c.bump(x).numpy()
    conv = paddle.jit.to_static(c.bump, full_graph=full_graph)
    np.testing.assert_allclose(conv(x).numpy(), eager)
    helper = paddle.jit.to_static(_Counter.static_helper, full_graph=full_graph)
    assert float(helper(x)) == float(_Counter.static_helper(x)) == 2.0
    _Counter._Counter__count = 5      # the class attribute changed: both follow
    np.testing.assert_allclose(conv(x).numpy(), c.bump(x).numpy())
    assert float(helper(x)) == 7.0
    _Counter._Counter__count = 0


class Breaks:
    def __init__(self):
        self.__w = 3.0

    def run(self, x):
        import math as __m
        try:
            raise ValueError("four")
        except ValueError as __e:
            __n = len(str(__e))
        scale = float(x.sum())            # a Python value: a graph break with full_graph=False
        return x * self.__w * __m.sqrt(__n) + (scale if scale > 0 else -scale)


def test_graph_break_import_and_except_names():
    b = Breaks()
    conv = paddle.jit.to_static(b.run, full_graph=False)
    for x in (x_in(), -x_in() * 3):
        np.testing.assert_allclose(conv(x).numpy(), b.run(x).numpy(), rtol=1e-6)


class Outer:
    def make(self):
        class __Inner:                 # a class written in a method: `__Inner` is _Outer__Inner
            __v = 4.0                  # its own body mangles by "Inner": _Inner__v

            def get(self):
                return self.__v
        return __Inner

    def run(self, x):
        inner = self.make()
        return x * inner().get() + len(type(self).__dict__["_Outer__tag"])

    __tag = "ab"


@pytest.mark.parametrize("full_graph", [True, False])
def test_nested_class_mangles_by_its_own_name(full_graph):
    o = Outer()
    x = x_in()
    np.testing.assert_allclose(paddle.jit.to_static(o.run, full_graph=full_graph)(x).numpy(),
                               o.run(x).numpy())


def test_the_rule():
    assert private_name("__k", "Cls") == "_Cls__k"
    assert private_name("__k", "__Cls") == "_Cls__k"          # leading underscores stripped
    assert private_name("__init__", "Cls") == "__init__"      # dunders are not private
    assert private_name("_k", "Cls") == "_k"
    assert private_name("__k", "___") == "__k"                # an all-underscore class name
    assert enclosing_class("Cls.method") == "Cls"
    assert enclosing_class("A.m.<locals>.g") == "A"
    assert enclosing_class("f.<locals>.B.m") == "B"
    assert enclosing_class("f.<locals>.g") is None and enclosing_class("f") is None


def test_a_qualname_copied_by_wraps_is_not_trusted():
    def plain(x):
        return x

    plain.__qualname__ = "Scaler.forward"           # as functools.wraps would set it
    assert class_of(plain) is None
    assert class_of(Scaler.forward) == "Scaler"
