"""paddle.static.nn.case / switch_case: chains of cond, so a symbolic predicate or index becomes
cond ops and an eager one picks its branch directly."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

from ..runtime import ops
from ..runtime.control_flow import cond

__all__ = ["case", "switch_case"]


def _callable(fn: Any, who: str, what: str) -> Callable:
    if not callable(fn):
        raise TypeError(f"{who}: {what} must be callable, got {type(fn).__name__}")
    return fn


def case(pred_fn_pairs: Sequence[Tuple[Any, Callable]], default: Optional[Callable] = None,
         name: Optional[str] = None) -> Any:
    """The fn of the first pair whose pred is true; default() if none (without a default, the
    last pair's fn)."""
    if not isinstance(pred_fn_pairs, (list, tuple)) or not pred_fn_pairs:
        raise TypeError("case: pred_fn_pairs must be a non-empty list or tuple of (pred, fn)")
    pairs = []
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"case: each element of pred_fn_pairs must be a (pred, fn) tuple, "
                            f"got {pair!r}")
        pairs.append((pair[0], _callable(pair[1], "case", "the fn of each pair")))
    if default is None:
        default = pairs[-1][1]
        pairs = pairs[:-1]
    else:
        _callable(default, "case", "default")

    def chain(i: int) -> Any:
        if i == len(pairs):
            return default()
        pred, fn = pairs[i]
        return cond(pred, fn, lambda: chain(i + 1))
    return chain(0)


def switch_case(branch_index: Any, branch_fns: Union[Dict[int, Callable], Sequence[Any]],
                default: Optional[Callable] = None, name: Optional[str] = None) -> Any:
    """branch_fns[branch_index]() (a dict {int: fn}, a list of (int, fn), or a list of fns
    indexed by position); default() for other indices (without one, the largest index's fn)."""
    if isinstance(branch_fns, dict):
        items = list(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)) and branch_fns and \
            all(isinstance(b, tuple) for b in branch_fns):
        items = list(branch_fns)
    elif isinstance(branch_fns, (list, tuple)) and branch_fns:
        items = list(enumerate(branch_fns))
    else:
        raise TypeError("switch_case: branch_fns must be a non-empty dict, list of (int, fn) "
                        "or list of fns")
    keys = [k for k, _ in items]
    if any(not isinstance(k, int) or isinstance(k, bool) for k in keys):
        raise TypeError(f"switch_case: branch indices must be ints, got {keys!r}")
    if len(set(keys)) != len(keys):
        raise ValueError(f"switch_case: branch index repeated in {keys!r}")
    items.sort(key=lambda kv: kv[0])
    for _, fn in items:
        _callable(fn, "switch_case", "each branch")
    if default is None:
        default = items[-1][1]
        items = items[:-1]
    if isinstance(branch_index, int):
        return dict(items).get(branch_index, default)()
    pairs = [(ops.equal(branch_index, ops.full([], k, branch_index.dtype)), fn)
             for k, fn in items]
    return case(pairs, default) if pairs else default()
