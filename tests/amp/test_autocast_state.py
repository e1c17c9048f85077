"""paddle.amp's state getters (is_autocast_enabled, get_autocast_*dtype) and the torch-style
paddle.autocast, which casts like auto_cast(level="O1")."""
import numpy as np
import pytest

import dy2st as paddle

GETTERS = ("get_autocast_dtype", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype")


def test_state_outside_and_inside_auto_cast():
    assert paddle.amp.is_autocast_enabled() is False
    assert all(getattr(paddle.amp, g)() == "float16" for g in GETTERS)
    with paddle.amp.auto_cast(level="O1"):
        assert paddle.amp.is_autocast_enabled()
        assert all(getattr(paddle.amp, g)() == "float16" for g in GETTERS)
        with paddle.amp.auto_cast(enable=False):
            assert not paddle.amp.is_autocast_enabled()
    assert not paddle.amp.is_autocast_enabled()


@pytest.mark.skipif(not paddle.amp.is_bfloat16_supported(), reason="ml_dtypes not installed")
def test_dtype_getters_follow_a_bfloat16_block():
    with paddle.amp.auto_cast(dtype="bfloat16"):
        assert all(getattr(paddle.amp, g)() == "bfloat16" for g in GETTERS)


def test_top_level_names_are_the_amp_ones():
    for name in ("is_autocast_enabled",) + GETTERS:
        assert getattr(paddle, name) is getattr(paddle.amp, name)


def test_autocast_casts_white_list_ops_and_restores():
    x = paddle.to_tensor(np.ones((2, 2), "float32"))
    with paddle.autocast("cpu", dtype="float16"):
        assert paddle.is_autocast_enabled()
        assert paddle.matmul(x, x).dtype == "float16"
    assert paddle.matmul(x, x).dtype == "float32"
    with paddle.autocast("cpu", enabled=False):
        assert paddle.matmul(x, x).dtype == "float32"
