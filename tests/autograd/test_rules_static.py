"""The gradient rules applied to static Variables with an unknown batch dim give the eager
gradients: static `gradients` (append_backward) runs every case of the table; a tensor-array
program's rules run by a straight-line reverse walk (append_backward does not differentiate
tensor arrays yet)."""
from typing import Any, Dict, List

import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd.rules import NO_GRAD, RULES, VjpContext
from dy2st.autograd.rules.array_rules import add_array_grads
from dy2st.autograd.static_api import gradients
from dy2st.runtime import ops
from dy2st.runtime.ops import array as arrays_api
from tests.autograd.vjp_cases import CASES, Case, Float, f


def _float_outputs(out: Any) -> List[Any]:
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    return [o for o in outs if o.dtype.is_floating]


def _accumulate(grads: Dict[str, Any], var: Any, g: Any) -> None:
    old = grads.get(var.name)
    if old is None:
        grads[var.name] = g
    else:
        grads[var.name] = add_array_grads(old, g) if var.kind == "array" else old + g


def _reverse_walk(block: Any, grads: Dict[str, Any]) -> None:
    """Append each op's gradient ops, last op first, accumulating into grads (by name)."""
    for op in reversed(list(block.ops)):
        if op.type in NO_GRAD or not any(n in grads for n in op.outputs):
            continue
        ins = [block.vars[n] for n in op.inputs]
        outs = [block.vars[n] for n in op.outputs]
        out_grads = [grads[v.name] if v.name in grads
                     else None if v.kind == "array" else ops.zeros_like(v) for v in outs]
        needs = [v.kind == "array" or v.dtype.is_floating for v in ins]
        in_grads = RULES[op.type].fn(VjpContext(op.type, ins, outs, op.attrs, needs),
                                     *out_grads)
        assert len(in_grads) == len(ins), op.type
        for v, g, need in zip(ins, in_grads, needs):
            if g is not None and need:
                _accumulate(grads, v, g)


def _static_inputs(case: Case, arrays: List[np.ndarray]) -> List[Any]:
    """static.data inputs, float ones with an unknown first dim."""
    xs = []
    for i, (a, spec) in enumerate(zip(arrays, case.inputs)):
        shape = [None if k == 0 and isinstance(spec, Float) else d for k, d in enumerate(a.shape)]
        xs.append(paddle.static.data(f"x{i}", shape, str(a.dtype)))
    return xs


def _run(main: Any, arrays: List[np.ndarray], cots: List[np.ndarray], fetch: List[Any]) -> List[Any]:
    feed = {f"x{i}": a for i, a in enumerate(arrays)}
    feed.update({f"c{k}": c for k, c in enumerate(cots)})
    got = iter(paddle.static.Executor().run(main, feed=feed,
                                            fetch_list=[g for g in fetch if g is not None]))
    return [next(got) if g is not None else None for g in fetch]


def static_grads(case: Case, arrays: List[np.ndarray], cots: List[np.ndarray]) -> List[Any]:
    """The gradients of sum(out * cot) that static `gradients` computes."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xs = _static_inputs(case, arrays)
        paddle.seed(0)
        outs = _float_outputs(case.fn(*xs))
        cs = [paddle.static.data(f"c{k}", list(c.shape), str(c.dtype))
              for k, c in enumerate(cots)]
        fetch = gradients(outs, [xs[i] for i in case.diff], target_gradients=cs)
    return _run(main, arrays, cots, fetch)


def walked_grads(case: Case, arrays: List[np.ndarray], cots: List[np.ndarray]) -> List[Any]:
    """The same gradients by the reverse walk, which differentiates tensor arrays too."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xs = _static_inputs(case, arrays)
        outs = _float_outputs(case.fn(*xs))
        cs = [paddle.static.data(f"c{k}", list(c.shape), str(c.dtype))
              for k, c in enumerate(cots)]
        grads: Dict[str, Any] = {}
        for o, c in zip(outs, cs):
            _accumulate(grads, o, c)
        _reverse_walk(outs[0].block, grads)
        fetch = [grads.get(xs[i].name) for i in case.diff]
    return _run(main, arrays, cots, fetch)


def eager_grads(case: Case, arrays: List[np.ndarray], cots: List[np.ndarray]) -> List[Any]:
    ts = [paddle.to_tensor(a, stop_gradient=i not in case.diff) for i, a in enumerate(arrays)]
    paddle.seed(0)
    outs = _float_outputs(case.fn(*ts))
    loss = outs[0].sum() * 0.0
    for o, c in zip(outs, cots):
        loss = loss + (o * paddle.to_tensor(c)).sum()
    found = paddle.grad([loss], [ts[i] for i in case.diff], allow_unused=True)
    return [None if g is None else g.numpy() for g in found]


def check_static(case: Case, seed: int = 0) -> None:
    arrays = case.arrays(seed)
    paddle.seed(0)
    outs = _float_outputs(case.fn(*[paddle.to_tensor(a) for a in arrays]))
    rng = np.random.default_rng(seed + 1)
    cots = [rng.standard_normal(o.shape).astype(o.numpy().dtype) for o in outs]
    for k, (want, got) in enumerate(zip(eager_grads(case, arrays, cots),
                                        static_grads(case, arrays, cots))):
        if want is None:
            assert got is None or not np.any(got), f"{case.name}: input {k}"
            continue
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-10,
                                   err_msg=f"{case.name}: gradient of input {case.diff[k]}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_static_rules_match_eager(case):
    check_static(case)


def _writes_reads_stacks(x0, x1, x2):
    arr = arrays_api.create_array("float64")
    arr = arrays_api.array_write(x0, 0, arr)
    arr = arrays_api.array_write(x1, 1, arr)
    r = arrays_api.array_read(arr, 1)
    arr = arrays_api.array_write(x2, 0, arr)          # overwrites x0: it gets no gradient
    return arrays_api.array_stack(arr, 1), r * 2.0, arrays_api.array_concat(arr, 0)


def test_static_tensor_array_gradients():
    case = Case("arrays", _writes_reads_stacks, [f(2, 3), f(2, 3), f(2, 3)])
    data = case.arrays()
    rng = np.random.default_rng(1)
    c_stack, c_read, c_cat = rng.standard_normal((2, 2, 3)), rng.standard_normal((2, 3)), \
        rng.standard_normal((4, 3))
    g0, g1, g2 = walked_grads(case, data, [c_stack, c_read, c_cat])
    np.testing.assert_array_equal(g0, np.zeros((2, 3)))
    np.testing.assert_allclose(g1, c_stack[:, 1] + 2 * c_read + c_cat[2:])
    np.testing.assert_allclose(g2, c_stack[:, 0] + c_cat[:2])
