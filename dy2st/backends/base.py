"""The backend interface and the table of known backends: the one seam where a Program's
executor is chosen."""
from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any, Callable, Dict, Optional, Sequence

from ..runtime import device
from ..runtime.executor import compile_program
from ..runtime.program import Program

# The environment variable that sets the backend of to_static / jit.load when none is given.
DEFAULT_ENV = "DY2ST_BACKEND"


class Backend:
    """A way to run Programs. `compile` gives a callable `run(arrays) -> list of arrays` that also
    has `._run` (the same, without error mapping) and the attributes `raise_run_error` reads;
    `unsupported(program)` names what this backend cannot lower (None: it lowers everything)."""
    name = ""

    def compile(self, program: Program, feed_names: Sequence[str],
                fetch_names: Sequence[str]) -> Any:
        raise NotImplementedError

    def unsupported(self, program: Program) -> Optional[str]:
        return None


class NumpyBackend(Backend):
    """The numpy executor: the Program compiled into one generated Python function."""
    name = "numpy"

    def compile(self, program: Program, feed_names: Sequence[str],
                fetch_names: Sequence[str]) -> Any:
        return compile_program(program, feed_names, fetch_names)


def _xla() -> Backend:
    if importlib.util.find_spec("jax") is None:
        raise ImportError('to_static(backend="xla") needs jax, which is not installed: '
                          'pip install "dy2st[xla]" (or pip install "jax[cpu]")')
    # imported on first use: the xla package pulls in jax only when it compiles
    module = importlib.import_module(".xla", __package__)
    return module.XlaBackend()


# name -> factory (called once, on first use)
KNOWN_BACKENDS: Dict[str, Callable[[], Backend]] = {"numpy": NumpyBackend, "xla": _xla}
_instances: Dict[str, Backend] = {}


def resolve_backend(name: Optional[str]) -> str:
    """The backend name a to_static / jit.load call means: `name`, else $DY2ST_BACKEND, else
    "numpy". An unknown name raises ValueError; "xla" without jax raises ImportError."""
    given = name
    if name is None:
        name = os.environ.get(DEFAULT_ENV) or "numpy"
    if not isinstance(name, str):
        raise TypeError(f"backend must be a string or None, got {type(name).__name__}")
    key = name.lower()
    if key not in KNOWN_BACKENDS:
        where = f" (from ${DEFAULT_ENV})" if given is None else ""
        raise ValueError(f"unknown backend {name!r}{where}; the known backends are "
                         f"{', '.join(repr(k) for k in KNOWN_BACKENDS)} (None means "
                         f"${DEFAULT_ENV}, else 'numpy')")
    get_backend(key)        # fails now, at to_static, when the backend cannot be used
    return key


def get_backend(name: str) -> Backend:
    backend = _instances.get(name)
    if backend is None:
        backend = _instances[name] = KNOWN_BACKENDS[name]()
    return backend


def compile_for(backend: str, program: Program, feed_names: Sequence[str],
                fetch_names: Sequence[str]) -> Any:
    """Compile program on the named backend (a name resolve_backend returned)."""
    if backend == "numpy":          # the common case: no table lookup
        return compile_program(program, feed_names, fetch_names)
    return get_backend(backend).compile(program, feed_names, fetch_names)


def _gpu_count() -> int:
    """GPUs the xla backend can use: asked of jax only when set_device("gpu") is called."""
    if importlib.util.find_spec("jax") is None:
        return 0
    # imported on first use: jax loads only when a script asks for a GPU
    module = importlib.import_module(".xla.device", __package__)
    return module.gpu_count()


# set_device("gpu") is valid where jax has a GPU (programs on backend="xla" then run there)
device.register_device_kind("gpu", _gpu_count)
