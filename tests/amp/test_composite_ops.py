"""auto_cast classifies a composite op (several dy2st ops where Paddle runs one kernel its lists
name: dist, expm1, max_pool2d_with_index, bmm, ...) by the composite's name, eagerly and under
to_static, and custom lists name it too."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.runtime.registry import classified_as, hooks
from tests.support import randn


def composites(h, x):
    """(name, result) of each composite: h is float16, x float32 [1, 2, 4, 4]."""
    flat = h.reshape([4, 8])
    label = paddle.to_tensor(np.array([0, 1, 2, 3]), "int64")
    return [
        ("dist", paddle.dist(h, h * 0.5)),                               # black
        ("renorm", paddle.renorm(flat, 2.0, 0, 1.0)),                    # black
        ("atanh", paddle.atanh(h * 0.1)),                                # black
        ("expm1", paddle.expm1(h)),                                      # black
        ("group_norm", F.group_norm(h, 2)),                              # black
        ("log_loss", F.log_loss(F.sigmoid(flat[:, :1]), paddle.ones([4, 1], "float16"))),
        ("nll_loss", F.nll_loss(F.log_softmax(flat.astype("float32")).astype("float16"), label)),
        ("max_pool2d_with_index", F.max_pool2d(x, 2, return_mask=True)[0]),  # white
        ("adaptive_max_pool2d", F.adaptive_max_pool2d(x, 1)),           # white (with index)
        ("max_pool2d", F.max_pool2d(x, 2)),                              # gray: pool2d
        ("bmm", paddle.bmm(x[0], x[0])),                                 # gray
    ]


WANT = {"dist": "float32", "renorm": "float32", "atanh": "float32", "expm1": "float32",
        "group_norm": "float32", "log_loss": "float32", "nll_loss": "float32",
        "max_pool2d_with_index": "float16", "adaptive_max_pool2d": "float16",
        "max_pool2d": "float32", "bmm": "float32"}


def dtypes(h, x):
    return [r.dtype for _, r in composites(h, x)]


@pytest.mark.parametrize("convert", [False, True])
def test_composites_take_the_precision_paddle_lists_for_their_name(convert):
    x = paddle.to_tensor(randn(0, 1, 2, 4, 4))
    h = x.astype("float16")
    run = paddle.jit.to_static(dtypes) if convert else dtypes
    with paddle.amp.auto_cast(level="O1", dtype="float16"):
        got = run(h, x)
    assert [str(d).replace("paddle.", "") for d in got] == list(WANT.values())
    # outside auto_cast nothing is cast: each keeps its input's dtype
    assert [str(d).replace("paddle.", "") for d in dtypes(h, x)] == \
        ["float16"] * 7 + ["float32"] * 4


def test_black_composites_compute_in_float32():
    h = paddle.to_tensor(randn(1, 64).astype("float16") * 30)
    with paddle.amp.auto_cast():
        got = paddle.dist(h, h * 0.5).numpy()
    # in float16 the sum of squares (about 1.5e4 per row) would round to a few units
    want = np.linalg.norm(h.numpy().astype("float64") * 0.5)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_custom_lists_name_the_composite_and_stats_count_it():
    h = paddle.to_tensor(randn(2, 2, 3, 4)).astype("float16")
    with paddle.amp.auto_cast(custom_white_list=["dist", "expm1"]):
        assert paddle.dist(h, h).dtype == paddle.float16
        assert paddle.expm1(h).dtype == paddle.float16
    with paddle.amp.auto_cast(custom_black_list=["bmm"]):
        assert paddle.bmm(h, h.transpose([0, 2, 1])).dtype == paddle.float32
    with paddle.amp.debugging.collect_operator_stats() as stats, paddle.amp.auto_cast():
        paddle.expm1(h)
    assert "expm1" in stats and "exp" not in stats


def test_the_outer_composite_wins_and_the_override_ends_with_it():
    h = paddle.to_tensor(randn(3, 2, 3, 3)).astype("float16")

    @classified_as("outer_black")
    def outer(a):
        assert hooks.classify_as == "outer_black"
        return paddle.bmm(a, a)                  # classified as outer_black, not bmm
    with paddle.amp.auto_cast(custom_black_list=["outer_black"]):
        assert outer(h).dtype == paddle.float32
        assert hooks.classify_as is None
        with classified_as("matmul"):
            assert paddle.bmm(h, h).dtype == paddle.float16   # the enclosing name: white
        assert hooks.classify_as is None
    with pytest.raises(ValueError, match="rank-3"):
        with paddle.amp.auto_cast():
            paddle.bmm(h[0], h[0])
    assert hooks.classify_as is None              # reset when the composite raised
