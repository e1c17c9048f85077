"""paddle.vision.ops detection ops against plain numpy references: nms (all its forms),
matrix_nms, generate_proposals, distribute_fpn_proposals, box_coder, prior_box, yolo_box and
yolo_loss; under to_static with inputs of changing length; read_file / decode_jpeg."""
import math

import numpy as np
import pytest

import dy2st as paddle
from dy2st.vision import ops as vops

RNG = np.random.default_rng(0)


def random_boxes(n, span=10.0, seed=0):
    rng = np.random.default_rng(seed)
    lo = rng.uniform(0, span, (n, 2))
    return np.concatenate([lo, lo + rng.uniform(span / 10, span / 2, (n, 2))], 1)


def iou(a, b):
    w = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0)
    h = max(min(a[3], b[3]) - max(a[1], b[1]), 0.0)
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def nms_ref(boxes, threshold, order):
    kept = []
    for i in order:
        if all(iou(boxes[i], boxes[k]) <= threshold for k in kept):
            kept.append(i)
    return kept


@pytest.mark.parametrize("threshold", [0.0, 0.2, 0.5, 0.9])
def test_nms_plain_and_scored_match_the_greedy_reference(threshold):
    boxes = random_boxes(40)
    scores = RNG.uniform(0, 1, 40)
    got = vops.nms(paddle.to_tensor(boxes), threshold)
    assert got.dtype == paddle.int64
    assert got.numpy().tolist() == nms_ref(boxes, threshold, range(40))
    got = vops.nms(paddle.to_tensor(boxes), threshold, paddle.to_tensor(scores))
    assert got.numpy().tolist() == nms_ref(boxes, threshold, np.argsort(-scores, kind="stable"))


def test_nms_per_category_with_top_k():
    boxes = random_boxes(30, seed=1)
    scores = RNG.uniform(0, 1, 30)
    cats = RNG.integers(0, 4, 30)
    kept = []
    for c in (0, 2, 3):       # category 1 is not listed: its boxes are dropped
        members = [i for i in np.argsort(-scores, kind="stable") if cats[i] == c]
        kept += nms_ref(boxes, 0.3, members)
    kept.sort(key=lambda i: -scores[i])
    args = [paddle.to_tensor(boxes), 0.3, paddle.to_tensor(scores), paddle.to_tensor(cats),
            [0, 2, 3]]
    assert vops.nms(*args).numpy().tolist() == kept
    assert vops.nms(*args, top_k=4).numpy().tolist() == kept[:4]
    with pytest.raises(ValueError, match="categories"):
        vops.nms(*args[:4])
    with pytest.raises(ValueError, match="top_k"):
        vops.nms(*args, top_k=31)


def test_nms_under_to_static_follows_the_number_of_boxes():
    @paddle.jit.to_static(input_spec=[paddle.static.InputSpec([None, 4], "float64"),
                                      paddle.static.InputSpec([None], "float64")])
    def keep(boxes, scores):
        return vops.nms(boxes, 0.4, scores)
    for n, seed in ((12, 2), (25, 3), (1, 4)):
        boxes, scores = random_boxes(n, seed=seed), np.random.default_rng(seed).uniform(0, 1, n)
        want = nms_ref(boxes, 0.4, np.argsort(-scores, kind="stable"))
        assert keep(paddle.to_tensor(boxes), paddle.to_tensor(scores)).numpy().tolist() == want


def test_matrix_nms_decays_overlapping_scores():
    # two identical boxes: the lower one decays to 0 (linear), a far box keeps its score
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 1], [5, 5, 6, 6]]], "float32")
    scores = np.array([[[0.0, 0.0, 0.0], [0.9, 0.8, 0.7]]], "float32")
    out, num, index = vops.matrix_nms(paddle.to_tensor(boxes), paddle.to_tensor(scores), 0.1,
                                      0.05, -1, -1, return_index=True)
    np.testing.assert_allclose(out.numpy(), [[1, 0.9, 0, 0, 1, 1], [1, 0.7, 5, 5, 6, 6]])
    assert num.numpy().tolist() == [2] and index.numpy().ravel().tolist() == [0, 2]
    out, _, _ = vops.matrix_nms(paddle.to_tensor(boxes), paddle.to_tensor(scores), 0.1, 0.05,
                                -1, -1, use_gaussian=True, gaussian_sigma=2.0)
    # the Gaussian decay of the duplicate: exp(-(1 - 0) * 2) * 0.8
    np.testing.assert_allclose(sorted(out.numpy()[:, 1]), sorted([0.9, 0.7, 0.8 * math.exp(-2)]),
                               rtol=1e-6)
    assert vops.matrix_nms(paddle.to_tensor(boxes), paddle.to_tensor(scores), 0.1, 0.05, -1, -1,
                           return_rois_num=False)[1] is None


def test_generate_proposals_decodes_clips_and_suppresses():
    # one anchor per cell, zero deltas: the proposals are the anchors clipped to the image
    anchors = np.array([[[[0, 0, 10, 10]], [[-5, 2, 30, 12]]]], "float32")    # [1, 2, 1, 4]
    scores = np.array([[[[0.2, 0.9]]]], "float32")                           # [1, 1, 1, 2]
    deltas = np.zeros((1, 4, 1, 2), "float32")
    rois, probs, num = vops.generate_proposals(
        paddle.to_tensor(scores), paddle.to_tensor(deltas), paddle.to_tensor([[20.0, 20.0]]),
        paddle.to_tensor(anchors), paddle.ones([1, 2, 1, 4]), nms_thresh=0.9,
        return_rois_num=True)
    np.testing.assert_allclose(rois.numpy(), [[0, 2, 20, 12], [0, 0, 10, 10]])
    np.testing.assert_allclose(probs.numpy(), [[0.9], [0.2]])
    assert num.numpy().tolist() == [2]
    rois, _, _ = vops.generate_proposals(
        paddle.to_tensor(scores), paddle.to_tensor(deltas), paddle.to_tensor([[20.0, 20.0]]),
        paddle.to_tensor(anchors), paddle.ones([1, 2, 1, 4]), nms_thresh=0.3,
        post_nms_top_n=1)
    np.testing.assert_allclose(rois.numpy(), [[0, 2, 20, 12]])


def test_distribute_fpn_proposals_levels_and_restore_index():
    sides = np.array([10.0, 60.0, 200.0, 500.0, 30.0, 120.0])
    rois = np.stack([np.zeros(6), np.zeros(6), sides, sides], 1).astype("float32")
    multi, restore, per_level = vops.distribute_fpn_proposals(
        paddle.to_tensor(rois), 2, 5, 4, 224, rois_num=paddle.to_tensor([4, 2], "int32"))
    levels = np.clip(np.floor(np.log2(sides / 224 + 1e-8) + 4), 2, 5)
    for k, lvl in enumerate(range(2, 6)):
        np.testing.assert_array_equal(multi[k].numpy(), rois[levels == lvl])
        want = [int(np.sum(levels[:4] == lvl)), int(np.sum(levels[4:] == lvl))]
        assert per_level[k].numpy().tolist() == want
    stacked = np.concatenate([m.numpy() for m in multi])
    np.testing.assert_array_equal(stacked[restore.numpy().ravel()], rois)
    assert restore.dtype == paddle.int32 and restore.shape == [6, 1]
    with pytest.raises(ValueError, match="min_level"):
        vops.distribute_fpn_proposals(paddle.to_tensor(rois), 3, 3, 4, 224)


def test_box_coder_round_trip_and_formula():
    priors = random_boxes(5, seed=5)
    targets = random_boxes(3, seed=6)
    var = RNG.uniform(0.1, 0.3, (5, 4))
    enc = vops.box_coder(paddle.to_tensor(priors), paddle.to_tensor(var),
                         paddle.to_tensor(targets)).numpy()
    pw, ph = priors[:, 2] - priors[:, 0], priors[:, 3] - priors[:, 1]
    tw = targets[:, 2] - targets[:, 0]
    want_dx = ((targets[:, 0:1] + targets[:, 2:3]) / 2 - (priors[:, 0] + pw / 2)) / pw / var[:, 0]
    np.testing.assert_allclose(enc[..., 0], want_dx, rtol=1e-12)
    np.testing.assert_allclose(enc[..., 2], np.log(tw[:, None] / pw) / var[:, 2], rtol=1e-12)
    dec = vops.box_coder(paddle.to_tensor(priors), paddle.to_tensor(var), paddle.to_tensor(enc),
                         "decode_center_size").numpy()
    np.testing.assert_allclose(dec, np.broadcast_to(targets[:, None], dec.shape), atol=1e-10)
    with pytest.raises(ValueError, match="code_type"):
        vops.box_coder(paddle.to_tensor(priors), None, paddle.to_tensor(targets), "center")


def test_prior_box_layout():
    feat, image = paddle.zeros([1, 8, 2, 3]), paddle.zeros([1, 3, 20, 30])
    boxes, var = vops.prior_box(feat, image, [4.0], [9.0], aspect_ratios=[2.0], flip=True)
    assert boxes.shape == [2, 3, 4, 4] and var.shape == [2, 3, 4, 4]
    # cell (0, 0): centre (5, 5); priors 1:1 (4), 2:1, 1:2, then sqrt(4 * 9) = 6
    half = np.array([[2, 2], [2 * math.sqrt(2), 2 / math.sqrt(2)],
                     [2 / math.sqrt(2), 2 * math.sqrt(2)], [3, 3]])
    want = np.concatenate([(5 - half) / [30, 20], (5 + half) / [30, 20]], 1)
    np.testing.assert_allclose(boxes.numpy()[0, 0], want, rtol=1e-6)
    np.testing.assert_allclose(var.numpy()[1, 2], [[0.1, 0.1, 0.2, 0.2]] * 4, rtol=1e-6)
    clipped, _ = vops.prior_box(feat, image, [40.0], clip=True)
    assert clipped.numpy().min() >= 0 and clipped.numpy().max() <= 1


def yolo_box_ref(x, img_size, anchors, class_num, conf_thresh, ratio, clip):
    n, _, h, w = x.shape
    s = len(anchors) // 2
    p = x.reshape(n, s, 5 + class_num, h, w)
    sig = lambda v: 1 / (1 + np.exp(-v))   # noqa: E731
    boxes = np.zeros((n, s, h, w, 4))
    scores = np.zeros((n, s, h, w, class_num))
    for i in range(n):
        ih, iw = img_size[i]
        for a in range(s):
            for r in range(h):
                for c in range(w):
                    conf = sig(p[i, a, 4, r, c])
                    if conf < conf_thresh:
                        continue
                    cx = (c + sig(p[i, a, 0, r, c])) * iw / w
                    cy = (r + sig(p[i, a, 1, r, c])) * ih / h
                    bw = math.exp(p[i, a, 2, r, c]) * anchors[2 * a] * iw / (ratio * w)
                    bh = math.exp(p[i, a, 3, r, c]) * anchors[2 * a + 1] * ih / (ratio * h)
                    b = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if clip:
                        b = [max(b[0], 0), max(b[1], 0), min(b[2], iw - 1), min(b[3], ih - 1)]
                    boxes[i, a, r, c] = b
                    scores[i, a, r, c] = conf * sig(p[i, a, 5:, r, c])
    return boxes.reshape(n, -1, 4), scores.reshape(n, -1, class_num)


@pytest.mark.parametrize("clip", [True, False])
def test_yolo_box_matches_the_cell_by_cell_reference(clip):
    x = RNG.standard_normal((2, 2 * 7, 3, 4))
    img = np.array([[60, 80], [45, 40]])
    boxes, scores = vops.yolo_box(paddle.to_tensor(x), paddle.to_tensor(img, "int32"),
                                  [10, 13, 16, 30], 2, 0.45, 8, clip_bbox=clip)
    want_boxes, want_scores = yolo_box_ref(x, img, [10, 13, 16, 30], 2, 0.45, 8, clip)
    np.testing.assert_allclose(boxes.numpy(), want_boxes, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(scores.numpy(), want_scores, rtol=1e-10, atol=1e-12)


def test_yolo_loss_is_zero_weight_for_padding_boxes_and_trains_the_best_anchor():
    x = paddle.to_tensor(RNG.standard_normal((1, 2 * 7, 4, 4)), stop_gradient=False)
    gt = np.array([[[0.3, 0.6, 0.4, 0.3], [0, 0, 0, 0]]])
    args = dict(anchors=[10, 13, 16, 30, 33, 23], class_num=2, ignore_thresh=0.7,
                downsample_ratio=8)
    loss = vops.yolo_loss(x, paddle.to_tensor(gt), paddle.to_tensor([[1, 0]]),
                          anchor_mask=[0, 1], **args)
    alone = vops.yolo_loss(x, paddle.to_tensor(gt[:, :1]), paddle.to_tensor([[1]]),
                           anchor_mask=[0, 1], **args)
    np.testing.assert_allclose(loss.numpy(), alone.numpy(), rtol=1e-12)
    loss.sum().backward()
    g = x.grad.numpy().reshape(2, 7, 4, 4)
    # the box (w 0.4 * 32 = 12.8, h 9.6) fits anchor 0 (10 x 13) best; it sits in cell (2, 1)
    assert np.all(g[0, [0, 1, 2, 3, 5, 6], 2, 1] != 0)
    assert np.all(g[1, [0, 1, 2, 3, 5, 6]] == 0) and np.all(g[0, :4, 0, 0] == 0)
    with pytest.raises(ValueError, match="anchor_mask"):
        vops.yolo_loss(x, paddle.to_tensor(gt), paddle.to_tensor([[1, 0]]), anchor_mask=[3],
                       **args)


def test_read_file_and_decode_jpeg(tmp_path):
    image = pytest.importorskip("PIL.Image", reason="decode_jpeg needs Pillow")
    pixels = (np.arange(6 * 10 * 3).reshape(6, 10, 3) * 3 % 256).astype("uint8")
    path = tmp_path / "a.jpg"
    image.fromarray(pixels).save(path, quality=95)
    data = vops.read_file(str(path))
    assert data.dtype == paddle.uint8 and data.numpy().tobytes() == path.read_bytes()
    rgb = vops.decode_jpeg(data)
    assert rgb.shape == [3, 6, 10] and rgb.dtype == paddle.uint8
    assert np.abs(rgb.numpy().astype(int) - pixels.transpose(2, 0, 1)).mean() < 8
    assert vops.decode_jpeg(data, mode="gray").shape == [1, 6, 10]
    png = tmp_path / "a.png"
    image.fromarray(pixels).save(png)
    with pytest.raises(ValueError, match="PNG image, not a JPEG"):
        vops.decode_jpeg(vops.read_file(str(png)))
    with pytest.raises(FileNotFoundError):
        vops.read_file(str(tmp_path / "missing.jpg"))
    with pytest.raises(ValueError, match="mode"):
        vops.decode_jpeg(data, mode="cmyk")


def test_distribute_fpn_proposals_under_to_static_with_unknown_counts():
    def spread(rois, num):
        multi, restore, per_level = vops.distribute_fpn_proposals(rois, 2, 4, 3, 100,
                                                                  rois_num=num)
        return multi + [restore] + per_level
    static = paddle.jit.to_static(spread, input_spec=[
        paddle.static.InputSpec([None, 4], "float32"), paddle.static.InputSpec([None], "int32")])
    for sides, counts in (([10.0, 60.0, 200.0, 500.0, 30.0, 120.0], [4, 2]),
                          ([80.0, 300.0, 5.0], [1, 1, 1])):
        s = np.asarray(sides, "float32")
        rois = paddle.to_tensor(np.stack([0 * s, 0 * s, s, s], 1))
        num = paddle.to_tensor(counts, "int32")
        for got, want in zip(static(rois, num), spread(rois, num)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
