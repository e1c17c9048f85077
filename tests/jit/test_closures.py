"""Lambdas and nested functions made in a loop or comprehension of converted code bind late, as
in Python: each reads the loop variable when it is called, so all see its last value (a default
argument binds early, and still does)."""
import numpy as np
import pytest

import dy2st as paddle


def _lambdas_in_for(x):
    fs = []
    for i in range(3):
        fs.append(lambda y: y * i)
    return fs[0](x) + fs[1](x) + fs[2](x)


def _nested_defs_in_for(x):
    fs = []
    for i in range(3):
        def shift(y):
            return y + i
        fs.append(shift)
    out = x
    for f in fs:
        out = f(out)
    return out


def _body_variable(x):
    fs = []
    for i in range(3):
        scale = float(i) + 0.5
        fs.append(lambda y: y * scale)
    return fs[0](x) - fs[2](x)


def _tensor_captured(x):
    fs = []
    k = x * 1
    for _ in range(3):
        k = k + 1
        fs.append(lambda: k * 2)
    return fs[0]() + fs[1]()


def _in_while(x):
    fs = []
    i = 0
    while i < 3:
        fs.append(lambda y: y + i)
        i += 1
    return fs[0](x) * fs[1](x)


def _default_binds_early(x):
    fs = []
    for i in range(3):
        fs.append(lambda y, i=i: y * i)
    return fs[0](x) + fs[1](x) + fs[2](x)


def _comprehension(x):
    fs = [lambda y: y * i for i in range(3)]
    return fs[0](x) + fs[2](x)


def _called_in_iteration(x):
    out = x * 0
    for i in range(3):
        f = lambda y: y * i  # noqa: E731
        out = out + f(x)
    return out


def _tensor_rows(x):
    fs = [lambda: r for r in x]
    return fs[0]() + fs[-1]()


CASES = [_lambdas_in_for, _nested_defs_in_for, _body_variable, _tensor_captured, _in_while,
         _default_binds_early, _comprehension, _called_in_iteration]


@pytest.mark.parametrize("full_graph", [False, True])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_late_binding_as_in_eager(fn, full_graph):
    sf = paddle.jit.to_static(fn, full_graph=full_graph)
    for values in ([1.0, 2.0], [-3.0, 0.5]):
        x = paddle.to_tensor(np.array(values, "float32"))
        np.testing.assert_allclose(sf(x).numpy(), fn(x).numpy(), err_msg=str(values))


@pytest.mark.parametrize("fn", CASES + [_tensor_rows], ids=lambda f: f.__name__)
def test_saved_model_agrees(fn, tmp_path):
    shape = [2, 2] if fn is _tensor_rows else [2]
    spec = [paddle.static.InputSpec(shape, "float32")]
    sf = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for seed in (0, 1):
        x = paddle.to_tensor(np.random.default_rng(seed).standard_normal(shape).astype("float32"))
        np.testing.assert_allclose(loaded(x).numpy(), fn(x).numpy(), rtol=1e-6)
