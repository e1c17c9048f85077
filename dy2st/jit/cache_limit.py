"""The bound on the programs one StaticFunction keeps: past CACHE_LIMIT a call that would trace
again runs eagerly instead, with one warning naming the function and what kept changing."""
from __future__ import annotations

import warnings
from typing import Any, Dict, Tuple

from .logger import log
from .signature import describe_change

# programs kept per function (Paddle SOT keeps 20 per code object, TorchDynamo 8); set it on
# this module to change it for functions traced from then on
CACHE_LIMIT = 20


class CacheLimitWarning(RuntimeWarning):
    """A to_static function reached CACHE_LIMIT programs and now runs new signatures eagerly."""


def run_eagerly(sf: Any, args: Tuple, kwargs: Dict[str, Any], key: Tuple) -> Any:
    """A miss past the limit: warn once, then run the call as plain Python (still correct)."""
    if not sf._over_limit:
        sf._over_limit = True
        message = (f"to_static: {sf.__name__} reached the cache limit of {CACHE_LIMIT} programs "
                   f"({why(sf, args, key)}); new signatures of it run eagerly from now on. Give "
                   "an InputSpec with None for dims that vary, or pass values that change on "
                   "every call as tensors")
        log.warning(message)
        warnings.warn(message, CacheLimitWarning, stacklevel=3)
    return sf.dygraph_function(*args, **kwargs)


def why(sf: Any, args: Tuple, key: Tuple) -> str:
    """What made the last miss: the guard that failed, or the argument that changed."""
    same = sf._entries.get(key)
    if same is not None and same.guards is not None:
        failed = same.guards.failure()
        if failed:
            return f"guard failed: {failed}"
    last = sf._last.key if sf._last is not None else None
    if last is None:
        return "a new signature"
    return describe_change(sf._arg_names(len(args)), last, key)
