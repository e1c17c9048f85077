"""User-settable defaults: the default float dtype and the random seed."""
from __future__ import annotations

from typing import Any

import numpy as np

from .dtype import convert_dtype, dtype_name


class _Config:
    def __init__(self) -> None:
        self.default_dtype = "float32"
        self._rng = None
        self.initial_seed = 0       # the seed the current random stream started from

    # Created on first use: numpy.random is a costly import that most programs of dy2st's
    # users touch only when they draw random numbers.
    @property
    def rng(self) -> np.random.Generator:
        if self._rng is None:
            self._rng = np.random.default_rng(0)
        return self._rng

    @rng.setter
    def rng(self, generator: np.random.Generator) -> None:
        self._rng = generator


config = _Config()


def get_default_dtype() -> str:
    return config.default_dtype


def set_default_dtype(d: Any) -> None:
    d = convert_dtype(d)
    if not d.is_floating:
        raise TypeError(f"the default dtype must be a float type, got {dtype_name(d)}")
    config.default_dtype = dtype_name(d)


def seed(n: int) -> None:
    """Restart the random stream from seed n (runtime.generator.seed is the public one)."""
    config.rng = np.random.default_rng(int(n))
    config.initial_seed = int(n)


def rng() -> np.random.Generator:
    return config.rng
