"""Changing an op's input in place after the op used it: backward refuses exactly when the op's
VJP reads that input's values (Paddle's inplace-version check), over the whole gradient case
table (every rule). Each case's input i is changed to other valid values after the forward run;
then either backward refuses with a GradientError naming the op and the change, and the
gradient does depend on input i's values (the refusal was needed), or backward succeeds and
gives exactly the gradient of the unchanged run (nothing stale was read)."""
from typing import Any, List, Optional

import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd import GradientError
from tests.autograd.vjp_cases import CASES, Case, Float, cotangents, float_outputs

CHANGED_SEED = 7


def _grads(case: Case, arrays: List[np.ndarray], cots: List[np.ndarray],
           change: Optional[int] = None, new: Optional[np.ndarray] = None) -> List[Any]:
    """Gradients of sum(out * cot) w.r.t. the differentiated inputs. Each input reaches the
    case's function as `leaf * 1.0` (a non-leaf, so it may be changed in place); with
    `change`, that input is set to `new` in place after the forward run."""
    diff = set(case.diff)
    leaves = [paddle.to_tensor(a, stop_gradient=i not in diff) for i, a in enumerate(arrays)]
    used = [t * 1.0 if i in diff else paddle.to_tensor(a) for i, (t, a) in
            enumerate(zip(leaves, arrays))]
    paddle.seed(0)
    outs = float_outputs(case.fn(*used))
    loss = outs[0].sum() * 0.0
    for o, c in zip(outs, cots):
        loss = loss + (o * paddle.to_tensor(c)).sum()
    if change is not None:
        used[change][...] = paddle.to_tensor(new)
    found = paddle.grad([loss], [leaves[i] for i in case.diff], allow_unused=True)
    return [np.zeros_like(arrays[i]) if g is None else g.numpy()
            for i, g in zip(case.diff, found)]


def _same(a: List[np.ndarray], b: List[np.ndarray], case: Case) -> bool:
    return all(np.allclose(x, y, rtol=case.rtol, atol=case.atol) for x, y in zip(a, b))


# Rules that read an input's values although this gradient does not depend on them (a kernel
# taking the array for its shape and dtype, a mask recomputed where it cannot change): their
# refusal is the conservative one of Paddle's version check, kept as declared here.
READ_WITHOUT_DEPENDING = {
    ("nll_loss", 0): "hard_label_target takes x's array for its shape and dtype",
    ("put_along_axis_mul_no_self", 2): "the mul reduction's rule reads the values it scatters",
    ("grid_sample_nearest", 0): "the rule reads x to build the sampling result's gradient",
    ("grid_sample_5d_border_nearest", 0): "as grid_sample_nearest",
    ("hardshrink_threshold", 0): "the mask |x| > threshold is recomputed from x",
    ("softshrink_threshold", 0): "the mask |x| > threshold is recomputed from x",
}

FLOAT_INPUTS = [(case, i) for case in CASES for i, spec in enumerate(case.inputs)
                if isinstance(spec, Float) and spec.data is None]


@pytest.mark.parametrize("case, i", FLOAT_INPUTS, ids=lambda v: v.name if isinstance(v, Case)
                         else f"input{v}")
def test_refusal_exactly_when_the_vjp_reads_the_changed_input(case, i):
    arrays = case.arrays()
    cots = cotangents(case, arrays)
    base = _grads(case, arrays, cots)
    new = case.inputs[i].make(np.random.default_rng(CHANGED_SEED))
    try:
        got = _grads(case, arrays, cots, change=i, new=new)
    except GradientError as e:
        assert "changed in place after the op used it" in str(e), str(e)
        moved = list(arrays)
        moved[i] = new
        independent = _same(base, _grads(case, moved, cots), case)
        assert independent == ((case.name, i) in READ_WITHOUT_DEPENDING), (
            f"{case.name}: refused although its gradient does not depend on input {i}: {e}")
        return
    assert (case.name, i) not in READ_WITHOUT_DEPENDING, f"{case.name}: no longer refuses"
    assert _same(got, base, case), f"{case.name}: input {i} changed in place, stale gradient"


def test_subtract_in_place_of_a_value_scaled_by_a_constant():
    """The reviewed case: g * 2.0 saves nothing the change invalidates (Paddle's answer)."""
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    g = x * 3.0
    g.subtract_(g * 2.0)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-3.0, -3.0, -3.0])


def test_a_product_of_two_tensors_still_refuses():
    """y * g reads g for y's gradient: changing g in place before backward is refused."""
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = paddle.to_tensor([3.0, 4.0], stop_gradient=False)
    g = x * 1.0
    out = y * g
    g.add_(paddle.to_tensor([1.0, 1.0]))
    with pytest.raises(GradientError, match="changed in place after the op used it"):
        out.sum().backward()


def test_outputs_changed_in_place_keep_their_old_value_for_the_vjp():
    """exp's VJP reads its output: changing the output in place after use leaves the rule the
    value exp computed (outputs are kept as arrays, never written in place)."""
    x = paddle.to_tensor([0.5, -1.0], stop_gradient=False)
    e = paddle.exp(x)
    loss = (e * 2.0).sum()
    e.add_(paddle.to_tensor([10.0, 10.0]))
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.exp([0.5, -1.0]), rtol=1e-6)
