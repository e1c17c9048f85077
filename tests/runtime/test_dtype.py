"""Paddle-named dtypes: equality with strings, conversion from other spellings, defaults."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.dtype import convert_dtype

NAMES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("name", NAMES)
def test_dtype_equals_its_name_and_numpy(name):
    d = getattr(paddle, name)
    assert d == name
    assert str(d) == name
    assert repr(d) == f"paddle.{name}"
    assert d.np == np.dtype(name)
    assert convert_dtype(name) is d
    assert convert_dtype(np.dtype(name)) is d
    assert convert_dtype(f"paddle.{name}") is d


def test_dtypes_differ_from_each_other():
    assert paddle.float32 != paddle.float64
    assert paddle.float32 != "int32"
    assert paddle.int64 == paddle.int64


def test_python_types_convert():
    assert convert_dtype(int) == "int64"
    assert convert_dtype(float) == "float32"
    assert convert_dtype(bool) == "bool"
    assert convert_dtype(np.float64) == "float64"


def test_unsupported_dtype_names_the_choices():
    with pytest.raises(TypeError, match="unsupported dtype 'uint16'.*float32"):
        convert_dtype("uint16")


def test_kind_flags():
    assert paddle.float16.is_floating and not paddle.float16.is_integer
    assert paddle.uint8.is_integer and not paddle.bool.is_integer


def test_tensor_dtype_is_a_paddle_dtype():
    t = paddle.to_tensor([1, 2], dtype="int32")
    assert t.dtype == paddle.int32
    assert t.dtype == "int32"
    assert repr(t.dtype) == "paddle.int32"


def test_default_dtype_controls_python_floats():
    assert paddle.get_default_dtype() == "float32"
    paddle.set_default_dtype("float64")
    try:
        assert paddle.to_tensor(1.5).dtype == "float64"
        assert paddle.to_tensor([1.0, 2.0]).dtype == "float64"
    finally:
        paddle.set_default_dtype("float32")
    assert paddle.to_tensor(1.5).dtype == "float32"


def test_default_dtype_must_be_float():
    with pytest.raises(TypeError, match="float type"):
        paddle.set_default_dtype("int32")


def test_non_native_byte_order_arrays_have_a_dtype():
    t = paddle.Tensor(np.array([1.0, 2.0], dtype=">f4"))
    assert t.dtype == "float32"
