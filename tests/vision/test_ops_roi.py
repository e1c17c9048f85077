"""paddle.vision.ops RoI pooling and deformable convolution against plain numpy references
written sample by sample, under to_static (gradients included), through jit.save / jit.load,
and their errors."""
import math

import numpy as np
import pytest

import dy2st as paddle
from dy2st.vision import ops as vops

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 7, 8))
BOXES = np.array([[1.0, 1.0, 5.0, 6.0], [0.3, 2.2, 7.5, 6.9], [-2.0, -1.0, 3.0, 4.0],
                  [4.0, 5.0, 4.2, 5.1], [2.0, 3.0, 7.0, 6.0]])
BOXES_NUM = np.array([3, 2], "int32")
BATCH = [0, 0, 0, 1, 1]


def bilinear(img, y, x):
    """One roi_align sample (zero beyond half a pixel outside, edge-clamped inside)."""
    h, w = img.shape[-2:]
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return np.zeros(img.shape[:-2])
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[..., y0, x0] + (1 - ly) * lx * img[..., y0, x1]
            + ly * (1 - lx) * img[..., y1, x0] + ly * lx * img[..., y1, x1])


def roi_align_ref(x, boxes, batch, out, scale, ratio, aligned):
    ph, pw = out
    res = np.zeros((len(boxes), x.shape[1], ph, pw))
    for r, (box, b) in enumerate(zip(boxes, batch)):
        off = 0.5 if aligned else 0.0
        x0, y0, x1, y1 = box * scale - off
        rw, rh = x1 - x0, y1 - y0
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else math.ceil(bh)
        gw = ratio if ratio > 0 else math.ceil(bw)
        for i in range(ph):
            for j in range(pw):
                acc = 0.0
                for iy in range(gh):
                    for ix in range(gw):
                        acc = acc + bilinear(x[b], y0 + i * bh + (iy + 0.5) * bh / gh,
                                             x0 + j * bw + (ix + 0.5) * bw / gw)
                res[r, :, i, j] = acc / max(gh * gw, 1)
    return res


@pytest.mark.parametrize("scale,ratio,aligned", [(1.0, -1, True), (0.5, 2, False),
                                                 (0.8, -1, False), (1.3, 3, True)])
def test_roi_align_matches_the_sample_by_sample_reference(scale, ratio, aligned):
    got = vops.roi_align(paddle.to_tensor(X), paddle.to_tensor(BOXES), paddle.to_tensor(BOXES_NUM),
                         (3, 2), scale, ratio, aligned)
    # Paddle holds the scale as a float32
    want = roi_align_ref(X, BOXES, BATCH, (3, 2), float(np.float32(scale)), ratio, aligned)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)


def roi_pool_ref(x, boxes, batch, out, scale):
    ph, pw = out
    res = np.zeros((len(boxes), x.shape[1], ph, pw))
    h, w = x.shape[2:]
    rnd = lambda v: int(np.sign(v) * np.floor(abs(v) + 0.5))   # noqa: E731
    for r, (box, b) in enumerate(zip(boxes, batch)):
        x0, y0, x1, y1 = (rnd(v * scale) for v in box)
        rh, rw = max(y1 - y0 + 1, 1), max(x1 - x0 + 1, 1)
        for i in range(ph):
            for j in range(pw):
                hs = min(max(math.floor(i * rh / ph) + y0, 0), h)
                he = min(max(math.ceil((i + 1) * rh / ph) + y0, 0), h)
                ws = min(max(math.floor(j * rw / pw) + x0, 0), w)
                we = min(max(math.ceil((j + 1) * rw / pw) + x0, 0), w)
                if he > hs and we > ws:
                    res[r, :, i, j] = x[b, :, hs:he, ws:we].max(axis=(1, 2))
    return res


def psroi_pool_ref(x, boxes, batch, out, scale):
    ph, pw = out
    c_out = x.shape[1] // (ph * pw)
    res = np.zeros((len(boxes), c_out, ph, pw))
    h, w = x.shape[2:]
    rnd = lambda v: float(np.sign(v) * np.floor(abs(v) + 0.5))   # noqa: E731
    for r, (box, b) in enumerate(zip(boxes, batch)):
        x0, y0 = rnd(box[0]) * scale, rnd(box[1]) * scale
        x1, y1 = (rnd(box[2]) + 1) * scale, (rnd(box[3]) + 1) * scale
        bh, bw = max(y1 - y0, 0.1) / ph, max(x1 - x0, 0.1) / pw
        for c in range(c_out):
            for i in range(ph):
                for j in range(pw):
                    hs = min(max(math.floor(bh * i + y0), 0), h)
                    he = min(max(math.ceil(bh * (i + 1) + y0), 0), h)
                    ws = min(max(math.floor(bw * j + x0), 0), w)
                    we = min(max(math.ceil(bw * (j + 1) + x0), 0), w)
                    if he > hs and we > ws:
                        res[r, c, i, j] = x[b, (c * ph + i) * pw + j, hs:he, ws:we].mean()
    return res


@pytest.mark.parametrize("scale", [1.0, 0.5, 0.7])
def test_roi_pool_and_psroi_pool_match_their_references(scale):
    t = [paddle.to_tensor(a) for a in (X, BOXES, BOXES_NUM)]
    np.testing.assert_array_equal(vops.roi_pool(*t, (3, 2), scale).numpy(),
                                  roi_pool_ref(X, BOXES, BATCH, (3, 2), float(np.float32(scale))))
    x12 = RNG.standard_normal((2, 12, 7, 8))
    got = vops.psroi_pool(paddle.to_tensor(x12), *t[1:], (2, 3), scale)
    np.testing.assert_allclose(got.numpy(), psroi_pool_ref(x12, BOXES, BATCH, (2, 3), float(np.float32(scale))),
                               rtol=1e-12)


def test_the_layers_call_the_functions():
    t = [paddle.to_tensor(a) for a in (X, BOXES, BOXES_NUM)]
    np.testing.assert_array_equal(vops.RoIAlign((2, 2), 0.5)(*t, aligned=False).numpy(),
                                  vops.roi_align(*t, 2, 0.5, aligned=False).numpy())
    np.testing.assert_array_equal(vops.RoIPool(2, 0.5)(*t).numpy(),
                                  vops.roi_pool(*t, 2, 0.5).numpy())
    x = paddle.to_tensor(RNG.standard_normal((2, 8, 7, 8)))
    np.testing.assert_array_equal(vops.PSRoIPool(2)(x, *t[1:]).numpy(),
                                  vops.psroi_pool(x, *t[1:], 2).numpy())


def test_deform_conv2d_with_zero_offsets_is_a_convolution():
    x = paddle.to_tensor(RNG.standard_normal((2, 4, 6, 7)))
    w = paddle.to_tensor(RNG.standard_normal((6, 2, 3, 2)))
    b = paddle.to_tensor(RNG.standard_normal(6))
    offset = paddle.zeros([2, 2 * 2 * 6, 3, 7], dtype="float64")
    mask = paddle.ones([2, 2 * 6, 3, 7], dtype="float64")
    got = vops.deform_conv2d(x, offset, w, b, stride=(2, 1), padding=1, dilation=(1, 2),
                             deformable_groups=2, groups=2, mask=mask)
    want = paddle.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2),
                                       groups=2)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_deform_conv2d_integer_offsets_shift_the_taps():
    # a 1x1 kernel moved by (dy, dx) = (1, -1) reads x[i + 1, j - 1] (zero outside)
    x = RNG.standard_normal((1, 1, 4, 5))
    offset = np.zeros((1, 2, 4, 5))
    offset[0, 0], offset[0, 1] = 1.0, -1.0
    got = vops.deform_conv2d(paddle.to_tensor(x), paddle.to_tensor(offset),
                             paddle.ones([1, 1, 1, 1], "float64")).numpy()[0, 0]
    want = np.zeros((4, 5))
    want[:3, 1:] = x[0, 0, 1:, :4]
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_deform_conv2d_layer_default_init_and_shapes():
    paddle.seed(1)
    layer = vops.DeformConv2D(4, 6, 3, padding=1, groups=2)
    assert layer.weight.shape == [6, 2, 3, 3] and layer.bias.shape == [6]
    std = float(np.std(layer.weight.numpy()))
    assert 0.5 * math.sqrt(2 / 36) < std < 1.5 * math.sqrt(2 / 36)
    x = paddle.randn([2, 4, 5, 5])
    out = layer(x, paddle.zeros([2, 18, 5, 5]))
    np.testing.assert_allclose(out.numpy(), paddle.nn.functional.conv2d(
        x, layer.weight, layer.bias, padding=1, groups=2).numpy(), rtol=1e-5, atol=1e-5)


class Head(paddle.nn.Layer):
    """RoI features and a deformable convolution, as a two-stage detector's head uses them."""

    def __init__(self):
        super().__init__()
        self.offset = paddle.nn.Conv2D(2, 18, 3, padding=1)
        self.deform = vops.DeformConv2D(2, 3, 3, padding=1)
        self.align = vops.RoIAlign(2, 0.5)

    def forward(self, x, boxes, boxes_num):
        y = self.deform(x, self.offset(x))
        return self.align(y, boxes, boxes_num) + vops.roi_pool(y, boxes, boxes_num, 2, 0.5)


def test_a_head_converts_trains_and_reloads(tmp_path):
    paddle.seed(0)
    head = Head()
    x = paddle.randn([2, 2, 8, 8])
    boxes = paddle.to_tensor(BOXES.astype("float32") * 1.5)
    num = paddle.to_tensor(BOXES_NUM)
    eager = head(x, boxes, num)
    eager.sum().backward()
    eager_grads = [p.grad.numpy().copy() for p in head.parameters()]
    head.clear_gradients()
    static = paddle.jit.to_static(head)
    out = static(x, boxes, num)
    np.testing.assert_allclose(out.numpy(), eager.numpy(), rtol=1e-5, atol=1e-6)
    out.sum().backward()
    for p, want in zip(head.parameters(), eager_grads):
        np.testing.assert_allclose(p.grad.numpy(), want, rtol=1e-4, atol=1e-5)
    spec = [paddle.static.InputSpec([None, 2, 8, 8], "float32"),
            paddle.static.InputSpec([None, 4], "float32"),
            paddle.static.InputSpec([None], "int32")]
    paddle.jit.save(head, str(tmp_path / "head"), input_spec=spec)
    loaded = paddle.jit.load(str(tmp_path / "head"))
    np.testing.assert_allclose(loaded(x, boxes, num).numpy(), eager.numpy(), rtol=1e-5,
                               atol=1e-6)
    # other box counts take the same saved program
    few = paddle.to_tensor(BOXES[:2].astype("float32"))
    np.testing.assert_allclose(loaded(x, few, paddle.to_tensor([1, 1], "int32")).numpy(),
                               head(x, few, paddle.to_tensor([1, 1], "int32")).numpy(),
                               rtol=1e-5, atol=1e-6)


def test_bad_arguments_name_the_problem():
    x, b = paddle.to_tensor(X), paddle.to_tensor(BOXES)
    with pytest.raises(ValueError, match="does not add up"):
        vops.roi_align(x, b, paddle.to_tensor([1, 1], "int32"), 2)
    with pytest.raises(ValueError, match="boxes_num"):
        vops.roi_pool(x, b, None, 2)
    with pytest.raises(ValueError, match="output_size"):
        vops.roi_align(x, b, paddle.to_tensor(BOXES_NUM), (0, 2))
    with pytest.raises(ValueError, match="multiple of"):
        vops.psroi_pool(x, b, paddle.to_tensor(BOXES_NUM), 2)
    with pytest.raises(ValueError, match="offset needs"):
        vops.deform_conv2d(x, paddle.zeros([2, 4, 5, 6], "float64"),
                           paddle.zeros([2, 3, 3, 3], "float64"))
    with pytest.raises(ValueError, match="offset must have shape"):
        vops.deform_conv2d(x, paddle.zeros([2, 18, 4, 4], "float64"),
                           paddle.zeros([2, 3, 3, 3], "float64"))


def test_no_boxes_give_empty_results():
    x = paddle.randn([2, 4, 5, 5])
    none, counts = paddle.zeros([0, 4]), paddle.to_tensor([0, 0], "int32")
    assert vops.roi_align(x, none, counts, 2).shape == [0, 4, 2, 2]
    assert vops.roi_pool(x, none, counts, (2, 3)).shape == [0, 4, 2, 3]
    assert vops.psroi_pool(x, none, counts, 1).shape == [0, 4, 1, 1]
    assert vops.nms(none).shape == [0]
