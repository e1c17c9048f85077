"""No op drops the imaginary part of a complex input: each op is declared complex-capable (and
then gives numpy's complex result, eagerly and under to_static) or refuses a complex input with a
TypeError naming the op, the dtype and the user's line, before computing anything."""
import inspect
import warnings

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.runtime.complex_capable import COMPLEX_CAPABLE
from dy2st.runtime.registry import OPS, apply

ComplexWarning = getattr(np, "exceptions", np).ComplexWarning
ZN = np.array([[0.3 + 0.4j, -0.7 + 0.2j], [0.1 - 0.5j, 0.6 + 0.9j]], "complex64")


@pytest.fixture(autouse=True)
def _complex_warning_is_an_error():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ComplexWarning)
        warnings.simplefilter("ignore", RuntimeWarning)     # log/sqrt of real-domain edge cases
        yield


def test_every_declared_op_exists():
    assert COMPLEX_CAPABLE <= set(OPS), sorted(COMPLEX_CAPABLE - set(OPS))


REFUSING = sorted(set(OPS) - COMPLEX_CAPABLE)


def test_the_refusing_ops_include_the_ordering_and_real_special_functions():
    for name in ("floor", "ceil", "maximum", "minimum", "max", "min", "sort", "argmax",
                 "clip", "erf", "erfinv", "lgamma", "digamma", "remainder", "cummax"
                 if "cummax" in OPS else "topk"):
        assert name in REFUSING, name


@pytest.mark.parametrize("name", REFUSING)
def test_every_other_op_refuses_a_complex_input_eagerly_and_in_a_program(name):
    # the refusal comes before the kernel / inference, so no attrs are needed to reach it
    with pytest.raises(TypeError, match=rf"^{name}: does not support complex input "
                                        r"\(got complex64\)"):
        apply(name, [paddle.to_tensor(ZN)], {})
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        z = paddle.static.data("z", [2, 2], "complex64")
        with pytest.raises(TypeError, match=rf"^{name}: does not support complex input"):
            apply(name, [z], {})


# public functions whose result is real by definition for a complex input
REAL_RESULTS = {"abs", "abs_", "absolute", "angle", "real", "imag", "as_real", "view_as_real",
                "norm", "vector_norm", "matrix_norm", "pdist", "cond"}
SKIP = {"empty", "ones", "zeros", "rand", "randn", "standard_normal", "uniform", "normal",
        "eye", "arange", "range", "randperm", "tolist", "save", "load", "seed", "print",
        "set_printoptions", "summary", "flops", "set_device", "set_flags", "set_default_dtype",
        "enable_static", "disable_static", "set_grad_enabled", "to_static", "assign_value"}


def _public_functions():
    for prefix, mod in (("paddle", paddle), ("F", F), ("linalg", paddle.linalg)):
        for n in sorted(dir(mod)):
            f = getattr(mod, n)
            if n.startswith("_") or n in SKIP or not callable(f) or isinstance(f, type) or \
                    inspect.ismodule(f):
                continue
            yield f"{prefix}.{n}", f


def test_no_public_function_of_one_tensor_drops_the_imaginary_part():
    """Call every public function with a complex tensor alone: it refuses, fails for want of
    other arguments, or returns a result that is complex (or bool / integer, or real by
    definition) - never a float result with the imaginary part lost (nor a ComplexWarning)."""
    returned = refused = 0
    for qualname, f in _public_functions():
        try:
            out = f(paddle.to_tensor(ZN))
        except ComplexWarning:
            pytest.fail(f"{qualname} cast a complex input to a real dtype")
        except TypeError as e:
            refused += "does not support complex input" in str(e)
            continue
        except Exception:  # noqa: BLE001 - needs other arguments / another shape
            continue
        returned += 1
        for o in out if isinstance(out, (tuple, list)) else [out]:
            dtype = getattr(o, "dtype", None)
            if dtype is None or qualname.split(".")[1] in REAL_RESULTS:
                continue
            assert not dtype.is_floating, f"{qualname} gave {dtype} for a complex input"
    assert returned > 100 and refused > 40, (returned, refused)


UNARY = {
    "exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": lambda z: 1 / np.sqrt(z), "reciprocal": lambda z: 1 / z,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sigmoid": lambda z: 1 / (1 + np.exp(-z)), "square": np.square, "neg": np.negative,
    "abs": np.abs, "conj": np.conj, "real": np.real, "imag": np.imag, "angle": np.angle,
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "cumsum": lambda z: np.cumsum(z),
    "isnan": np.isnan, "isfinite": np.isfinite,
    # complex-capable after Paddle 3.3.1's list
    "acosh": np.arccosh, "asinh": np.arcsinh, "atanh": np.arctanh, "expm1": np.expm1,
    "sinc": np.sinc, "deg2rad": lambda z: z * (np.pi / 180), "rad2deg": lambda z: z * (180 / np.pi),
    "sign": np.sign, "logical_not": np.logical_not,
    # each part rounded, halves to even (Paddle 3.3.1 on CPU: [0.5+1.5j, 2.5-0.5j] -> [2j, 2-0j])
    "round": np.round,
    "stanh": lambda z: 1.7159 * np.tanh(0.67 * z),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_capable_functions_give_numpy_complex_results_eagerly_and_static(name):
    fn = getattr(paddle, name)
    want = UNARY[name](ZN)
    got = fn(paddle.to_tensor(ZN))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    static = paddle.jit.to_static(lambda z: fn(z))
    np.testing.assert_allclose(static(paddle.to_tensor(ZN)).numpy(), want, rtol=1e-5, atol=1e-6)


def test_nn_sigmoid_of_complex_and_its_gradient_match_finite_differences():
    np.testing.assert_allclose(F.sigmoid(paddle.to_tensor(ZN)).numpy(), 1 / (1 + np.exp(-ZN)),
                               rtol=1e-5)
    z = paddle.to_tensor(ZN.astype("complex128"), stop_gradient=False)
    w = np.array([[1.0 - 0.5j, 0.3j], [2.0, -1.0 + 1.0j]])

    def loss(v):
        return np.real(np.sum(w / (1 + np.exp(-v))))
    (g,) = paddle.grad(paddle.real(paddle.sum(paddle.to_tensor(w) * F.sigmoid(z))), [z])
    eps, base = 1e-6, ZN.astype("complex128")
    fd = np.zeros_like(base)
    for idx in np.ndindex(base.shape):
        for unit in (1, 1j):
            d = np.zeros_like(base)
            d[idx] = eps * unit
            fd[idx] += unit * (loss(base + d) - loss(base - d)) / (2 * eps)
    np.testing.assert_allclose(g.numpy(), fd, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("fn, op", [(paddle.erf, "erf"), (F.gelu, "gelu"), (F.relu, "relu"),
                                    (paddle.floor, "floor"), (paddle.digamma, "digamma"),
                                    (paddle.logit, "logit"), (paddle.trunc, "trunc"),
                                    (paddle.nan_to_num, "nan_to_num")])
def test_refusals_name_the_op_the_dtype_and_the_user_line(fn, op):
    with pytest.raises(TypeError, match=rf"{op}: does not support complex input \(got "
                                        r"complex64\)") as info:
        fn(paddle.to_tensor(ZN))
    assert "test_complex_refusal.py" in str(info.value)

    def model(z):
        y = z * 2
        return fn(y)
    with pytest.raises(TypeError, match=rf"{op}: does not support complex input") as info:
        paddle.jit.to_static(model)(paddle.to_tensor(ZN))
    assert "return fn(y)" in str(info.value)


def test_linalg_compositions_conjugate_or_refuse():
    z = paddle.to_tensor(ZN)
    np.testing.assert_allclose(paddle.linalg.cov(z).numpy(), np.cov(ZN), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(paddle.linalg.corrcoef(z).numpy(), np.corrcoef(ZN), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(paddle.linalg.matrix_norm(z).numpy(), np.linalg.norm(ZN),
                               rtol=1e-6)
    np.testing.assert_allclose(paddle.linalg.cholesky_inverse(z).numpy(),
                               np.linalg.inv(ZN @ ZN.conj().T), rtol=1e-4)
    # Paddle 3.3.1 (and numpy's vecdot) conjugate x
    w = paddle.to_tensor(ZN[::-1].copy())
    np.testing.assert_allclose(paddle.linalg.vecdot(z, w).numpy(),
                               (ZN.conj() * ZN[::-1]).sum(-1), rtol=1e-6)
    np.testing.assert_allclose(paddle.vecdot(z, w).numpy(), (ZN.conj() * ZN[::-1]).sum(-1),
                               rtol=1e-6)


def test_casting_a_complex_tensor_on_request_keeps_its_real_part():
    # Paddle's rule for an explicit cast; only an op's own internal cast is refused
    np.testing.assert_array_equal(paddle.cast(paddle.to_tensor(ZN), "float32").numpy(), ZN.real)
    np.testing.assert_array_equal(paddle.to_tensor(ZN).astype("float32").numpy(), ZN.real)
