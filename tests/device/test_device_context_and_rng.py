"""paddle.device.device (a context manager), is_available, is_bf16_supported, manual_seed,
get_rng_state / set_rng_state and the typed tensor constructors of paddle.device."""
import numpy as np

import dy2st as paddle

device = paddle.device


def test_device_context_restores_the_previous_device():
    before = device.get_device()
    with device.device("cpu"):
        assert device.get_device() == "cpu"
    assert device.get_device() == before


def test_availability_queries_on_the_cpu():
    assert device.is_available() is False       # no accelerator: device_count() is 0
    assert device.is_bf16_supported() == ("bfloat16" in paddle.runtime.dtype.DTYPES)


def test_rng_state_round_trip_and_manual_seed():
    state = device.get_rng_state()
    a = paddle.rand([4]).numpy()
    device.set_rng_state(state)
    assert np.array_equal(paddle.rand([4]).numpy(), a)
    device.manual_seed(11)
    b = paddle.randn([3]).numpy()
    paddle.seed(11)
    assert np.array_equal(paddle.randn([3]).numpy(), b)
    assert not np.array_equal(paddle.randn([3]).numpy(), b)


def test_typed_tensors_are_paddles():
    assert device.FloatTensor is paddle.FloatTensor
    t = device.LongTensor([1, 2])
    assert t.dtype == "int64" and isinstance(t, device.LongTensor)
