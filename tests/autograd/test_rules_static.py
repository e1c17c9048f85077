"""The gradient rules applied to static Variables with an unknown batch dim give the eager
gradients: static `gradients` (append_backward) runs every case of the table, and a program
writing, overwriting, reading, stacking and concatenating a tensor array."""
from typing import Any, List

import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd.static_api import gradients
from dy2st.runtime.ops import array as arrays_api
from tests.autograd.vjp_cases import CASES, Case, Float, cotangents, eager_grads, f, float_outputs


def _static_inputs(case: Case, arrays: List[np.ndarray]) -> List[Any]:
    """static.data inputs, float ones with an unknown first dim."""
    xs = []
    for i, (a, spec) in enumerate(zip(arrays, case.inputs)):
        shape = [None if k == 0 and isinstance(spec, Float) else d for k, d in enumerate(a.shape)]
        xs.append(paddle.static.data(f"x{i}", shape, str(a.dtype)))
    return xs


def _run(main: Any, arrays: List[np.ndarray], cots: List[np.ndarray], fetch: List[Any]) -> List[Any]:
    feed = {f"x{i}": a for i, a in enumerate(arrays)}
    feed.update({f"c{k}": c for k, c in enumerate(cots)})
    got = iter(paddle.static.Executor().run(main, feed=feed,
                                            fetch_list=[g for g in fetch if g is not None]))
    return [next(got) if g is not None else None for g in fetch]


def static_grads(case: Case, arrays: List[np.ndarray], cots: List[np.ndarray]) -> List[Any]:
    """The gradients of sum(out * cot) that static `gradients` computes."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xs = _static_inputs(case, arrays)
        paddle.seed(0)
        outs = float_outputs(case.fn(*xs))
        cs = [paddle.static.data(f"c{k}", list(c.shape), str(c.dtype))
              for k, c in enumerate(cots)]
        fetch = gradients(outs, [xs[i] for i in case.diff], target_gradients=cs)
    return _run(main, arrays, cots, fetch)


def check_static(case: Case, seed: int = 0) -> None:
    arrays = case.arrays(seed)
    cots = cotangents(case, arrays, seed + 1)
    for k, (want, got) in enumerate(zip(eager_grads(case, arrays, cots),
                                        static_grads(case, arrays, cots))):
        if want is None:
            assert got is None or not np.any(got), f"{case.name}: input {k}"
            continue
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-10,
                                   err_msg=f"{case.name}: gradient of input {case.diff[k]}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_static_rules_match_eager(case):
    check_static(case)


def _writes_reads_stacks(x0, x1, x2):
    arr = arrays_api.create_array("float64")
    arr = arrays_api.array_write(x0, 0, arr)
    arr = arrays_api.array_write(x1, 1, arr)
    r = arrays_api.array_read(arr, 1)
    arr = arrays_api.array_write(x2, 0, arr)          # overwrites x0: it gets no gradient
    return arrays_api.array_stack(arr, 1), r * 2.0, arrays_api.array_concat(arr, 0)


def test_static_tensor_array_gradients():
    case = Case("arrays", _writes_reads_stacks, [f(2, 3), f(2, 3), f(2, 3)])
    data = case.arrays()
    rng = np.random.default_rng(1)
    c_stack, c_read, c_cat = rng.standard_normal((2, 2, 3)), rng.standard_normal((2, 3)), \
        rng.standard_normal((4, 3))
    g0, g1, g2 = static_grads(case, data, [c_stack, c_read, c_cat])
    np.testing.assert_array_equal(g0, np.zeros((2, 3)))
    np.testing.assert_allclose(g1, c_stack[:, 1] + 2 * c_read + c_cat[2:])
    np.testing.assert_allclose(g2, c_stack[:, 0] + c_cat[:2])
