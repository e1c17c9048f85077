"""paddle.vision.ops against PaddlePaddle itself (skipped where Paddle is not installed): the
same inputs through both, values and gradients."""
import numpy as np
import pytest

import dy2st
from dy2st.vision import ops as vops

paddle = pytest.importorskip("paddle", reason="PaddlePaddle is not installed (reference only)")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 8, 9, 11)).astype("float32")
BOXES = np.array([[1, 1, 6, 7], [0.3, 2.2, 10.5, 8.9], [-2, -1, 3, 4], [4, 5, 4.2, 5.1],
                  [2, 3, 8, 8]], "float32")
NUM = np.array([3, 2], "int32")


def both(name, *arrays, grad=None, **kw):
    """fn(*arrays, **kw) in Paddle and in dy2st; with grad=i (or a tuple) also the gradients
    of those inputs."""
    outs = []
    wanted = (grad,) if isinstance(grad, int) else tuple(grad or ())
    for lib, ops in ((paddle, paddle.vision.ops), (dy2st, vops)):
        ts = [lib.to_tensor(a, stop_gradient=i not in wanted) if isinstance(a, np.ndarray) else a
              for i, a in enumerate(arrays)]
        out = getattr(ops, name)(*ts, **kw)
        flat = []
        for o in (out if isinstance(out, (tuple, list)) else [out]):
            flat += list(o) if isinstance(o, list) else [o]
        got = [o.numpy() for o in flat if o is not None]
        if grad is not None:
            (out * lib.to_tensor(np.cos(np.arange(out.size)).reshape(out.shape)
                                 .astype(out.numpy().dtype))).sum().backward()
            got += [ts[i].grad.numpy() for i in wanted]
        outs.append(got)
    return outs


@pytest.mark.parametrize("scale,ratio,aligned", [(1.0, -1, True), (0.7, 2, False),
                                                 (0.5, -1, False)])
def test_roi_align(scale, ratio, aligned):
    want, got = both("roi_align", X, BOXES, NUM, (3, 2), scale, ratio, aligned)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)


def test_roi_align_gradient_away_from_sub_pixel_boxes():
    # Paddle's CPU gradient kernel differs from its forward for boxes under a pixel wide
    # (box 3); dy2st's gradient is that of the forward (finite differences in tests/autograd)
    keep = [0, 1, 2, 4]
    want, got = both("roi_align", X, BOXES[keep], np.array([3, 1], "int32"), (3, 2), 0.7,
                     grad=0)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,size", [("roi_pool", (3, 2)), ("psroi_pool", (2, 2))])
@pytest.mark.parametrize("scale", [1.0, 0.7])
def test_roi_pool_and_psroi_pool_with_gradients(name, size, scale):
    want, got = both(name, X, BOXES, NUM, size, scale, grad=0)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("stride,pad,dil,dg,groups,masked", [(1, 1, 1, 1, 1, False),
                                                            (2, 0, 1, 2, 2, True),
                                                            (1, 2, 2, 1, 1, True)])
def test_deform_conv2d_with_gradients(stride, pad, dil, dg, groups, masked):
    x = RNG.standard_normal((2, 4, 7, 8))
    ho = (7 + 2 * pad - (dil * 2 + 1)) // stride + 1
    wo = (8 + 2 * pad - (dil + 1)) // stride + 1
    offset = RNG.standard_normal((2, 2 * dg * 6, ho, wo)) * 2
    w = RNG.standard_normal((6, 4 // groups, 3, 2))
    mask = RNG.uniform(0, 1, (2, dg * 6, ho, wo)) if masked else None
    # (Paddle 3.3.1 crashes differentiating with a mask that does not need a gradient)
    want, got = both("deform_conv2d", x, offset, w, None, stride, pad, dil, dg, groups, mask,
                     grad=(0, 1, 2, 9) if masked else (0, 1, 2))
    assert len(got) == (5 if masked else 4)
    for g, v in zip(got, want):
        np.testing.assert_allclose(g, v, rtol=1e-9, atol=1e-10)


def test_nms_forms():
    boxes = np.concatenate([RNG.uniform(0, 10, (30, 2)), RNG.uniform(10, 15, (30, 2))], 1)
    boxes = boxes.astype("float32")
    scores = RNG.uniform(0, 1, 30).astype("float32")
    cats = RNG.integers(0, 4, 30).astype("int64")
    for th in (0.1, 0.4):
        for args, kw in (((boxes, th), {}), ((boxes, th, scores), {}),
                         ((boxes, th, scores, cats, [0, 1, 3]), {"top_k": 5}),
                         ((boxes, th, scores, cats, [0, 1, 2, 3]), {})):
            want, got = both("nms", *args, **kw)
            np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("gaussian,normalized", [(False, True), (True, False)])
def test_matrix_nms(gaussian, normalized):
    lo = RNG.uniform(0, 1, (2, 12, 2))
    boxes = np.concatenate([lo, lo + RNG.uniform(0.1, 0.5, (2, 12, 2))], -1).astype("float32")
    scores = RNG.uniform(0, 1, (2, 3, 12)).astype("float32")
    want, got = both("matrix_nms", boxes, scores, 0.2, 0.1, 6, 8, use_gaussian=gaussian,
                     normalized=normalized, return_index=True)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pixel_offset,eta", [(False, 1.0), (True, 0.9)])
def test_generate_proposals(pixel_offset, eta):
    n, a, h, w = 2, 3, 4, 5
    scores = RNG.uniform(0, 1, (n, a, h, w)).astype("float32")
    deltas = (RNG.standard_normal((n, 4 * a, h, w)) * 0.3).astype("float32")
    cy, cx = np.meshgrid(np.arange(h) * 8 + 4, np.arange(w) * 8 + 4, indexing="ij")
    anchors = np.stack([np.stack([cx - s, cy - s, cx + s, cy + s], -1) for s in (4, 8, 12)], 2)
    var = np.broadcast_to(np.array([0.1, 0.1, 0.2, 0.2], "float32"), (h, w, a, 4)).copy()
    want, got = both("generate_proposals", scores, deltas, np.array([[40, 50], [30, 35]], "float32"),
                     anchors.astype("float32"), var, 6000, 1000, 0.6, 3.0, eta, pixel_offset, True)
    for g, v in zip(got, want):
        np.testing.assert_allclose(g, v, rtol=1e-5, atol=1e-4)


def test_distribute_fpn_proposals():
    lo = RNG.uniform(0, 300, (10, 2))
    rois = np.concatenate([lo, lo + RNG.uniform(5, 300, (10, 2))], 1).astype("float32")
    for offset in (False, True):
        want, got = both("distribute_fpn_proposals", rois, 2, 5, 4, 224, offset,
                         np.array([3, 7], "int32"))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_box_coder_and_prior_box():
    lo = RNG.uniform(0, 5, (5, 2))
    priors = np.concatenate([lo, lo + RNG.uniform(1, 5, (5, 2))], 1).astype("float32")
    var = RNG.uniform(0.1, 0.3, (5, 4)).astype("float32")
    lo = RNG.uniform(0, 5, (3, 2))
    targets = np.concatenate([lo, lo + RNG.uniform(1, 5, (3, 2))], 1).astype("float32")
    # Paddle's box_coder has no gradient; dy2st's (built from ops) is checked against finite
    # differences in tests/autograd/vjp_cases.py
    for normalized in (True, False):
        want, got = both("box_coder", priors, var, targets, "encode_center_size", normalized)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
        deltas = (RNG.standard_normal((5, 3, 4)) * 0.3).astype("float32")
        want, got = both("box_coder", priors, [0.1, 0.1, 0.2, 0.2], deltas,
                         "decode_center_size", normalized, 1)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    feat, image = np.zeros((1, 3, 6, 9), "float32"), np.zeros((1, 3, 40, 50), "float32")
    want, got = both("prior_box", feat, image, [2.0, 5.0], [4.0, 9.0], [2.0, 3.0], flip=True,
                     clip=True, min_max_aspect_ratios_order=True, steps=[8.0, 6.0], offset=0.3)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("iou_aware,clip,scale_x_y", [(False, True, 1.0), (True, False, 1.2)])
def test_yolo_box(iou_aware, clip, scale_x_y):
    x = RNG.standard_normal((2, 2 * (8 + int(iou_aware)), 4, 4)).astype("float32")
    want, got = both("yolo_box", x, np.array([[64, 80], [50, 40]], "int32"), [10, 13, 16, 30], 3,
                     0.4, 8, clip, None, scale_x_y, iou_aware, 0.4)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("smooth,scale_x_y,scored", [(True, 1.0, False), (False, 1.1, True)])
def test_yolo_loss_with_gradients(smooth, scale_x_y, scored):
    x = RNG.standard_normal((2, 2 * 8, 4, 4)).astype("float32")
    gt = np.concatenate([RNG.uniform(0.1, 0.9, (2, 4, 2)), RNG.uniform(0.05, 0.6, (2, 4, 2))],
                        -1).astype("float32")
    gt[1, 3] = 0
    gt[0, 2, :2] = gt[0, 1, :2] + 0.01
    labels = RNG.integers(0, 3, (2, 4)).astype("int32")
    score = RNG.uniform(0.5, 1, (2, 4)).astype("float32") if scored else None
    want, got = both("yolo_loss", x, gt, labels, [10, 13, 16, 30, 33, 23, 30, 61], [1, 2], 3,
                     0.5, 8, score, smooth, None, scale_x_y, grad=0)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
