"""paddle.Generator, paddle.seed and paddle.get_rng_state / set_rng_state: one CPU generator
whose states replay the same numbers, eagerly and in converted code."""
import copy

import numpy as np
import pytest

import dy2st as paddle


def test_generator_is_the_default_generator_that_seed_returns():
    g = paddle.Generator()
    assert g is paddle.Generator("cpu") is paddle.Generator(paddle.CPUPlace())
    assert paddle.seed(11) is g and g.initial_seed() == 11
    a = paddle.rand([3]).numpy()
    assert g.manual_seed(11) is g
    np.testing.assert_array_equal(paddle.rand([3]).numpy(), a)


def test_states_replay_the_same_numbers_from_every_entry_point():
    g = paddle.Generator()
    g.manual_seed(3)
    for get, put in ((g.get_state, g.set_state),
                     (paddle.get_rng_state, paddle.set_rng_state),
                     (paddle.device.get_rng_state, paddle.device.set_rng_state)):
        state = get()
        a = paddle.randn([4]).numpy()
        put(state)
        np.testing.assert_array_equal(paddle.randn([4]).numpy(), a)
    # a state taken by one entry point restores through another
    state = paddle.get_rng_state()
    a = paddle.rand([2]).numpy()
    g.set_state(state[0])
    np.testing.assert_array_equal(paddle.rand([2]).numpy(), a)
    assert state[0].current_seed() == 3


def test_a_state_is_a_snapshot_not_a_view():
    g = paddle.Generator()
    g.manual_seed(5)
    state = g.get_state()
    kept = copy.copy(state)
    a = paddle.rand([2]).numpy()
    paddle.rand([5])
    g.set_state(kept)
    np.testing.assert_array_equal(paddle.rand([2]).numpy(), a)
    g.set_state(state)
    np.testing.assert_array_equal(paddle.rand([2]).numpy(), a)


def test_converted_code_draws_from_the_generator_at_each_call():
    @paddle.jit.to_static
    def noisy(x):
        return x + paddle.rand([3])

    x = paddle.zeros([3])
    g = paddle.Generator()
    g.manual_seed(9)
    first = noisy(x).numpy()
    g.manual_seed(9)
    np.testing.assert_array_equal(noisy(x).numpy(), first)
    assert not np.array_equal(noisy(x).numpy(), first)


def test_seed_and_random_and_registered_streams():
    g = paddle.Generator()
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    r = g.random()
    assert isinstance(r, int) and 0 <= r < 2 ** 64
    g.manual_seed(1)
    assert g.get_state_index() == 0
    index = g.register_state_index(g.get_state())
    # registering switches to the new stream (the process's one generator: other tests may have
    # registered streams before)
    assert index >= 1 and g.get_state_index() == index
    a = paddle.rand([2]).numpy()
    g.set_state_index(0)             # stream 0 has not moved since it was copied
    np.testing.assert_array_equal(paddle.rand([2]).numpy(), a)
    g.set_state_index(index)         # the new stream resumes after a
    b = paddle.rand([2]).numpy()
    assert not np.array_equal(a, b)
    g.set_state_index(0)


def test_bad_seeds_devices_and_states_are_refused():
    g = paddle.Generator()
    with pytest.raises(ValueError, match=r"\[0, 2\*\*64\)"):
        paddle.seed(-1)
    with pytest.raises(TypeError, match="must be an int"):
        g.manual_seed(1.5)
    with pytest.raises(ValueError, match="CPU only"):
        paddle.Generator("gpu")
    with pytest.raises(IndexError, match="not registered"):
        g.set_state_index(99)
    with pytest.raises(TypeError, match="get_state"):
        g.set_state([1, 2])
    with pytest.raises(ValueError, match="one \\(CPU\\) generator"):
        paddle.set_rng_state([g.get_state(), g.get_state()])
