"""scipy.special, imported on first use: it pulls in numpy.random and costs about 0.1 s, which
`import dy2st` and a first conversion should not pay."""
from __future__ import annotations

from types import ModuleType
from typing import Optional

_module: Optional[ModuleType] = None


def special() -> ModuleType:
    """The scipy.special module, imported the first time a kernel needs it."""
    global _module
    if _module is None:
        import scipy.special  # lazy: keeps scipy (and numpy.random) out of `import dy2st`
        _module = scipy.special
    return _module

