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
