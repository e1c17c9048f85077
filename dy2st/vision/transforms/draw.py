"""The random draws of the random transforms, all from dy2st's generator, so that paddle.seed(n)
makes a pipeline of random transforms repeat exactly."""
from __future__ import annotations

from typing import List, Sequence, Tuple, TypeVar

import numpy as np

from ...runtime.config import rng

T = TypeVar("T")


def uniform(low: float, high: float) -> float:
    """A float drawn uniformly from [low, high] (low == high gives low)."""
    return float(rng().uniform(low, high)) if high != low else float(low)


def randint(low: int, high: int) -> int:
    """An int drawn uniformly from low..high, both included (as random.randint)."""
    return int(rng().integers(low, high + 1))


def chance() -> float:
    """A float drawn uniformly from [0, 1): compare it with a probability."""
    return float(rng().random())


def shuffled(items: Sequence[T]) -> List[T]:
    """The items in a random order."""
    return [items[i] for i in rng().permutation(len(items))]


def normal(shape: Tuple[int, ...]) -> np.ndarray:
    """Standard normal noise of the given shape."""
    return rng().standard_normal(shape)
