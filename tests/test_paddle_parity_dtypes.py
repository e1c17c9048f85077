"""How dtypes print and promote, compared with the installed PaddlePaddle 3.3.1 itself (skipped
without it; tests/runtime/test_dtype.py and tests/runtime/test_dtype_promotion_parity.py check
the same values, recorded from Paddle)."""
import numpy as np
import pytest

import dy2st

real = pytest.importorskip("paddle", reason="PaddlePaddle is not installed: "
                                            "tests/runtime/test_dtype.py covers these values")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
         "complex64", "complex128", "uint32", "uint64"]


@pytest.mark.parametrize("name", NAMES)
def test_dtype_prints_as_paddles(name):
    ours, theirs = getattr(dy2st, name), getattr(real, name)
    assert str(ours) == str(theirs) and f"{ours}" == f"{theirs}" and "%s" % ours == "%s" % theirs
    assert repr(ours) == repr(theirs)
    assert (ours.name, ours.value, int(ours)) == (theirs.name, theirs.value, int(theirs))


def test_tensor_dtypes_print_as_paddles():
    for dtype in ("float32", "int64", "bool"):
        ours, theirs = dy2st.to_tensor([1], dtype=dtype), real.to_tensor([1], dtype=dtype)
        assert str(ours.dtype) == str(theirs.dtype) and repr(ours.dtype) == repr(theirs.dtype)
        assert isinstance(ours.dtype, dy2st.dtype) and isinstance(theirs.dtype, real.dtype)
        assert str(ours.astype("float64").dtype) == str(theirs.astype("float64").dtype)


def test_convert_dtype_gives_paddles_names():
    for d in ("float32", "bool", "int64"):
        ours = dy2st.base.data_feeder.convert_dtype(getattr(dy2st, d))
        assert ours == real.base.data_feeder.convert_dtype(getattr(real, d))
    assert dy2st.base.data_feeder.convert_dtype("bfloat16") == \
        real.base.data_feeder.convert_dtype("bfloat16") == "uint16"


def _tensor(m, dtype):
    values = [1 + 1j, 2] if dtype == "complex64" else [1, 2]
    return m.to_tensor(np.array(values)).astype(dtype)


def test_binary_ops_promote_or_refuse_as_paddle():
    names = ["bool", "int32", "int64", "float32", "float64", "complex64"]
    for a in names:
        for b in names:
            for op in (lambda x, y: x + y, lambda x, y: x >= y):
                outcome = []
                for m in (dy2st, real):
                    try:
                        outcome.append(str(op(_tensor(m, a), _tensor(m, b)).dtype))
                    except (TypeError, ValueError):
                        outcome.append("refused")
                assert outcome[0] == outcome[1], (a, b, outcome)
