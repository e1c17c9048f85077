"""Program inputs are named after the function's parameters (read from its code object, in
inspect.signature's order) and typed from the arrays or the given InputSpecs."""
import functools
import inspect

import numpy as np

import dy2st as paddle
from dy2st.jit.static_function import _parameter_names
from dy2st.static import InputSpec


def _all_kinds(a, b, /, c, *args, k, m=1, **kw):
    return a


def _kw_only(*, k):
    return k


@functools.wraps(_all_kinds)
def _wrapped(*args, **kwargs):
    return _all_kinds(*args, **kwargs)


class _Holder:
    def method(self, x, *rest):
        return x


def test_parameter_names_are_those_of_inspect_signature():
    for fn in (_all_kinds, _kw_only, _wrapped, _Holder.method, _Holder().method,
               lambda x, y=2: x, functools.partial(_all_kinds, 1)):
        assert _parameter_names(fn) == list(inspect.signature(fn).parameters), fn


def test_inputs_are_named_after_parameters_and_typed_from_arrays():
    def fn(image, label):
        return image + 1, label

    sf = paddle.jit.to_static(fn)
    sf(paddle.to_tensor(np.zeros((2, 3), "float32")), np.arange(2, dtype="int64"))
    specs = sf.last_input_spec
    assert [(s.name, s.shape, str(s.dtype)) for s in specs] == [
        ("image", (2, 3), "float32"), ("label", (2,), "int64")]


def test_a_matching_input_spec_keeps_its_unknown_dims():
    def fn(x):
        return x * 2

    sf = paddle.jit.to_static(fn, input_spec=[InputSpec([None, 3], "float32")])
    sf(paddle.to_tensor(np.ones((4, 3), "float32")))
    assert [(s.name, s.shape) for s in sf.last_input_spec] == [("x", (None, 3))]
