"""The names Paddle 3.3.1 added, compared with the installed PaddlePaddle itself (skipped without
it; tests/nn/test_gated.py, tests/runtime/test_top_level_aliases.py and
tests/amp/test_autocast_state.py check the same names against numpy)."""
import inspect

import numpy as np
import pytest

import dy2st

real = pytest.importorskip("paddle", reason="PaddlePaddle is not installed: the numpy-based "
                                            "tests cover these names")


def _positional(fn):
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.kind is not p.KEYWORD_ONLY]


def test_signatures_match_paddles():
    for path in ("asarray", "from_numpy", "greater", "autocast", "linalg.lu_solve",
                 "nn.functional.rms_norm", "nn.functional.swiglu", "vision.image_load",
                 "amp.get_autocast_dtype", "amp.is_autocast_enabled"):
        ours, theirs = dy2st, real
        for part in path.split("."):
            ours, theirs = getattr(ours, part), getattr(theirs, part)
        # the positional parameters (greater's keyword-only `out` is not supported)
        assert _positional(ours) == _positional(theirs), path


def test_values_match_paddles():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 6)).astype("float32"), rng.standard_normal((2, 6))
    got = [lib.nn.functional.swiglu(lib.to_tensor(x)).numpy() for lib in (dy2st, real)]
    np.testing.assert_allclose(got[0], got[1], rtol=1e-6)
    a, b = rng.standard_normal((3, 3)), rng.standard_normal((3, 2))
    for trans in "NT":
        got = [lib.linalg.lu_solve(lib.to_tensor(b), *lib.linalg.lu(lib.to_tensor(a)),
                                   trans=trans).numpy() for lib in (dy2st, real)]
        np.testing.assert_allclose(got[0], got[1], atol=1e-10)
    got = [lib.greater(lib.to_tensor(x), lib.to_tensor(y.astype("float32"))).numpy()
           for lib in (dy2st, real)]
    assert np.array_equal(*got)
    got = [lib.asarray([[1, 2]], requires_grad=True) for lib in (dy2st, real)]
    assert str(got[0].dtype).split(".")[-1] == str(got[1].dtype).split(".")[-1]
    assert got[0].stop_gradient == got[1].stop_gradient is False
    for name in ("double", "float", "half", "cfloat", "cdouble"):
        assert str(getattr(dy2st, name)).split(".")[-1] == \
            str(getattr(real, name)).split(".")[-1], name
    assert real.autograd.Function is real.autograd.PyLayer
    assert dy2st.autograd.Function is dy2st.autograd.PyLayer
    assert dy2st.amp.get_autocast_dtype() == real.amp.get_autocast_dtype()


def test_generator_follows_paddles_default_generator():
    for lib in (dy2st, real):
        g = lib.Generator()
        assert lib.Generator("cpu") is g and lib.seed(5) is g and g.initial_seed() == 5
        state = g.get_state()
        a = lib.rand([3]).numpy()
        lib.set_rng_state([state])
        np.testing.assert_array_equal(lib.rand([3]).numpy(), a)
        assert lib.get_rng_state()[0].current_seed() == 5
        index = g.register_state_index(g.get_state())      # the process's generator: other
        assert index >= 1 and g.get_state_index() == index   # tests may have registered some
        g.set_state_index(0)
        assert g.manual_seed(7) is g and g.initial_seed() == 7


def test_size_behaves_as_paddles():
    ours, theirs = dy2st.Size([2, 3, 4]), real.Size([2, 3, 4])
    for expr in (lambda s: repr(s), lambda s: str(s[1:]), lambda s: s == (2, 3, 4),
                 lambda s: s.numel(), lambda s: repr((1,) + s), lambda s: repr(s * 2),
                 lambda s: type(s[0]).__name__, lambda s: isinstance(s, list)):
        assert expr(ours) == expr(theirs)
    assert repr(dy2st.ones([2, 3]).shape) == repr(real.ones([2, 3]).shape)
    for lib in (dy2st, real):
        with pytest.raises(TypeError, match=r"takes an iterable of 'int' \(item 0 is 'float'\)"):
            lib.Size([2.5])


def test_unsigned_dtypes_and_compat_names():
    # (Paddle 3.3.1's iinfo(uint64).max is -1, an overflow; dy2st gives 2**64 - 1)
    assert dy2st.iinfo(dy2st.uint32).max == real.iinfo(real.uint32).max == 2 ** 32 - 1
    assert str(dy2st.uint64) == str(real.uint64) == "paddle.uint64" and real.uint64 is not None
    for name in ("enable_compat", "disable_compat"):
        keywords = [list(inspect.signature(getattr(lib, name)).parameters) for lib in
                    (dy2st, real)]
        assert keywords[0] == keywords[1], name
