"""Program.random_seed as in Paddle 3.3.1: a seeded program's dropout draws one mask on every run
and in every program of the same seed; a seeded startup program initialises the parameters
created in its program_guard reproducibly; rand / randn keep drawing from the global generator."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.config import rng


def build(seed=None, startup_seed=None):
    main, startup = paddle.static.Program(), paddle.static.Program()
    if seed is not None:
        main.random_seed = seed
    if startup_seed is not None:
        startup.random_seed = startup_seed
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 2], "float32")
        hidden = paddle.static.nn.fc(x, 3)
        dropped = paddle.nn.functional.dropout(paddle.ones([64]), 0.5)
        drawn = paddle.rand([4])
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)

    def run():
        return exe.run(main, feed={"x": np.ones((1, 2), "float32")},
                       fetch_list=[hidden, dropped, drawn])
    return main, run


def test_the_seed_is_0_until_set_and_must_be_an_int(static_mode):
    main = paddle.static.Program()
    assert main.random_seed == 0
    main.random_seed = np.int64(7)
    assert main.random_seed == 7 and type(main.random_seed) is int
    for bad in ("1", 1.5, True):
        with pytest.raises(TypeError, match="random_seed must be an int"):
            main.random_seed = bad
    assert main.clone().random_seed == 7


def test_a_seeded_programs_dropout_draws_the_same_mask_on_every_run(static_mode):
    _, run = build(seed=5)
    first, second = run(), run()
    np.testing.assert_array_equal(first[1], second[1])
    assert 0 < (first[1] == 0).sum() < 64
    # rand is not seeded by the program (as in Paddle 3.3.1): a new draw on each run
    assert not np.array_equal(first[2], second[2])
    # another program of the same seed draws the same mask; another seed, another one
    np.testing.assert_array_equal(build(seed=5)[1]()[1], first[1])
    assert not np.array_equal(build(seed=6)[1]()[1], first[1])


def test_without_a_seed_each_run_draws_a_new_mask(static_mode):
    _, run = build()
    assert not np.array_equal(run()[1], run()[1])


def test_a_seeded_startup_program_initialises_the_parameters_reproducibly(static_mode):
    paddle.seed(3)
    outside = rng().random(3)
    paddle.seed(3)
    _, run = build(startup_seed=9)
    # building did not draw from the global stream: it goes on where it was
    np.testing.assert_array_equal(rng().random(3), outside)
    first = run()[0]
    np.testing.assert_array_equal(build(startup_seed=9)[1]()[0], first)
    assert not np.array_equal(build(startup_seed=10)[1]()[0], first)
    assert not np.array_equal(build()[1]()[0], build()[1]()[0])
