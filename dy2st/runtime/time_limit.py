"""A wall-clock limit on a block of the main thread (a SIGALRM timer), as `dy2st run --timeout`
and tools/fuzz_minimize.py bound a model that may loop for ever."""
from __future__ import annotations

import contextlib
import signal
import time
from typing import Any, Callable, Iterator, Optional

#: False where the platform has no interval timer (Windows): time_limit cannot bound a block there
TIME_LIMIT_AVAILABLE: bool = hasattr(signal, "setitimer")


@contextlib.contextmanager
def time_limit(seconds: Optional[float],
               make_error: Callable[[], BaseException]) -> Iterator[None]:
    """Raise `make_error()` inside the block once it has run `seconds` (None: no limit).

    Only the main thread receives signals, so the block must run there (signal.signal raises
    ValueError elsewhere); where TIME_LIMIT_AVAILABLE is False a limit raises RuntimeError, so a
    caller that may run there checks it first. An enclosing limit that ends first is left to
    fire as it would; one that ends later is re-armed afterwards with what is left of it. The
    previous SIGALRM handler comes back."""
    if seconds is None:
        yield
        return
    if not TIME_LIMIT_AVAILABLE:
        raise RuntimeError("a time limit needs SIGALRM timers, which this platform does not have")
    if not seconds > 0:
        raise ValueError(f"a time limit must be a number of seconds > 0, got {seconds!r}")

    outer, _ = signal.getitimer(signal.ITIMER_REAL)
    if 0 < outer <= seconds:
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise make_error()
    previous = signal.signal(signal.SIGALRM, expire)
    start = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer > 0:
            # an outer limit keeps counting: what is left of it, or at once if it passed meanwhile
            left = outer - (time.monotonic() - start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6))
