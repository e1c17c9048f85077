"""paddle.Generator: the one CPU random generator every random op draws from, with Paddle's
seed / state API; paddle.seed, get_rng_state and set_rng_state are views of it."""
from __future__ import annotations

import secrets
from typing import Any, Dict, List, Optional

import numpy as np

from .config import config, seed as restart_stream


class GeneratorState:
    """A snapshot of the generator (Paddle's GeneratorState): the seed it started from and the
    bit generator's position. Restoring it replays the same numbers."""

    __slots__ = ("seed", "bit_state")

    def __init__(self, seed: int, bit_state: Dict[str, Any]) -> None:
        self.seed = seed
        self.bit_state = bit_state

    def current_seed(self) -> int:
        return self.seed

    def __copy__(self) -> "GeneratorState":
        return GeneratorState(self.seed, _copy_state(self.bit_state))

    def __repr__(self) -> str:
        return f"GeneratorState(seed={self.seed})"


def _copy_state(bit_state: Dict[str, Any]) -> Dict[str, Any]:
    # PCG64's state is a dict of dicts of ints: copy it so later draws cannot change a snapshot
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in bit_state.items()}


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"a random seed must be an int, got {type(seed).__name__} {seed!r}")
    if not 0 <= int(seed) < 2 ** 64:
        raise ValueError(f"a random seed must be in [0, 2**64), got {seed}")
    return int(seed)


class Generator:
    """The default CPU generator, as `paddle.Generator(device)` returns it in Paddle: every call
    gives the same object, so `paddle.Generator().manual_seed(n)` is `paddle.seed(n)`.

    Besides the current state it keeps registered states (`register_state_index`), each an
    independent stream: switching index saves the current stream and resumes the other."""

    _default: Optional["Generator"] = None

    def __new__(cls, device: Any = None) -> "Generator":
        _check_device(device)
        if cls._default is None:
            gen = super().__new__(cls)
            gen._states: List[Optional[GeneratorState]] = [None]
            gen._index = 0
            cls._default = gen
        return cls._default

    def manual_seed(self, seed: int) -> "Generator":
        """Restart the current stream from `seed`; returns the generator."""
        restart_stream(_check_seed(seed))
        return self

    def seed(self) -> int:
        """Restart the current stream from a fresh non-deterministic seed, and return it."""
        seed = secrets.randbits(63)
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        """The seed the current stream started from."""
        return config.initial_seed

    def get_state(self) -> GeneratorState:
        return GeneratorState(config.initial_seed, _copy_state(config.rng.bit_generator.state))

    def set_state(self, state: Any) -> "Generator":
        """Resume from a state of get_state (a numpy bit-generator state dict is also taken)."""
        if isinstance(state, GeneratorState):
            seed, bits = state.seed, state.bit_state
        elif isinstance(state, dict) and "bit_generator" in state:
            seed, bits = config.initial_seed, state
        else:
            raise TypeError("set_state takes a state from Generator.get_state / "
                            f"paddle.get_rng_state, got {type(state).__name__}")
        rng = np.random.default_rng()
        rng.bit_generator.state = _copy_state(bits)
        config.rng = rng
        config.initial_seed = seed
        return self

    def random(self) -> int:
        """A random 64-bit unsigned integer from the current stream."""
        return int(config.rng.integers(0, 2 ** 64, dtype=np.uint64))

    def get_state_index(self) -> int:
        return self._index

    def register_state_index(self, state: GeneratorState) -> int:
        """Add `state` as a new stream, switch to it and return its index."""
        if not isinstance(state, GeneratorState):
            raise TypeError(f"register_state_index takes a GeneratorState, got "
                            f"{type(state).__name__}")
        self._states.append(state.__copy__())
        index = len(self._states) - 1
        self.set_state_index(index)
        return index

    def set_state_index(self, index: int) -> None:
        """Switch to the stream registered at `index` (0 is the original one)."""
        if not isinstance(index, (int, np.integer)) or not 0 <= index < len(self._states):
            raise IndexError(f"generator state index {index} is not registered "
                             f"(0..{len(self._states) - 1})")
        self._states[self._index] = self.get_state()
        target = self._states[int(index)]
        self._index = int(index)
        if target is not None:
            self.set_state(target)

    def __repr__(self) -> str:
        return f"paddle.Generator(device='cpu', initial_seed={config.initial_seed})"


def _check_device(device: Any) -> None:
    name = getattr(device, "kind", device)     # a Place
    if device is None or (isinstance(name, str) and name.split(":")[0] == "cpu"):
        return
    raise ValueError(f"paddle.Generator: dy2st computes on the CPU only; got device {device!r} "
                     "(use None or 'cpu')")


def default_generator() -> Generator:
    return Generator()


def seed(n: int) -> Generator:
    """Seed the global random generator (random initialisation and random ops); returns it."""
    return default_generator().manual_seed(n)


def get_rng_state(device: Any = None) -> List[GeneratorState]:
    """The generator's state, in a list as Paddle returns one per device (dy2st has the CPU)."""
    _check_device(device)
    return [default_generator().get_state()]


def set_rng_state(state_list: Any, device: Any = None) -> None:
    """Restore states from get_rng_state (a list, or one state)."""
    _check_device(device)
    if isinstance(state_list, (list, tuple)):
        if len(state_list) != 1:
            raise ValueError(f"set_rng_state: dy2st has one (CPU) generator, got "
                             f"{len(state_list)} states")
        state_list = state_list[0]
    default_generator().set_state(state_list)
