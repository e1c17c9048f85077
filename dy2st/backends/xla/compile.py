"""An XLA-compiled Program: one jitted computation per concrete feed signature (a None dim
compiles once per size, in a bounded cache), reading parameters as arguments, with the numpy
executor standing in for programs XLA cannot express."""
from __future__ import annotations

import collections
import logging
import os
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...runtime.collective import COLLECTIVE_OPS, communicator
from ...runtime.config import rng
from ...runtime.executor import compile_program, raise_with_op_origin
from ...runtime.loop_limit import loop_limit
from ...runtime.program import Program
from .buffers import (
    INITIAL_CAPACITY,
    Buffer,
    capacity_for,
    from_items,
    register,
    stackable,
    to_list,
)
from .device import placed
from .grad_markers import GradMarkers
from .loader import jax_modules, x64
from .lower import LowerContext
from .lowerings import LOWERINGS  # noqa: F401 - every op family registered before lowering
from .params import device_value, remember_outputs
from .spmd import AXIS, OverProcesses
from .table import NotLowerable

# the retrace / fallback log lines go where to_static's retrace lines go (jit.set_verbosity)
log = logging.getLogger("dy2st.jit.xla")

# compiled signatures kept per program; past it the least recently used one is dropped
CACHE_SIZE = 8
# DY2ST_XLA_STRICT=1: a program that cannot be lowered raises instead of running on numpy
STRICT_ENV = "DY2ST_XLA_STRICT"
_NUMPY = "numpy"
_NO_SEED = np.zeros(2, np.uint32)      # the seed of programs that draw no random numbers

RANDOM_OPS = frozenset(("uniform_random", "gaussian_random", "randint", "binomial", "poisson",
                        "standard_gamma", "dropout", "fractional_max_pool_nd"))


class Fallback:
    """Why one program runs on numpy: the op and its user line (None when not known)."""

    def __init__(self, op_type: str, reason: str, where: str) -> None:
        self.op_type, self.reason, self.where = op_type, reason, where

    def __repr__(self) -> str:
        return f"Fallback({self.op_type!r}: {self.reason}{' at ' + self.where if self.where else ''})"


# every fallback so far, in order (tests and the corpus report read it)
FALLBACKS: List[Fallback] = []


class XlaProgram:
    """A callable running a Program on XLA: arrays in (feed order), arrays out (fetch order)."""

    # what raise_run_error reads of a compiled program: no generated lines map to ops here
    filename = "<dy2st xla program>"
    line_ops: Dict[int, Any] = {}
    line_fused: Dict[int, Any] = {}
    source = ""

    def __init__(self, program: Program, feed_names: Sequence[str],
                 fetch_names: Sequence[str]) -> None:
        self.program = program
        self.feed_names = list(feed_names)
        self.fetch_names = list(fetch_names)
        used = {n for op in program.global_block().ops for n in op.inputs} | set(fetch_names)
        self.persistable_names = [n for n in program.persistables if n in used]
        self.markers = GradMarkers(program, self.persistable_names, self.fetch_names)
        self.random = any(op.type in RANDOM_OPS for b in program.blocks for op in b.ops)
        self.cache: "collections.OrderedDict[Tuple, Any]" = collections.OrderedDict()
        self.fallback: Optional[Fallback] = None
        self._numpy = None
        self.compiles = 0
        self.capacity = INITIAL_CAPACITY     # of the buffers data-dependent loops append into

    # -- calling -------------------------------------------------------------------------
    def __call__(self, arrays: Sequence[Any]) -> List[Any]:
        return self._run(arrays)

    def _run(self, arrays: Sequence[Any]) -> List[Any]:
        arrays = [_as_feed(a, self.capacity) if isinstance(a, list) else a for a in arrays]
        key = tuple(map(_signature, arrays))
        fn = self.cache.get(key)
        if fn is None:
            fn = self._compile(key, arrays)
        else:
            self.cache.move_to_end(key)
        if fn is _NUMPY:
            return self.numpy_run(arrays)
        persistables = self.program.persistables
        if self.markers.reads and self.markers.host_only(
                [persistables[n]._value for n in self.persistable_names]):
            return self.numpy_run(arrays)       # a `.grad` that is None on this call
        params = [device_value(persistables[n]) for n in self.persistable_names]
        seed = rng().integers(0, 2 ** 32, 2, dtype=np.uint32) if self.random else _NO_SEED
        with x64(), placed():
            outs, status = fn(arrays, params, seed)
        # one transfer for both flags: 1 a run-time check failed, 2 a loop buffer overflowed
        status = int(np.asarray(status))
        if status & 2:
            # a loop appended more items than its buffers hold: compile with room for more
            self.capacity *= 4
            self.cache.clear()
            log.info("xla: a loop of %s ran past its buffers; compiling again with room for "
                     "%d items", _name(self.program), self.capacity)
            return self._run([_plain(a) for a in arrays])
        if status & 1:
            # a run-time check failed (assert, raise, a value one path never assigned): the
            # numpy executor raises it at the user's line
            self.numpy_run(arrays)
            raise RuntimeError("a run-time check of the program failed under XLA, and did "
                               "not fail again when run on numpy (random draws differ)")
        return self.markers.restore(remember_outputs(
            [to_list(o.data, o.length) if isinstance(o, Buffer) else o for o in outs]))

    def numpy_run(self, arrays: Sequence[Any]) -> List[Any]:
        if self._numpy is None:
            self._numpy = compile_program(self.program, self.feed_names, self.fetch_names)
        try:
            return self._numpy._run([_plain(a) for a in arrays])
        except Exception as e:  # noqa: BLE001 - mapped to the user's line by the numpy program
            raise_with_op_origin(e, self._numpy, sys.exc_info()[2])

    # -- compiling -----------------------------------------------------------------------
    def _compile(self, key: Tuple, arrays: Sequence[Any]) -> Any:
        if self.fallback is None and self.markers.refusal is not None:
            self._fall_back("grad_clear", self.markers.refusal, None)
        if self.fallback is None and _bounds_loops(self.program):
            # lax.while_loop cannot raise on its turn count: the numpy executor enforces it
            self._fall_back("while", "max_loop_iterations bounds the model's loops, which "
                            "only the numpy executor counts", None)
        if self.fallback is not None:
            fn = _NUMPY
        else:
            if self.cache:
                log.info("xla: compiling %s again for feed shapes %s (%d signature(s) cached, "
                         "at most %d)", _name(self.program), [_shape_text(s) for s in key],
                         len(self.cache), CACHE_SIZE)
            fn = self._lower(arrays)
        self.cache[key] = fn
        if len(self.cache) > CACHE_SIZE:
            self.cache.popitem(last=False)
        return fn

    def _lower(self, arrays: Sequence[Any]) -> Any:
        m = jax_modules()
        program = self.program
        feed_names, fetch_names = self.feed_names, self.fetch_names
        persistable_names = self.persistable_names

        capacity = self.capacity
        # a program with collectives, in a job of several processes, is one computation every
        # process runs together (its collectives reach across them)
        spmd = communicator().spmd and any(
            op.type in COLLECTIVE_OPS for b in program.blocks for op in b.ops)

        def computation(feeds, params, seed):
            cx = LowerContext(program)
            cx.axis = AXIS if spmd else None
            cx.key = m.random.wrap_key_data(seed) if self.random else None
            cx.failed = m.jnp.zeros((), bool)
            cx.overflow = m.jnp.zeros((), bool)
            cx.capacity = capacity
            env = dict(zip(feed_names, feeds))
            env.update(zip(persistable_names, params))
            cx.run_ops(program.global_block(), env)
            if spmd:
                # every process sees a flag any of them raised, so all run again together
                # (one running again alone would wait forever in its collectives)
                cx.failed = m.lax.pmax(cx.failed.astype(np.int32), AXIS)
                cx.overflow = m.lax.pmax(cx.overflow.astype(np.int32), AXIS)
            status = cx.failed.astype(np.int32) + 2 * cx.overflow.astype(np.int32)
            return [env[n] for n in fetch_names], status

        jitted = OverProcesses(computation) if spmd else m.jax.jit(computation)
        params = [device_value(program.persistables[n]) for n in persistable_names]
        seed = np.zeros(2, np.uint32)
        try:
            with x64(), placed():
                jitted.lower(list(arrays), params, seed).compile()
        except NotLowerable as e:
            return self._fall_back(e.op_type, e.reason, e.origin)
        except Exception as e:  # noqa: BLE001 - numpy runs it (and raises a user error there)
            if os.environ.get(STRICT_ENV):
                raise
            return self._fall_back("", f"{type(e).__name__} while lowering: {e}", None)
        self.compiles += 1
        # calls go through the jitted function: jax's C++ dispatch reuses the executable just
        # compiled, at a fraction of a Compiled object's per-call cost
        return jitted

    def _fall_back(self, op_type: str, reason: str, origin: Any) -> str:
        where = f"{origin.file}:{origin.line}: {origin.source}" if origin is not None else ""
        self.fallback = Fallback(op_type, reason, where)
        FALLBACKS.append(self.fallback)
        if os.environ.get(STRICT_ENV):
            raise NotLowerable(reason, op_type, origin)
        log.info("xla: %s runs on the numpy backend: %s%s", _name(self.program),
                 f"op {op_type!r}: " if op_type else "", reason +
                 (f' (File "{origin.file}", line {origin.line}: {origin.source})'
                  if origin is not None else ""))
        return _NUMPY


def _as_feed(items: List[Any], capacity: int) -> Any:
    """A tensor-array feed (the tapes a gradient program reads) as a buffer whose capacity is a
    power of two: programs fed tapes of 5 or 7 items share one compiled computation."""
    if not stackable(items):
        return items
    register()
    with x64():
        return from_items(items, capacity_for(len(items), 1))


def _plain(value: Any) -> Any:
    """A feed as the numpy executor takes it (a buffer back to its list of items)."""
    if isinstance(value, Buffer):
        return to_list(value.data, value.length)
    return value if isinstance(value, list) else np.asarray(value)


def _signature(value: Any) -> Any:
    """The part of a feed a compiled computation is specialised on: shape and dtype (for a
    tensor array, a Python list, those of its items)."""
    if type(value) is np.ndarray:       # the usual feed
        return (value.shape, value.dtype.str)
    if isinstance(value, list):
        return ("array", tuple(map(_signature, value)))
    if value is None:
        return None
    if isinstance(value, Buffer):
        return ("buffer", tuple(value.data.shape), str(value.data.dtype))
    return (np.shape(value), np.asarray(value).dtype.str)


def _shape_text(signature: Any) -> Any:
    if signature is None or signature[0] in ("array", "buffer"):
        return signature[0] if signature else None
    return list(signature[0])


def _bounds_loops(program: Program) -> bool:
    """Whether jit.load(..., max_loop_iterations=N) bounds a while loop of the program."""
    return loop_limit(program) is not None and any(
        op.type == "while" for block in program.blocks for op in block.ops)


def _name(program: Program) -> str:
    return getattr(program, "name", None) or "a program"
