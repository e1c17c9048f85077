"""Paddle-named dtypes: printing as Paddle 3.3.1's (`str(paddle.int64) == "paddle.int64"`),
equality with strings, conversion from other spellings, defaults."""
import copy
import json
import pickle

import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.dtype import DTYPES, PADDLE_CODES, convert_dtype, dtype_name, dtype_text

NAMES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("name", NAMES)
def test_dtype_equals_its_name_and_numpy(name):
    d = getattr(paddle, name)
    assert d == name
    assert dtype_name(d) == name and type(dtype_name(d)) is str
    assert str(d) == f"paddle.{name}"
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
    assert t.dtype is paddle.int32
    assert isinstance(t.dtype, paddle.dtype)
    assert str(t.dtype) == "paddle.int32"


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


# What Paddle 3.3.1 gives (checked against the installed Paddle by
# tests/test_paddle_parity_dtypes.py): the str, the enum name and number of its DataType.
PADDLE_PRINTS = {"float32": ("paddle.float32", "FLOAT32", 10),
                 "int64": ("paddle.int64", "INT64", 9), "bool": ("paddle.bool", "BOOL", 1),
                 "uint8": ("paddle.uint8", "UINT8", 2),
                 "float16": ("paddle.float16", "FLOAT16", 15),
                 "complex128": ("paddle.complex128", "COMPLEX128", 13)}


@pytest.mark.parametrize("name", sorted(PADDLE_PRINTS))
def test_dtypes_print_as_paddles(name):
    d = getattr(paddle, name)
    text, enum, number = PADDLE_PRINTS[name]
    assert str(d) == text and f"{d}" == text and "%s" % d == text and "{}".format(d) == text
    assert repr(d) == f"<DataType.{enum}: {number}>" and "%r" % (d,) == repr(d)
    assert str([d]) == f"[<DataType.{enum}: {number}>]"
    assert d.name == enum and d.value == number and int(d) == number


def test_every_dtype_has_paddles_enum_number():
    assert set(DTYPES) - {"bfloat16"} <= set(PADDLE_CODES)
    assert len(set(PADDLE_CODES.values())) == len(PADDLE_CODES)


def test_paddle_idioms_on_printed_dtypes():
    x = paddle.to_tensor([1.0, 2.0])
    assert str(x.dtype) == "paddle.float32"
    assert str(x.dtype).split(".")[-1] == "float32"
    assert "float" in str(x.dtype)
    assert format(x.dtype, ">16") == "  paddle.float32"
    assert f"dtype={x.astype('int64').dtype}" == "dtype=paddle.int64"


def _branch_on_printed_dtype(x):
    if str(x.dtype) == "paddle.float32":
        y = x + 1
    else:
        y = x - 1
    name = str(y.dtype).split(".")[-1]
    return y.astype("float64" if name == "float32" else "float32")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_printed_dtypes_inside_to_static_match_eager(dtype):
    x = paddle.to_tensor([1.0, 2.0], dtype=dtype)
    eager = _branch_on_printed_dtype(x)
    static = paddle.jit.to_static(_branch_on_printed_dtype)(x)
    assert str(static.dtype) == str(eager.dtype) == ("paddle.float64" if dtype == "float32"
                                                     else "paddle.float32")
    np.testing.assert_array_equal(static.numpy(), eager.numpy())


def test_tensor_and_layer_reprs_show_the_plain_name():
    x = paddle.to_tensor([1, 2], dtype="int64")
    assert "dtype=int64," in repr(x) and "paddle." not in repr(x)
    assert "dtype=float32" in repr(paddle.nn.Linear(2, 3))
    spec = paddle.static.InputSpec([None, 3], "float32", "x")
    assert "dtype=paddle.float32" in repr(spec)


def test_comparisons_and_hashing():
    f = paddle.float32
    assert f == paddle.float32 and f != paddle.float64
    assert f in [paddle.float16, paddle.float32] and f not in [paddle.float16, paddle.bfloat16]
    assert {f: 1}[paddle.float32] == 1
    # beyond Paddle (whose dtype never equals a string): the plain name still compares equal and
    # finds the same dict entry, so code written for either keeps working
    assert f == "float32" and f != "paddle.float32" and {f: 1}["float32"] == 1
    assert hash(f) == hash("float32")


def test_conversions_from_other_spellings_give_the_same_dtype():
    x = paddle.to_tensor([1.0])
    for spelling in ("float64", paddle.float64, np.float64, np.dtype("float64"), "paddle.float64"):
        assert x.astype(spelling).dtype is paddle.float64
        assert paddle.to_tensor([1], dtype=spelling).dtype is paddle.float64


def test_numpy_and_json_read_the_plain_name():
    assert np.dtype(paddle.int64) == np.int64
    assert np.zeros(2, dtype=paddle.float16).dtype == np.float16
    assert json.dumps({"dtype": paddle.bool}) == '{"dtype": "bool"}'


def test_pickling_and_copying_give_the_same_dtype_back():
    for d in (paddle.float32, paddle.int8, paddle.complex64):
        assert pickle.loads(pickle.dumps(d)) is d
        assert copy.copy(d) is d and copy.deepcopy([d])[0] is d


def test_dtype_name_reads_every_spelling():
    assert dtype_name(paddle.int64) == "int64" and type(dtype_name(paddle.int64)) is str
    assert dtype_name("paddle.float16") == "float16"
    assert dtype_name(np.dtype("uint8")) == "uint8" and dtype_name(bool) == "bool"
    with pytest.raises(TypeError, match="unsupported dtype 'float8'"):
        dtype_name("float8")
    assert dtype_text("float8") == "float8" and dtype_text(paddle.float16) == "float16"


def test_data_feeder_convert_dtype_gives_plain_names():
    convert = paddle.base.data_feeder.convert_dtype
    assert convert(paddle.float32) == "float32" and type(convert(paddle.float32)) is str
    assert convert(np.int64) == "int64" and convert("bool") == "bool"
    with pytest.raises(TypeError, match="unsupported dtype"):
        convert("foo")


def test_finfo_iinfo_and_default_dtype_hold_plain_names():
    info = paddle.finfo(paddle.float32)
    assert info.bits == 32 and info.dtype == "float32" and type(info.dtype) is str
    assert paddle.iinfo(paddle.int64).dtype == "int64"
    assert type(paddle.get_default_dtype()) is str and paddle.get_default_dtype() == "float32"
