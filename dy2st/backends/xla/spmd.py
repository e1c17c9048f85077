"""One computation run by every process of a data-parallel job (SPMD): each process passes its
own arrays, jax stacks them into global arrays over a mesh of one device per process, and the
collectives inside (`lax.psum` over AXIS) reach across processes through JAX's runtime."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from .device import current_device
from .loader import jax_modules

# the mesh axis the collective lowerings reduce over (ops_collective.py)
AXIS = "dp"

_meshes: Dict[Tuple[Any, ...], Any] = {}


def process_mesh(ranks: Optional[Sequence[int]] = None) -> Any:
    """A 1-d mesh with the device each process computes on: every process in process order, or
    those of `ranks` in that order (a group: only its processes run what uses the mesh)."""
    jax = jax_modules().jax
    local = current_device()
    members = tuple(range(jax.process_count())) if ranks is None else tuple(ranks)
    key = (local.platform, local.id, members)
    mesh = _meshes.get(key)
    if mesh is None:
        first: Dict[int, Any] = {}
        for d in jax.devices(local.platform):
            first.setdefault(d.process_index, d)
        first[jax.process_index()] = local
        devices = [first[p] for p in members]
        mesh = _meshes[key] = jax.sharding.Mesh(np.array(devices), (AXIS,))
    return mesh


class OverProcesses:
    """`fn` (traced with collectives over AXIS) as one SPMD computation of the job. Called with
    this process's arrays, it gives this process's results; `lower` is the ahead-of-time
    compile of jax.jit, on the same arguments. `ranks`: only the processes of a group take
    part (every process by default)."""

    def __init__(self, fn: Callable, ranks: Optional[Sequence[int]] = None) -> None:
        m = jax_modules()
        jax = m.jax
        self.mesh = process_mesh(ranks)
        spec = jax.sharding.PartitionSpec(AXIS)
        self.sharding = jax.sharding.NamedSharding(self.mesh, spec)
        self.device = current_device()
        self.world = self.mesh.devices.size

        def body(*args: Any) -> Any:
            # each process's block is its own arrays with a leading axis of 1
            local = jax.tree.map(lambda a: a[0], args)
            return jax.tree.map(lambda a: m.jnp.expand_dims(a, 0), fn(*local))

        self.jitted = jax.jit(_shard_map(jax, body, self.mesh, spec))

    def _global(self, a: Any) -> Any:
        jax = jax_modules().jax
        if isinstance(a, jax.Array):
            block = a.reshape((1,) + a.shape)
            block = jax.device_put(block, self.device)
        else:
            a = np.asarray(a)
            block = jax.device_put(a.reshape((1,) + a.shape), self.device)
        return jax.make_array_from_single_device_arrays(
            (self.world,) + tuple(block.shape[1:]), self.sharding, [block])

    def _local(self, a: Any) -> Any:
        return a.addressable_shards[0].data[0]

    def _globals(self, args: Tuple[Any, ...]) -> Any:
        return jax_modules().jax.tree.map(self._global, args)

    def lower(self, *args: Any) -> Any:
        return self.jitted.lower(*self._globals(args))

    def __call__(self, *args: Any) -> Any:
        out = self.jitted(*self._globals(args))
        return jax_modules().jax.tree.map(self._local, out)


def _shard_map(jax: Any, body: Any, mesh: Any, spec: Any) -> Any:
    """body mapped over the mesh's processes, its replication left unchecked."""
    public = getattr(jax, "shard_map", None)
    if public is not None:
        return public(body, mesh=mesh, in_specs=spec, out_specs=spec, check_vma=False)
    # jax 0.4.30 (the newest for Python 3.9) has it in jax.experimental, the check as check_rep
    from jax.experimental.shard_map import shard_map
    return shard_map(body, mesh=mesh, in_specs=spec, out_specs=spec, check_rep=False)
