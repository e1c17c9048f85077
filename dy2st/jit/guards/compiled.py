"""All the guards of one cache entry compiled into one Python function (as Paddle SOT compiles
its guard strings): a global or an instance attribute compared by identity or plain value is
one dict lookup inline; other guards call their reader and checker."""
from __future__ import annotations

from functools import lru_cache
from types import CodeType
from typing import Any, Callable, Dict, List, Sequence

from .values import MISSING, snapshot


def compile_check(guards: Sequence[Any]) -> Callable[[], bool]:
    """A function of no arguments: True when every guard holds."""
    if not guards:
        return _always
    env: Dict[str, Any] = {"_M": MISSING}
    terms: List[str] = []
    for i, g in enumerate(guards):
        terms.append(_term(i, g, env))
    source = "def check():\n    return " + " and ".join(terms) + "\n"
    exec(_compiled(source), env)      # noqa: S102 - our own text
    return env["check"]


@lru_cache(maxsize=1024)
def _compiled(source: str) -> CodeType:
    # the text names its values by position (_d0, _v0, ...), so every trace of one function,
    # and functions that read the same kinds of state, share it; compile() is most of the cost
    return compile(source, "<dy2st guards>", "exec")


def _always() -> bool:
    return True


def _term(i: int, g: Any, env: Dict[str, Any]) -> str:
    src = g.source if not g.by_type else None
    if src is not None and src[0] == "epochs":
        # the layers a trace called (layer_states.py): two counters inline, the states only
        # when one moved
        env[f"_S{i}"], env[f"_O{i}"] = src[1], src[1].owner
        return f"(_S{i}.epochs == (_O{i}.state_epoch, _O{i}.structure_epoch) or _S{i}.holds())"
    snap = snapshot(g.value)
    kind = snap[0]
    if kind == "f" and g.value == g.value and g.value != 0.0:
        kind = "v"          # a float that is not 0.0 or NaN: == of two floats is exact
    if src is not None and kind in ("o", "v"):
        table, name = src[1], src[2]
        env[f"_d{i}"], env[f"_v{i}"] = table, g.value
        lookup = f"_d{i}.get({name!r}, _M)"
        if src[0] == "global" and name not in table:
            # read from builtins while the module does not define it
            env[f"_b{i}"] = src[3]
            if kind == "o":
                return f"({name!r} not in _d{i} and _b{i}.get({name!r}, _M) is _v{i})"
            lookup = f"_b{i}.get({name!r}, _M)"
            env[f"_T{i}"] = type(g.value)
            return (f"({name!r} not in _d{i} and type(_t{i} := {lookup}) is _T{i} and "
                    f"_t{i} == _v{i})")
        if kind == "o":
            return f"{lookup} is _v{i}"
        env[f"_T{i}"] = type(g.value)
        return f"(type(_t{i} := {lookup}) is _T{i} and _t{i} == _v{i})"
    if src is not None and kind == "flat" and (src[0] == "dict" or src[2] in src[1]):
        # a list, tuple or dict of plain values: one == on a copy, plus the entries' types
        env[f"_d{i}"], env[f"_T{i}"], env[f"_Y{i}"] = src[1], snap[1], snap[3]
        value = f"_t{i}"
        if snap[1] is dict:
            env[f"_v{i}"], env[f"_K{i}"] = dict(zip(snap[2], snap[4])), snap[2]
            return (f"(type(_t{i} := _d{i}.get({src[2]!r}, _M)) is dict and _t{i} == _v{i} and "
                    f"tuple(_t{i}) == _K{i} and tuple(map(type, _t{i}.values())) == _Y{i})")
        env[f"_v{i}"] = snap[1](snap[4])
        return (f"(type(_t{i} := _d{i}.get({src[2]!r}, _M)) is _T{i} and {value} == _v{i} and "
                f"tuple(map(type, {value})) == _Y{i})")
    env[f"_r{i}"], env[f"_k{i}"] = g.read, g.ok
    return f"_k{i}(_r{i}())"
