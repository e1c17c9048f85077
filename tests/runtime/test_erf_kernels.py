"""The erf / GELU kernels (runtime/ops/erf_kernels.py) and the scipy-backed special functions
against float64 references: odd shapes, empty and size-1 dims, block boundaries, NaN / inf."""
import math
import pathlib

import numpy as np
import pytest
import scipy.special as sp

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.runtime.ops import erf_kernels as K

RNG = np.random.default_rng(3)
SHAPES = [(), (0,), (1,), (3, 0, 2), (1, 1), (7, 5), (2, 1, 9), (K._BLOCK * 2 + 13,)]


def _ulps(got: np.ndarray, ref64: np.ndarray) -> np.ndarray:
    return np.abs(got.astype(np.float64) - ref64) / np.spacing(np.abs(ref64.astype(np.float32)))


def test_float32_erf_within_one_ulp_of_scipy():
    """A dense sweep with the tails, subnormals, +-0, +-inf and NaN: within float32 rounding of
    scipy's float64 erf (1 ulp; all but a few % correctly rounded)."""
    tiny = np.float32(2.0 ** -149)
    x = np.concatenate([np.linspace(-7, 7, 1_400_001), np.geomspace(1e-45, 7, 40_000),
                        -np.geomspace(1e-45, 7, 40_000), np.arange(1, 4096) * tiny,
                        [0.0, -0.0, np.inf, -np.inf, 1e30, -1e30, 3.9, -3.92, 4.0, 4.1]])
    x = np.concatenate([x.astype(np.float32), np.nextafter(np.float32(1.0), np.float32(0), dtype=np.float32)
                        * np.arange(1, 9, dtype=np.float32)])
    ref = sp.erf(x.astype(np.float64))
    got = K.erf_array(x)
    assert got.dtype == np.float32
    ulps = _ulps(got, ref)
    assert ulps.max() <= 1.0, (ulps.max(), x[ulps.argmax()])
    assert (got == ref.astype(np.float32)).mean() >= 0.97
    np.testing.assert_array_equal(got[np.isinf(x)], np.sign(x[np.isinf(x)]))
    assert np.signbit(K.erf_array(np.float32([-0.0]))[0])
    assert np.isnan(K.erf_array(np.float32([np.nan, -np.nan]))).all()


def test_float32_gelu_within_float32_rounding_of_the_exact_gelu():
    x = np.concatenate([np.linspace(-12, 12, 1_200_001), np.geomspace(1e-45, 12, 20_000),
                        -np.geomspace(1e-45, 12, 20_000)]).astype(np.float32)
    x64 = x.astype(np.float64)
    ref = x64 * sp.ndtr(x64)
    got = F.gelu(paddle.to_tensor(x)).numpy()
    assert got.dtype == np.float32
    ulps = _ulps(got, ref)
    assert ulps[x > 0].max() <= 4.0 and ulps[x > 0].mean() <= 0.3
    # below 0 the value is x times a small probability: its absolute error stays tiny (0.5 x
    # (1 + erf) in float32 cancels there: 1e-6)
    assert np.abs(got.astype(np.float64) - ref).max() <= 7e-7
    # and its relative error grows with exp's argument (5 ulp at -1, 21 at -1.83), where the
    # erf form's reached 800 ulp
    assert ulps[(x < 0) & (x > -1)].max() <= 6.0 and ulps[(x < 0) & (x > -2)].max() <= 24.0
    # written into its own input (the executor's buffer reuse): the same values
    buf = x.copy()
    K.gelu_into(buf, buf, False)
    np.testing.assert_array_equal(buf, got)
    big = np.float32([1e30, -1e30, 100.0, -100.0, 1e-45, -1e-45])
    want = np.float32([1e30, -0.0, 100.0, -0.0, 0.0, -0.0])
    got = K.gelu_array(big, False)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_erf_saturates_at_exactly_one():
    x = np.linspace(-5, 5, 200_001).astype(np.float32)
    y = K.erf_array(x)
    assert np.abs(y).max() == 1.0
    assert (y[x >= 4.0] == 1.0).all() and (y[x <= -4.0] == -1.0).all()


def test_float64_erf_is_scipy():
    x = RNG.standard_normal(1000) * 3
    np.testing.assert_array_equal(K.erf_array(x), sp.erf(x))
    out = paddle.erf(paddle.to_tensor(x)).numpy()
    np.testing.assert_array_equal(out, sp.erf(x))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erf_and_gelu_shapes(shape, dtype):
    x = np.asarray(RNG.standard_normal(shape) * 3, dtype)
    x64 = x.astype(np.float64)
    tol = dict(rtol=1e-6, atol=1e-7) if dtype == "float32" else dict(rtol=1e-15, atol=1e-300)
    for got in (K.erf_array(x), paddle.erf(paddle.to_tensor(x)).numpy()):
        assert got.shape == x.shape and got.dtype == x.dtype
        np.testing.assert_allclose(got, sp.erf(x64), **tol)
    gelu_ref = 0.5 * x64 * (1 + sp.erf(x64 / math.sqrt(2)))
    tanh_ref = 0.5 * x64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64 ** 3)))
    for approximate, ref in ((False, gelu_ref), (True, tanh_ref)):
        got = F.gelu(paddle.to_tensor(x), approximate).numpy()
        assert got.shape == x.shape and got.dtype == x.dtype
        # float32 GELU loses relative digits where 1 + erf cancels (x < -2); the absolute error
        # stays small
        np.testing.assert_allclose(got, ref, rtol=tol["rtol"],
                                   atol=2e-6 if dtype == "float32" else 1e-15)


def test_erf_of_non_contiguous_and_integer_and_half_inputs():
    x = (RNG.standard_normal((6, 8)) * 2).astype(np.float32)
    view = x[::2, ::-3]
    np.testing.assert_allclose(K.erf_array(view), sp.erf(view.astype(np.float64)), rtol=1e-6, atol=1e-7)
    ints = np.array([-2, 0, 1, 3])
    got = paddle.erf(paddle.to_tensor(ints)).numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, sp.erf(ints.astype(np.float64)), rtol=1e-6)
    half = x.astype(np.float16)
    got = K.erf_array(half)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, sp.erf(half.astype(np.float64)), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_and_inf_propagate_as_numpy_formulas_do(dtype):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype)
    np.testing.assert_array_equal(K.erf_array(x), [np.nan, 1.0, -1.0, 0.0, -0.0])
    assert np.signbit(K.erf_array(x)[4])
    with np.errstate(invalid="ignore"):
        want = 0.5 * x * (1 + sp.erf(x.astype(np.float64) / math.sqrt(2)))
        for approximate in (False, True):
            got = K.gelu_array(x, approximate)
            np.testing.assert_array_equal(got[[0, 1, 3]], want[[0, 1, 3]])
            assert np.isnan(got[2])             # -inf * 0, as the formula gives


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_grad_against_finite_differences_and_float64(approximate):
    x = np.concatenate([np.linspace(-7, 7, 2001), [0.0, -1e-6, 1e-6]])
    h = 1e-6
    numeric = (K.gelu_array(x + h, approximate) - K.gelu_array(x - h, approximate)) / (2 * h)
    np.testing.assert_allclose(K.gelu_grad_array(x, approximate), numeric, rtol=1e-7, atol=1e-8)
    # float32: 1 - tanh^2 cancels for |x| > 4 in the tanh form (as in every float32 kernel)
    tol = dict(rtol=1e-6, atol=3e-6 if approximate else 1e-6)
    x32 = x.astype(np.float32)
    np.testing.assert_allclose(K.gelu_grad_array(x32, approximate),
                               K.gelu_grad_array(x32.astype(np.float64), approximate), **tol)
    big = RNG.standard_normal(K._BLOCK + 5).astype(np.float32)
    np.testing.assert_allclose(K.gelu_grad_array(big, approximate),
                               K.gelu_grad_array(big.astype(np.float64), approximate), **tol)


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_backward_in_float32_matches_float64(approximate):
    x = (RNG.standard_normal((4, 33)) * 3).astype(np.float32)
    grads = []
    for dtype in ("float32", "float64"):
        t = paddle.to_tensor(x.astype(dtype), stop_gradient=False)
        (F.gelu(t, approximate) * paddle.to_tensor(np.linspace(-1, 1, 33).astype(dtype))).sum().backward()
        grads.append(t.grad.numpy())
    assert grads[0].dtype == np.float32
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)


SPECIAL = [("lgamma", sp.gammaln), ("digamma", sp.psi), ("erfinv", sp.erfinv), ("i0", sp.i0),
           ("i1", sp.i1), ("i0e", sp.i0e), ("i1e", sp.i1e)]


@pytest.mark.parametrize("name,ref", SPECIAL)
@pytest.mark.parametrize("shape", [(), (0,), (1, 1), (3, 0), (5, 7)])
def test_special_functions_shapes_and_float32(name, ref, shape):
    x = RNG.uniform(0.05, 0.95, shape)
    fn = getattr(paddle, name)
    got64 = fn(paddle.to_tensor(x)).numpy()
    assert got64.shape == x.shape and got64.dtype == np.float64
    np.testing.assert_allclose(got64, ref(x), rtol=1e-15)
    got32 = fn(paddle.to_tensor(x.astype(np.float32))).numpy()
    assert got32.dtype == np.float32
    np.testing.assert_array_equal(got32, ref(x.astype(np.float32).astype(np.float64)).astype(np.float32))


def test_special_functions_at_nan_inf_and_poles():
    x = paddle.to_tensor(np.array([np.nan, np.inf, -np.inf, 0.0, -2.0]))
    np.testing.assert_array_equal(paddle.lgamma(x).numpy(), [np.nan, np.inf, np.nan, np.inf, np.inf])
    np.testing.assert_array_equal(paddle.digamma(x).numpy(), [np.nan, np.inf, np.nan, np.nan, np.nan])
    np.testing.assert_array_equal(paddle.polygamma(x, 2).numpy(), [np.nan, 0.0, np.nan, np.nan, np.nan])
    np.testing.assert_array_equal(paddle.i0(x).numpy(), [np.nan, np.inf, np.inf, 1.0, sp.i0(-2.0)])
    np.testing.assert_array_equal(paddle.i1(x).numpy(), [np.nan, np.inf, -np.inf, 0.0, sp.i1(-2.0)])
    np.testing.assert_array_equal(paddle.i0e(x).numpy(), [np.nan, 0.0, 0.0, 1.0, sp.i0e(-2.0)])
    np.testing.assert_array_equal(paddle.i1e(x).numpy(), [np.nan, 0.0, -0.0, 0.0, sp.i1e(-2.0)])
    np.testing.assert_array_equal(paddle.erfinv(paddle.to_tensor(np.array([np.nan, 1.0, -1.0, 2.0]))).numpy(),
                                  [np.nan, np.inf, -np.inf, np.nan])
    p = paddle.gammainc(paddle.to_tensor([np.nan, 2.0, 0.0, -1.0]),
                        paddle.to_tensor([1.0, np.nan, 1.0, 1.0])).numpy()
    np.testing.assert_array_equal(p, [np.nan, np.nan, 1.0, np.nan])


def test_no_per_element_python_in_the_kernels():
    root = pathlib.Path(paddle.__file__).parent
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if "frompyfunc" in p.read_text() or "np.vectorize" in p.read_text()]
    assert not offenders, offenders
