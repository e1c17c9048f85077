"""The `dy2st.jit` logger and Paddle's two switches for it: the verbosity and the code level,
set by `set_verbosity` / `set_code_level` or read from TRANSLATOR_VERBOSITY /
TRANSLATOR_CODE_LEVEL, and shown on stderr. The logging module is imported on first use:
importing it costs more than the rest of a first small conversion."""
from __future__ import annotations

import os
import sys
from typing import Any, Dict, Optional

VERBOSITY_ENV = "TRANSLATOR_VERBOSITY"
CODE_LEVEL_ENV = "TRANSLATOR_CODE_LEVEL"
LOG_ALL_PASSES = 100    # the code level that logs the code after the last pass (Paddle's default)

# values given to set_verbosity / set_code_level; None: read the environment variable
_explicit: Dict[str, Optional[int]] = {"verbosity": None, "code_level": None}
_to_stdout = {"verbosity": False, "code_level": False}


def _from_env(name: str) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return 0
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"the environment variable {name}={raw!r} must be an integer") from None


def verbosity() -> int:
    """The verbosity in force: set_verbosity's level, else TRANSLATOR_VERBOSITY, else 0."""
    value = _explicit["verbosity"]
    return _from_env(VERBOSITY_ENV) if value is None else value


def code_level() -> int:
    """The code level in force: set_code_level's level, else TRANSLATOR_CODE_LEVEL, else 0
    (off). N in 1..passes logs the code after the N-th pass; 100 the code after the last."""
    value = _explicit["code_level"]
    return _from_env(CODE_LEVEL_ENV) if value is None else value


def set_level(which: str, level: Optional[int], also_to_stdout: bool) -> None:
    """Record a switch (None: back to its environment variable) and configure the logger."""
    if level is not None and (isinstance(level, bool) or not isinstance(level, int)):
        raise TypeError(f"set_{which} expects an int or None, got {type(level).__name__}")
    _explicit[which] = level
    _to_stdout[which] = bool(also_to_stdout)
    _configure()


_state: Dict[str, Any] = {"handlers": None, "raised_from": None}


def _configure() -> Any:
    """The logger, at INFO (DEBUG from verbosity 3) while a switch is on, with a stderr handler
    (quiet while the application has configured logging itself: its root handlers show the
    records) and a stdout one when asked. The level the logger had is restored when both are
    off, so a level set by the application (or pytest's caplog) is left alone."""
    import logging
    logger = logging.getLogger("dy2st.jit")
    if _state["handlers"] is None:
        _state["handlers"] = (_handler("stderr", quiet=True), _handler("stdout", quiet=False))
        for h in _state["handlers"]:
            h.setFormatter(logging.Formatter("%(levelname)s [dy2st.jit] %(message)s"))
        logger.addHandler(_state["handlers"][0])
    on = verbosity() > 0 or code_level() > 0
    if on:
        if _state["raised_from"] is None:
            _state["raised_from"] = logger.level
        logger.setLevel(logging.DEBUG if verbosity() >= 3 else logging.INFO)
    elif _state["raised_from"] is not None:
        logger.setLevel(_state["raised_from"])
        _state["raised_from"] = None
    stdout = _state["handlers"][1]
    wants_stdout = on and any(_to_stdout.values())
    if wants_stdout and stdout not in logger.handlers:
        logger.addHandler(stdout)
    elif not wants_stdout and stdout in logger.handlers:
        logger.removeHandler(stdout)
    return logger


def _handler(stream: str, quiet: bool) -> Any:
    """A handler writing to sys.<stream> as it is when a record comes (not when the handler was
    made: a test or a notebook may have replaced it); a quiet one writes nothing while the root
    logger has handlers of its own (the application configured logging and shows the records)."""
    import logging

    class CurrentStreamHandler(logging.StreamHandler):
        def emit(self, record: Any) -> None:
            if quiet and logging.getLogger().handlers:
                return
            self.stream = getattr(sys, stream)
            super().emit(record)
    return CurrentStreamHandler(getattr(sys, stream))


class _JitLogger:
    """Forwards every attribute to the configured logging.getLogger("dy2st.jit")."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        return getattr(_configure(), name)


log = _JitLogger()
