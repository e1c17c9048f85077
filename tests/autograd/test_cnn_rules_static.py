"""The CNN-family gradient rules applied to static Variables with an unknown batch dim append ops
that compute what the same rules compute eagerly."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd.rules import RULES, VjpContext
from dy2st.nn import functional as F
from dy2st.runtime.registry import apply

RNG = np.random.default_rng(31)


def rnd(*shape):
    return RNG.uniform(-2, 2, shape)


CASES = [
    ("conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, groups=2), (rnd(2, 4, 7), rnd(6, 2, 3), rnd(6))),
    ("conv2d_transpose", lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1, data_format="NHWC"),
     (rnd(2, 3, 3, 4), rnd(4, 2, 3, 3))),
    ("avg_pool", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), (rnd(2, 3, 5, 5),)),
    ("max_pool", lambda x: F.max_pool2d(x, 2, data_format="NHWC"), (rnd(2, 4, 4, 3),)),
    ("interpolate", lambda x: F.interpolate(x, size=[5, 7], mode="bicubic"), (rnd(2, 3, 4, 4),)),
    ("grid_sample", lambda x, g: F.grid_sample(x, g, padding_mode="reflection"),
     (rnd(2, 3, 4, 5), rnd(2, 3, 3, 2) / 2)),
    ("glu", lambda x: F.glu(x, axis=1), (rnd(2, 4, 3),)),
] + [(f.__name__, f, (rnd(3, 4),)) for f in (F.softsign, F.log_sigmoid, F.hardshrink, F.softshrink,
                                              F.tanhshrink, F.thresholded_relu, F.selu, F.celu)]


@pytest.mark.parametrize("name, fn, arrays", CASES, ids=[c[0] for c in CASES])
def test_rule_in_static_mode_matches_eager(name, fn, arrays):
    ts = [paddle.to_tensor(a) for a in arrays]
    for t in ts:
        t.stop_gradient = False
    out = fn(*ts)
    node = out._node
    assert node.op_type in RULES
    g = RNG.standard_normal(out.shape)
    outs = [paddle.to_tensor(v) for v in node.out_values]
    n_out = len(outs)
    eager_ctx = VjpContext(node.op_type, node.inputs, outs, node.attrs, [True] * len(node.inputs))
    extra = [paddle.to_tensor(np.zeros_like(v.numpy())) for v in outs[1:]]
    eager = RULES[node.op_type].fn(eager_ctx, paddle.to_tensor(g), *extra)

    main = paddle.static.Program()
    feed = {}
    with paddle.static.program_guard(main):
        inputs = []
        for i, x in enumerate(node.inputs):
            match = [k for k, t in enumerate(ts) if t is x]
            if match:
                a = arrays[match[0]]
                inputs.append(paddle.static.data(f"x{i}", [None] + list(a.shape[1:]), "float64"))
                feed[f"x{i}"] = a
            else:
                inputs.append(x)
        res = apply(node.op_type, inputs, node.attrs)
        res = list(res) if n_out > 1 else [res]
        assert res[0]._shape[0] == -1
        gv = paddle.static.data("g", [None] + list(g.shape[1:]), "float64")
        feed["g"] = g
        extra_v = [paddle.zeros_like(r) for r in res[1:]]
        ctx = VjpContext(node.op_type, inputs, res, node.attrs, [True] * len(inputs))
        grads = RULES[node.op_type].fn(ctx, gv, *extra_v)
    pairs = [(e, s) for e, s, x in zip(eager, grads, node.inputs) if e is not None and any(x is t for t in ts)]
    got = paddle.static.Executor().run(main, feed=feed, fetch_list=[s for _, s in pairs])
    assert pairs
    for (e, _), value in zip(pairs, got):
        np.testing.assert_allclose(value, e.numpy(), rtol=1e-10, atol=1e-12)
