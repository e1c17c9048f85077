"""The whole optimize() pipeline keeps random programs and traced to_static programs identical."""
import os
import sys

import numpy as np
from random_programs import check_pass

import dy2st as paddle
from dy2st.runtime.passes import optimize

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "benchmarks"))


def test_random_programs_identical_after_optimize():
    assert check_pass(optimize, range(80)) >= 40


def test_benchmark_models_static_equals_eager_bit_for_bit():
    import models
    for name, (fn, _, data) in models.BENCHMARKS.items():
        _, args = data()
        targs = tuple(paddle.to_tensor(a) for a in args)
        sf = paddle.jit.to_static(models.fresh(fn))
        for _ in range(2):
            got, want = sf(*targs).numpy(), fn(*targs).numpy()
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), name
        for t, a in zip(targs, args):
            np.testing.assert_array_equal(t.numpy(), a)
