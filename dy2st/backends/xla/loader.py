"""The one place jax is imported (lazily: `import dy2st` never loads it)."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Optional

_mods: Optional[SimpleNamespace] = None


def jax_modules() -> SimpleNamespace:
    """jax, jax.numpy (jnp), jax.lax (lax), jax.scipy.special (special), jax.random and the
    scoped x64 switch (enable_x64)."""
    global _mods
    if _mods is None:
        # jax is heavy (~1 s) and optional: loaded when the first xla program compiles
        import jax
        import jax.numpy as jnp
        import jax.scipy.special as special
        from jax import lax
        enable_x64 = getattr(jax, "enable_x64", None)
        if enable_x64 is None:
            # jax 0.6 (the newest for Python 3.10) has the scoped switch in jax.experimental only
            from jax.experimental import enable_x64
        _mods = SimpleNamespace(jax=jax, jnp=jnp, lax=lax, special=special, random=jax.random,
                                enable_x64=enable_x64)
    return _mods


def x64() -> Any:
    """A context enabling jax's 64-bit types for dy2st's own computations only (int64 and
    float64 keep their dtypes; other jax users keep their setting)."""
    return jax_modules().enable_x64(True)
