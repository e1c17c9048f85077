"""For every conformance case with float inputs and outputs, the gradient of the sum of its
float outputs with respect to its float inputs (and a Layer's parameters) is the same eagerly
and through to_static."""
import importlib.util

import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.pytree import flatten
from tests.shared_cases import load_cases

CASES = [c for c in load_cases() if c.expect_error is None]


def _float_outputs(out):
    leaves, _ = flatten(out)
    return [t for t in leaves if isinstance(t, paddle.Tensor) and t.numpy().dtype.kind == "f"]


def _gradients(fn, args, params):
    """(loss or None, grads of float inputs, grads of params)."""
    xs = [paddle.to_tensor(a, stop_gradient=False) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
          else (paddle.to_tensor(a) if isinstance(a, np.ndarray) else a) for a in args]
    floats = [x for x in xs if isinstance(x, paddle.Tensor) and not x.stop_gradient]
    outs = [t for t in _float_outputs(fn(*xs)) if not t.stop_gradient]
    if not outs:
        return None, [], []
    loss = paddle.add_n([paddle.sum(t) for t in outs]) if hasattr(paddle, "add_n") and len(outs) > 1 \
        else sum((paddle.sum(t) for t in outs[1:]), paddle.sum(outs[0]))
    grads = paddle.grad(loss, floats + list(params), allow_unused=True)
    to_np = [None if g is None else g.numpy() for g in grads]
    return float(loss.numpy()), to_np[:len(floats)], to_np[len(floats):]


def _same(a, b):
    if a is None or b is None:
        # an unused input: zero and no gradient mean the same
        for g in (a, b):
            if g is not None:
                np.testing.assert_allclose(g, 0, atol=1e-6)
        return
    np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_eager_and_to_static_gradients_agree(case, backend, monkeypatch):
    if backend == "xla" and importlib.util.find_spec("jax") is None:
        pytest.skip("jax is not installed (pip install 'dy2st[xla]')")
    monkeypatch.setenv("DY2ST_BACKEND", backend)     # to_static's default backend
    checked = 0
    for inputs in case.inputs:
        if case.layer_factory is not None:
            paddle.seed(11)
            layer = case.layer_factory()
            params = [p for p in layer.parameters() if not p.stop_gradient]
            eager_fn, static_fn = layer.forward, None
        else:
            layer, params, eager_fn = None, [], case.fn
        loss_e, gx_e, gp_e = _gradients(eager_fn, inputs, params)
        if layer is not None:
            static_fn = paddle.jit.to_static(layer, full_graph=True)
        else:
            spec = ([paddle.static.InputSpec(s, d) for s, d in case.input_spec]
                    if case.spec_in_to_static else None)
            static_fn = paddle.jit.to_static(case.fn, input_spec=spec, full_graph=True)
        loss_s, gx_s, gp_s = _gradients(static_fn, inputs, params)
        if layer is not None:
            static_fn.forward.rollback()
        if loss_e is None:
            # no output depends on an input here (a loop that ran no turn): whatever static
            # mode records must be a zero gradient
            for g in gx_s + gp_s:
                _same(None, g)
            continue
        assert loss_s is not None, "the eager outputs are differentiable, the static ones not"
        np.testing.assert_allclose(loss_s, loss_e, rtol=1e-5, atol=1e-5)
        for a, b in zip(gx_e + gp_e, gx_s + gp_s):
            _same(a, b)
        checked += 1
    if checked == 0:
        pytest.skip("no float output depends on a float input or parameter in this case")
