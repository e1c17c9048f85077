"""The paddle.tensor submodules (math, manipulation, creation, linalg, logic, search, stat, random,
attribute) and paddle.tensor itself hold the same functions as the top level, and math has Paddle's _*_with_axis helpers."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.tensor import catalog
from tests.support import check_grad, randn, three_modes

SAMPLES = {"math": ["multiply", "add", "exp", "logsumexp", "cumsum"],
           "manipulation": ["reshape", "concat", "gather", "flatten", "unsqueeze"],
           "creation": ["to_tensor", "zeros", "arange", "full_like", "fill_constant"],
           "linalg": ["matmul", "norm", "transpose", "cond", "svd"],
           "logic": ["equal", "logical_and", "allclose", "is_tensor"],
           "search": ["argmax", "topk", "where", "sort"],
           "stat": ["mean", "std", "median", "quantile"],
           "random": ["rand", "randn", "randint", "uniform"],
           "attribute": ["rank", "shape", "is_floating_point"]}


@pytest.mark.parametrize("submodule", sorted(SAMPLES))
def test_submodule_holds_the_top_level_objects(submodule):
    mod = getattr(paddle.tensor, submodule)
    for name in SAMPLES[submodule]:
        top = getattr(paddle, name, None) or getattr(paddle.linalg, name, None) \
            or getattr(paddle.tensor, name)
        assert getattr(mod, name) is top, name
    assert set(mod.__all__) <= set(catalog.CATALOG[submodule].split())


def test_submodules_import_as_modules():
    import dy2st.tensor.math as m
    from dy2st.tensor.manipulation import reshape
    assert m.multiply is paddle.multiply and reshape is paddle.reshape


def test_submodules_cover_most_of_their_catalog():
    for name in paddle.tensor.SUBMODULES:
        listed = catalog.CATALOG[name].split()
        have = getattr(paddle.tensor, name).__all__
        # attribute's real / imag / is_complex wait for complex dtypes
        assert len(have) >= (0.5 if name == "attribute" else 0.85) * len(listed), \
            (name, sorted(set(listed) - set(have)))


@pytest.mark.parametrize("axis, y_shape", [(-1, [5]), (0, [2]), (1, [3]), (1, [3, 4]),
                                           (2, [4]), (0, [2, 3, 4, 5])])
@pytest.mark.parametrize("op, ref", [("_multiply_with_axis", np.multiply),
                                     ("_add_with_axis", np.add),
                                     ("_subtract_with_axis", np.subtract),
                                     ("_divide_with_axis", np.divide)])
def test_elementwise_with_axis_matches_numpy(axis, y_shape, op, ref):
    x, y = randn(0, 2, 3, 4, 5), randn(1, *y_shape, shift=3.0)
    got = getattr(paddle.tensor.math, op)(paddle.to_tensor(x), paddle.to_tensor(y), axis=axis)
    a = 0 if axis == -1 else axis
    lined_up = y.reshape([1] * a + y_shape + [1] * (4 - len(y_shape) - a)) if axis != -1 else y
    np.testing.assert_allclose(got.numpy(), ref(x, lined_up), rtol=1e-6)


def test_with_axis_in_every_mode_and_gradients(tmp_path):
    def fn(x, y):
        return paddle.tensor.math._multiply_with_axis(x, y, axis=1)

    x, y = randn(0, 2, 3, 4), randn(1, 3)
    want = x * y.reshape(1, 3, 1)
    for got in three_modes(fn, [x, y], [[None, 3, 4], [3]], tmp_path):
        np.testing.assert_allclose(got[0], want, rtol=1e-6)
    check_grad(fn, randn(2, 2, 3, 4, dtype="float64"), randn(3, 3, dtype="float64"))
    check_grad(lambda a, b: paddle.tensor.math._add_with_axis(a, b, axis=0),
               randn(4, 2, 3, dtype="float64"), randn(5, 2, dtype="float64"))


def test_with_axis_bad_axis_is_explained():
    with pytest.raises(ValueError, match="axis 2 does not fit y of shape"):
        paddle.tensor.math._add_with_axis(paddle.ones([2, 3]), paddle.ones([3]), axis=2)


def test_paddle_tensor_itself_holds_the_functions():
    # older Paddle code (and Paddle's own models) call paddle.tensor.matmul, paddle.tensor.softmax
    for name in ["matmul", "abs", "reshape", "topk", "where", "cast", "softmax", "einsum", "div",
                 "mean", "rand", "is_complex", "clamp_", "svdvals"]:
        top = getattr(paddle, name, None) or getattr(paddle.linalg, name)
        assert getattr(paddle.tensor, name) is top, name
    x = paddle.to_tensor(np.array([[1.0, -2.0]], dtype="float32"))
    np.testing.assert_allclose(paddle.tensor.matmul(x, x, transpose_y=True).numpy(), [[5.0]])
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        paddle.tensor.nope
    assert not hasattr(paddle.tensor, "_private")
