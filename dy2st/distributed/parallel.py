"""`paddle.DataParallel`: one replica of the model per process.

At construction every process takes rank 0's parameters and buffers; after each `backward()` the
gradients are averaged over the processes (eagerly, or inside a to_static train step as a collective
of the compiled program). In a job of one process it only wraps the layer, as Paddle does on one
card."""
from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from ..autograd.backward_hooks import register_after_backward
from ..autograd.mode import is_grad_enabled
from ..autograd.traced import slot_of
from ..nn.layer.layers import Layer
from ..runtime import ops, state
from ..runtime.collective import Ranks, communicator
from ..runtime.errors import ConversionError
from ..runtime.program import Program, Variable
from ..runtime.registry import apply
from ..runtime.tensor import Tensor
from .group import Group, get_rank, get_world_size, init_parallel_env

# the DataParallel layers whose forward ran (with gradients on) since the last backward(): that
# backward averages their gradients. Every process runs the same forwards and backwards, so the
# collectives meet in the same order (a set of all live replicas would not: the garbage
# collector frees old ones at different times in different processes)
_PENDING: List["DataParallel"] = []


class DataParallel(Layer):
    """Wrap `layers` for data-parallel training (paddle.DataParallel). Call
    `paddle.distributed.init_parallel_env()` first; `state_dict()` has the wrapped layer's keys.
    Unused parameters need no flag (`find_unused_parameters` is accepted): a parameter without a
    gradient on some processes is averaged with zeros there, and one without a gradient anywhere
    keeps none."""

    def __init__(self, layers: Layer, strategy: Any = None, comm_buffer_size: int = 25,
                 last_comm_buffer_size: float = 1, find_unused_parameters: bool = False,
                 group: Optional[Group] = None) -> None:
        super().__init__()
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel wraps a paddle.nn.Layer, got {type(layers).__name__}")
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters
        self.grad_need_sync = True
        self._group = group
        self._ranks: Ranks = None          # whose gradients are averaged (None: every process)
        if group is not None and not isinstance(group, Group):
            raise TypeError(f"DataParallel: group must be a paddle.distributed Group "
                            f"(new_group), got {type(group).__name__}")
        if get_world_size() > 1:
            init_parallel_env()
            # every process starts from rank 0's parameters, the group's or not (as Paddle):
            # all of them construct the replica, so the check below comes after
            sync_params_buffers(layers)
            if group is not None and not group.is_member():
                raise ValueError(f"DataParallel: this process (rank {get_rank()}) is not a "
                                 f"member of {group}")
            self._nranks = get_world_size() if group is None else group.nranks
            self._ranks = None if group is None else group.members()
        else:
            self._nranks = 1

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self._layers(*inputs, **kwargs)

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        # marked at every call, not in forward: to_static(DataParallel(net)) replaces forward
        # by its compiled program, and its gradients still need averaging by the next backward
        outputs = super().__call__(*inputs, **kwargs)
        if self._nranks > 1 and self.grad_need_sync and is_grad_enabled() and \
                all(r is not self for r in _PENDING):
            _PENDING.append(self)
        return outputs

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Backward passes inside accumulate local gradients only; the first backward after it
        averages the accumulated gradients."""
        before = self.grad_need_sync
        self.grad_need_sync = False
        try:
            yield
        finally:
            self.grad_need_sync = before

    # Paddle 2.0 made these no-ops (the gradients are averaged by backward itself)
    def scale_loss(self, loss: Any) -> Any:
        return loss

    def apply_collective_grads(self) -> None:
        return None

    # the wrapped layer's state, under its own keys (no "_layers." prefix), as in Paddle
    def state_dict(self, destination: Optional[Dict[str, Any]] = None,
                   include_sublayers: bool = True, structured_name_prefix: str = "",
                   use_hook: bool = True) -> Any:
        return self._layers.state_dict(destination, include_sublayers, structured_name_prefix)

    def set_state_dict(self, state_dict: Dict[str, Any],
                       use_structured_name: bool = True) -> Tuple[List[str], List[str]]:
        return self._layers.set_state_dict(state_dict, use_structured_name)

    set_dict = set_state_dict
    load_dict = set_state_dict

    def _trainable(self) -> List[Tensor]:
        return [p for p in self._layers.parameters() if not p.stop_gradient]


def sync_params_buffers(layer: Layer, src_rank: int = 0) -> None:
    """Give every process rank `src_rank`'s parameters and persistable buffers (one broadcast
    per dtype)."""
    tensors = list({id(t): t for t in layer.state_dict().values()}.values())
    for group in _by_dtype(tensors, lambda t: t._value.dtype).values():
        flat = np.concatenate([t._value.ravel() for t in group])
        flat = communicator().broadcast(flat, src_rank)
        for t, part in zip(group, _split(flat, group)):
            t._value = part.reshape(t._value.shape).astype(t._value.dtype, copy=True)


def _by_dtype(items: List[Any], dtype_of: Any) -> Dict[str, List[Any]]:
    groups: Dict[str, List[Any]] = {}
    for item in items:
        groups.setdefault(np.dtype(dtype_of(item)).str, []).append(item)
    return groups


def _split(flat: np.ndarray, tensors: List[Tensor]) -> List[np.ndarray]:
    bounds = np.cumsum([t._value.size for t in tensors])[:-1]
    return np.split(flat, bounds)


def _average_eager(params: List[Tensor], ranks: Ranks = None) -> None:
    """Average the gradients of `params` over the processes (of the group `ranks`): one
    all-reduce per dtype, whose last entries count the processes that have a gradient for each
    parameter."""
    comm = communicator()
    size = comm.world_size if ranks is None else len(ranks)
    for group in _by_dtype(params, lambda p: p._value.dtype).values():
        dtype = group[0]._value.dtype
        parts = []
        for p in group:
            g = getattr(p, "_grad", None)
            parts.append(g._value.ravel() if g is not None else np.zeros(p._value.size, dtype))
        present = np.array([getattr(p, "_grad", None) is not None for p in group], dtype)
        total = comm.all_reduce(np.concatenate(parts + [present]), "sum", ranks)
        grads, counts = total[:-len(group)], total[-len(group):]
        for p, part, count in zip(group, _split(grads, group), counts):
            if count > 0:
                p._grad = Tensor((part / size).astype(dtype).reshape(p._value.shape))


def _average_traced(program: Program, params: List[Tensor]) -> None:
    """Inside a traced train step: the gradients the step computed go through one all-reduce
    (per dtype) of the program, so the compiled step itself averages them."""
    slots = program.__dict__.get("grad_slots", {})
    traced = []
    for p in params:
        if id(p) in slots:
            g = p.grad
            if isinstance(g, Variable):
                traced.append((p, g))
    for group in _by_dtype(traced, lambda pg: pg[0]._value.dtype).values():
        flats = [ops.reshape(g, [-1]) for _, g in group]
        flat = flats[0] if len(flats) == 1 else ops.concat(flats)
        flat = apply("c_allreduce", [flat], {"op": "avg"})
        sizes = [int(p._value.size) for p, _ in group]
        pieces = [flat] if len(group) == 1 else ops.split(flat, sizes)
        for (p, _), piece in zip(group, pieces):
            program.record_persistable_write(slot_of(program, p),
                                             ops.reshape(piece, list(p._value.shape)))


def _after_backward() -> None:
    program = state.current_program()
    replicas = list(_PENDING)
    _PENDING.clear()
    for replica in replicas:
        params = replica._trainable()
        if program is None:
            _average_eager(params, replica._ranks)
        elif replica._ranks is not None:
            raise ConversionError(
                f"DataParallel(group={replica._group}) inside a compiled train step: only the "
                "world group's gradients can be averaged inside a program; run the backward "
                "eagerly, or use the world group")
        else:
            _average_traced(program, params)


register_after_backward(_after_backward)
