"""Gradient clipping: ClipGradByValue / ClipGradByNorm / ClipGradByGlobalNorm numbers, alone and
inside an optimizer (clipped before weight decay is added, as Paddle does)."""
import types

import numpy as np
import pytest

import dy2st as paddle
from tests.support import parameters_with_grads, run_steps


def _pairs(arrays):
    return [(None, paddle.to_tensor(a)) for a in arrays]


GRADS = [np.array([[3.0, -4.0], [1.0, 0.5]]), np.array([12.0, -0.1, 2.0])]


def test_clip_by_value():
    out = paddle.nn.ClipGradByValue(max=1.0, min=-0.5)(_pairs(GRADS))
    for (_, g), a in zip(out, GRADS):
        np.testing.assert_array_equal(g.numpy(), np.clip(a, -0.5, 1.0))
    sym = paddle.nn.ClipGradByValue(2.0)(_pairs(GRADS))
    np.testing.assert_array_equal(sym[1][1].numpy(), np.clip(GRADS[1], -2.0, 2.0))


def test_clip_by_norm_scales_each_gradient_separately():
    out = paddle.nn.ClipGradByNorm(clip_norm=5.0)(_pairs(GRADS))
    for (_, g), a in zip(out, GRADS):
        norm = np.sqrt((a * a).sum())
        want = a * 5.0 / norm if norm > 5.0 else a
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-14)
    # the first gradient (norm ~5.12) is scaled, a small one is not
    small = [np.array([0.3, 0.4])]
    np.testing.assert_array_equal(paddle.nn.ClipGradByNorm(1.0)(_pairs(small))[0][1].numpy(),
                                  small[0])


@pytest.mark.parametrize("clip_norm", [1.0, 100.0])
def test_clip_by_global_norm(clip_norm):
    out = paddle.nn.ClipGradByGlobalNorm(clip_norm)(_pairs(GRADS))
    total = np.sqrt(sum((a * a).sum() for a in GRADS))
    scale = clip_norm / max(total, clip_norm)
    for (_, g), a in zip(out, GRADS):
        np.testing.assert_allclose(g.numpy(), a * scale, rtol=1e-14)


def test_need_clip_false_and_missing_gradients_pass_through():
    # Paddle's Parameter.need_clip (from ParamAttr); any object carrying it is honoured
    frozen = types.SimpleNamespace(need_clip=False)
    big, kept = np.array([30.0, 40.0]), np.array([100.0, 0.0])
    pairs = [(None, paddle.to_tensor(big)), (frozen, paddle.to_tensor(kept)), (None, None)]
    out = paddle.nn.ClipGradByGlobalNorm(5.0)(pairs)
    np.testing.assert_allclose(out[0][1].numpy(), big / 10.0)      # norm of big alone: 50
    np.testing.assert_array_equal(out[1][1].numpy(), kept)
    assert out[2][1] is None


def test_bad_clip_arguments():
    with pytest.raises(ValueError, match="max"):
        paddle.nn.ClipGradByValue(max=-1.0, min=0.0)
    with pytest.raises(TypeError, match="clip_norm"):
        paddle.nn.ClipGradByNorm("1")


@pytest.mark.parametrize("clip", [paddle.nn.ClipGradByGlobalNorm(0.5),
                                  paddle.nn.ClipGradByNorm(0.3),
                                  paddle.nn.ClipGradByValue(0.2)])
def test_optimizer_clips_before_adding_weight_decay(clip):
    params, grads = parameters_with_grads(1, [(3, 2), (4,)], 3)
    want = [p.numpy().copy() for p in params]
    lr, wd = 0.1, 0.05
    for step in grads:
        clipped = [g.numpy() for _, g in clip(_pairs(step))]
        want = [v - lr * (g + wd * v) for v, g in zip(want, clipped)]
    opt = paddle.optimizer.SGD(lr, parameters=params, weight_decay=wd, grad_clip=clip)
    run_steps(opt, params, grads)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-12)
