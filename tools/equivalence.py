"""Eager-equivalence harness: one program run eagerly, through to_static (full_graph True and
False) and through jit.save / jit.load, over several calls, with values, dtypes and input
gradients compared leaf by leaf (used by tools/equivalence_variants.py)."""
import os
import tempfile
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional

import numpy as np

import dy2st as paddle

MODES = ("full_graph", "breaks", "saved")


@dataclass
class Variant:
    """A program to check. `fn(*tensors)` is a function, or `layer()` builds a fresh (seeded)
    Layer. `inputs` is a list of calls, each a tuple of numpy arrays; `between(k)` runs before
    call k in every mode (to change Python state the program reads)."""
    item: int
    name: str
    fn: Optional[Callable] = None
    layer: Optional[Callable[[], Any]] = None
    inputs: List[tuple] = field(default_factory=list)
    specs: Optional[list] = None
    grad: bool = True
    save: bool = True
    between: Optional[Callable[[int], None]] = None
    refusal_ok: tuple = ()          # modes where a clear error instead of eager's value is allowed
    refusal_errors: tuple = ("TypeError",)  # the error types such a refusal raises
    grad_inputs: Optional[tuple] = None   # indices of inputs that get gradients (default: floats)
    outer_backward: bool = True     # False: the program calls backward itself; x.grad is compared


def _leaves(out, acc):
    if isinstance(out, (list, tuple)):
        for v in out:
            _leaves(v, acc)
    elif isinstance(out, dict):
        for k in sorted(out, key=repr):
            acc.append(("key", repr(k)))
            _leaves(out[k], acc)
    elif isinstance(out, paddle.Tensor):
        acc.append(("tensor", np.array(out.numpy()), str(out.dtype)))
    else:
        acc.append(("py", type(out).__name__, out))
    return acc


def _loss(out):
    total = None
    for v in (out if isinstance(out, (list, tuple)) else [out]):
        if isinstance(v, paddle.Tensor) and v.dtype in (paddle.float32, paddle.float64) \
                and not v.stop_gradient:
            term = (v.astype("float64") ** 2).sum()
            total = term if total is None else total + term
    return total


def _run(call, arrays, grad_idx, outer_backward=True):
    """One call: its leaves and the gradients of sum(out ** 2) for the inputs in grad_idx, or
    ('raise', type name, message)."""
    tensors = []
    for k, a in enumerate(arrays):
        t = paddle.to_tensor(a)
        if k in grad_idx:
            t.stop_gradient = False
        tensors.append(t)
    try:
        out = call(*tensors)
        leaves = _leaves(out, [])
        grads = None
        loss = _loss(out)
        if grad_idx and outer_backward and loss is not None:
            loss.backward()
            grads = [None if tensors[k].grad is None else np.array(tensors[k].grad.numpy())
                     for k in grad_idx]
        return ("ok", leaves, grads, [np.array(t.grad.numpy()) if t.grad is not None else None
                                      for t in tensors])
    except Exception as e:  # noqa: BLE001 - the outcome is compared, whatever it is
        return ("raise", type(e).__name__, _message(e))


def _message(e):
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return " | ".join(lines[-2:])[:240]


def _same_leaves(want, got):
    if len(want) != len(got):
        return f"{len(want)} leaves vs {len(got)}"
    for w, g in zip(want, got):
        if w[0] != g[0]:
            return f"leaf kind {w[0]}:{w[1] if w[0] == 'py' else ''} vs {g[0]}"
        if w[0] == "tensor":
            if w[2] != g[2]:
                return f"dtype {w[2]} vs {g[2]}"
            if w[1].shape != g[1].shape:
                return f"shape {w[1].shape} vs {g[1].shape}"
            if not np.allclose(w[1].astype(np.float64), g[1].astype(np.float64), rtol=1e-4,
                               atol=1e-5, equal_nan=True):
                return f"value {w[1].ravel()[:6]} vs {g[1].ravel()[:6]}"
        elif w[0] == "py":
            if w[1] != g[1] or (w[2] != g[2] and not (
                    isinstance(w[2], float) and np.isclose(w[2], g[2], rtol=1e-5))):
                return f"python {w[1]}:{w[2]!r} vs {g[1]}:{g[2]!r}"
        elif w != g:
            return f"key {w[1]} vs {g[1]}"
    return None


def _compare(want, got, with_grad):
    if want[0] != got[0]:
        return f"{want[0]}({want[1] if want[0] == 'raise' else ''}) vs " \
               f"{got[0]}({got[1] if got[0] == 'raise' else ''}: {got[2] if got[0] == 'raise' else ''})"
    if want[0] == "raise":
        return None if want[1] == got[1] else f"raise {want[1]} vs {got[1]}: {got[2]}"
    bad = _same_leaves(want[1], got[1])
    if bad or not with_grad:
        return bad
    for w, g in zip(want[3], got[3]):
        if (w is None) != (g is None):
            return f"input grad {'None' if w is None else 'set'} vs {'None' if g is None else 'set'}"
        if w is not None and not np.allclose(w, g, rtol=1e-3, atol=1e-4):
            return f"gradient {w.ravel()[:6]} vs {g.ravel()[:6]}"
    return None


def _callables(v: Variant, mode: str, tmp: str):
    if v.layer is not None:
        if mode == "eager":
            return v.layer()
        if mode == "saved":
            model = v.layer()
            paddle.jit.save(model, tmp, input_spec=_specs(v))
            return paddle.jit.load(tmp)
        return paddle.jit.to_static(v.layer(), full_graph=(mode == "full_graph"))
    if mode == "eager":
        return v.fn
    if mode == "saved":
        sf = paddle.jit.to_static(v.fn, input_spec=_specs(v), full_graph=True)
        paddle.jit.save(sf, tmp, input_spec=_specs(v))
        return paddle.jit.load(tmp)
    return paddle.jit.to_static(v.fn, full_graph=(mode == "full_graph"))


def _specs(v: Variant):
    if v.specs is not None:
        return [paddle.static.InputSpec(s, d) for s, d in v.specs]
    return [paddle.static.InputSpec([None] + list(a.shape[1:]) if a.ndim else [], str(a.dtype))
            for a in v.inputs[0]]


def check(v: Variant, modes=MODES) -> dict:
    """{mode: None (agrees) | 'refused: ...' | 'skip' | reason} for one variant."""
    grad_idx = v.grad_inputs if v.grad_inputs is not None else tuple(
        k for k, a in enumerate(v.inputs[0]) if a.dtype.kind == "f") if v.grad else ()
    results = {}
    eager_call = _callables(v, "eager", "")
    eager = []
    for k, arrays in enumerate(v.inputs):
        if v.between:
            v.between(k)
        eager.append(_run(eager_call, arrays, grad_idx, v.outer_backward))
    # a loaded model is compared with an eager run without gradients (a backward in eager can
    # fail where the loaded model, which records none, cannot)
    eager_call = _callables(v, "eager", "")
    plain = [_run(eager_call, arrays, (), v.outer_backward) for arrays in v.inputs]
    for mode in modes:
        if mode == "saved" and not v.save:
            results[mode] = "skip"
            continue
        with tempfile.TemporaryDirectory() as d:
            try:
                call = _callables(v, mode, os.path.join(d, "m"))
            except Exception as e:  # noqa: BLE001 - a refusal to save is an outcome
                refused = mode in v.refusal_ok and type(e).__name__ in v.refusal_errors
                results[mode] = ("refused: " if refused else "build ") + \
                    f"{type(e).__name__}: {_message(e)}"
                continue
            bad = None
            for k, arrays in enumerate(v.inputs):
                if v.between:
                    v.between(k)
                got = _run(call, arrays, () if mode == "saved" else grad_idx, v.outer_backward)
                bad = _compare(plain[k] if mode == "saved" else eager[k], got, mode != "saved")
                if bad:
                    bad = f"call {k}: {bad}"
                    if got[0] == "raise" and mode in v.refusal_ok and got[1] in v.refusal_errors:
                        bad = f"refused: {got[1]}: {got[2]}"
                    break
            results[mode] = bad
    return results


def report(variants, modes=MODES, verbose=False):
    rows = []
    for v in variants:
        try:
            res = check(v, modes)
        except Exception:  # noqa: BLE001 - one broken variant must not stop the table
            res = {"harness": traceback.format_exc().splitlines()[-1]}
        status = "agrees" if all(r in (None, "skip") or str(r).startswith("refused")
                                 for r in res.values()) else "DISAGREES"
        rows.append((v.item, v.name, res, status))
        line = f"{v.item:>2} {v.name:<44} {status}"
        if status != "agrees" or verbose:
            line += "  " + "; ".join(f"{m}: {r}" for m, r in res.items() if r not in (None,))
        print(line, flush=True)
    return rows
