"""Control flow and run-time effects: `cond` -> lax.cond (or the one branch when the condition is
known while tracing), `while` -> lax.while_loop (or unrolled when its trip count is known while
tracing and small), print -> a host callback, assert / raise / check_defined -> a failure flag
the caller checks after the run."""
from __future__ import annotations

from typing import Any, List

import numpy as np

from ...runtime.control_flow.structure import cond_parts, while_parts
from ...runtime.registry import OPS
from .buffers import from_items, register, stackable
from .loader import jax_modules
from .lower import is_static
from .table import NotLowerable, lowers

_m = jax_modules

# a while loop whose condition is known while tracing is unrolled up to this many turns
UNROLL_LIMIT = 64


def _truth(cx, pred: Any) -> Any:
    if is_static(pred):
        return bool(np.asarray(pred).reshape(()))
    jnp = _m().jnp
    return jnp.asarray(pred).reshape(()).astype(bool)


@lowers("cond")
def _cond(cx, pred, *args, **attrs):
    op = cx.op
    true_b, false_b = cond_parts(cx.program, op).branches
    p = _truth(cx, pred)
    if isinstance(p, bool):
        return tuple(cx.run_block(true_b if p else false_b, args))

    def branch(block):
        def fn(operands):
            vals, state = operands
            cx.set_state(state)
            out = cx.run_block(block, vals)
            out = [_m().jnp.asarray(v) if is_static(v) else v for v in out]
            return out, cx.get_state()
        return fn
    try:
        out, state = _m().lax.cond(p, branch(true_b), branch(false_b),
                                   (list(args), cx.get_state()))
    except TypeError as e:
        raise NotLowerable(f"the two branches of a tensor `if` give values of different shapes "
                           f"or types ({_first_line(e)})", op.type, op.origin) from None
    cx.set_state(state)
    cx.op = op
    return tuple(out)


@lowers("while")
def _while(cx, *ins, **attrs):
    op = cx.op
    loop = while_parts(cx.program, op)
    cond_b, body_b = loop.cond_block, loop.body_block
    carried, invariant = loop.split(ins)
    unrolled = _unroll(cx, cond_b, body_b, carried, invariant)
    if unrolled is not None:
        cx.op = op
        return tuple(unrolled)
    jnp = _m().jnp

    def cond_fn(carry):
        vals, state = carry
        cx.set_state(state)
        return _truth(cx, cx.run_block(cond_b, list(vals) + invariant)[0])

    def body_fn(carry):
        vals, state = carry
        cx.set_state(state)
        out = cx.run_block(body_b, list(vals) + invariant)
        out = [jnp.asarray(v) if is_static(v) else v for v in out]
        return out, cx.get_state()

    init = [jnp.asarray(v) if is_static(v) else v for v in carried]
    if any(isinstance(v, list) for v in init):
        init = _as_buffers(cx, body_b, init, invariant)
    try:
        out, state = _m().lax.while_loop(cond_fn, body_fn, (init, cx.get_state()))
    except TypeError as e:
        raise NotLowerable(f"a loop variable of a tensor `while` changes shape or type from one "
                           f"turn to the next ({_first_line(e)})", op.type, op.origin) from None
    cx.set_state(state)
    cx.op = op
    return tuple(out)


def _as_buffers(cx, body_b, init: List[Any], invariant: List[Any]) -> List[Any]:
    """The loop's tensor arrays as buffers of cx.capacity items. The item type of an array that
    is empty when the loop starts is learnt by tracing the body once (its values are unused)."""
    register()
    if any(isinstance(v, list) and v and not stackable(v) for v in init):
        raise cx.not_lowerable("a tensor array whose items differ in shape is carried by a "
                               "loop with a data-dependent trip count")
    empty = [k for k, v in enumerate(init) if isinstance(v, list) and not v]
    items = {}
    if empty:
        saved = cx.get_state()
        cx.probing = True
        try:
            probe = cx.run_block(body_b, list(init) + invariant)
        finally:
            cx.probing = False
            cx.set_state(saved)
        for k in empty:
            got = probe[k]
            if not isinstance(got, list) or not stackable(got[len(init[k]):]):
                raise cx.not_lowerable("a tensor array a data-dependent loop fills with items "
                                       "of different shapes, or not one at a time")
            items[k] = got[-1]
    out = []
    for k, v in enumerate(init):
        if isinstance(v, list):
            out.append(from_items(v, cx.capacity, items.get(k)))
        else:
            out.append(v)
    return out


def _unroll(cx, cond_b, body_b, vals: List[Any], invariant: List[Any]):
    """The loop run turn by turn while tracing, when each turn's condition is known then; None
    (nothing changed) when a condition depends on the data or the loop runs too long."""
    saved = cx.get_state()
    for _ in range(UNROLL_LIMIT + 1):
        c = _truth(cx, cx.run_block(cond_b, vals + invariant)[0])
        if not isinstance(c, bool):
            break
        if not c:
            return vals
        vals = cx.run_block(body_b, vals + invariant)
    cx.set_state(saved)
    return None


def _first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


@lowers("print")
def _print(cx, *xs, **attrs):
    kernel = OPS["print"].kernel
    _m().jax.debug.callback(lambda *a: kernel(*[np.asarray(v) for v in a], **attrs), *xs,
                            ordered=True)
    return ()


@lowers("assert")
def _assert(cx, cond, *xs, message, where):
    cx.fail_if(_m().jnp.logical_not(_m().jnp.all(cond)))
    return ()


@lowers("raise")
def _raise(cx, *xs, type, message):
    cx.fail_if(True)
    return ()


@lowers("check_defined")
def _check_defined(cx, flag, **attrs):
    cx.fail_if(_m().jnp.logical_not(_m().jnp.all(flag)))
    return ()
