"""paddle.amp.debugging: which ops ran in which precision (operator stats), and a numerics check
of a tensor (check_numerics)."""
from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np

from ..runtime.tensor import Tensor
from .auto_cast import collect_operator_stats as _collect, low_precision_op_list

__all__ = ["enable_operator_stats_collection", "disable_operator_stats_collection",
           "collect_operator_stats", "check_numerics"]

_active: list = []


def enable_operator_stats_collection() -> None:
    """Start counting, per op and dtype, the ops run (print them with
    disable_operator_stats_collection)."""
    ctx = _collect()
    ctx.__enter__()
    _active.append(ctx)


def disable_operator_stats_collection() -> Dict[str, Dict[str, int]]:
    """Stop counting; print and return the counts (op -> dtype -> calls)."""
    if not _active:
        raise RuntimeError("disable_operator_stats_collection: collection was not enabled")
    stats = low_precision_op_list()
    _active.pop().__exit__(None, None, None)
    for op in sorted(stats):
        print(f"{op:<32} " + "  ".join(f"{d}: {n}" for d, n in sorted(stats[op].items())))
    return stats


collect_operator_stats = _collect


def check_numerics(tensor: Any, op_type: str = "", var_name: str = "",
                   debug_mode: Any = None) -> Tuple[Tensor, Tensor]:
    """(stats, values): stats = [number of nan, number of inf, number of zeros] and values =
    [max, min, mean] of the finite entries; raises when the tensor holds nan or inf."""
    a = np.asarray(tensor._value if isinstance(tensor, Tensor) else tensor, dtype=np.float64)
    n_nan, n_inf = int(np.isnan(a).sum()), int(np.isinf(a).sum())
    finite = a[np.isfinite(a)]
    stats = Tensor(np.array([n_nan, n_inf, int((a == 0).sum())], dtype=np.int64))
    values = Tensor(np.array([finite.max(), finite.min(), finite.mean()] if finite.size
                             else [0.0, 0.0, 0.0], dtype=np.float32))
    if n_nan or n_inf:
        where = f" ({op_type} {var_name})".rstrip() if op_type or var_name else ""
        raise RuntimeError(f"check_numerics{where}: the tensor holds {n_nan} nan and {n_inf} "
                           f"inf value(s)")
    return stats, values
