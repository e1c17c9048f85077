"""The parameters WeightNormParamAttr asks for: g and v, created with the layer, and the weight
g * v / ||v|| that the program being built computes from them."""
from __future__ import annotations

from typing import Any, List

import numpy as np

from ..runtime import ops, state
from ..runtime.tensor import Parameter
from .param_attr import WeightNormParamAttr


def _other_axes(rank: int, dim: Any) -> List[int]:
    return [a for a in range(rank) if dim is None or a != dim % rank]


def weight_norm_parameter(attr: WeightNormParamAttr, initial: np.ndarray, name: str) -> Any:
    """Parameters `<name>_g` and `<name>_v` (v starts at the initializer's value, g at its
    norm) and the weight computed from them in the program being built."""
    if not state.build_state.blocks:
        raise RuntimeError("WeightNormParamAttr is a static-graph attribute (as in Paddle): "
                           "create the layer while a static program is built "
                           "(paddle.enable_static() or static.program_guard), or use "
                           "compute g * v / ||v|| in forward in dynamic mode")
    rank = initial.ndim
    dim = attr.dim
    if dim is not None and not -rank <= dim < rank:
        raise ValueError(f"WeightNormParamAttr: dim {dim} is out of range for a parameter of "
                         f"rank {rank}")
    axes = tuple(_other_axes(rank, dim))
    norm = np.sqrt(np.sum(np.square(initial.astype(np.float64)), axis=axes, keepdims=True))
    g_value = norm.reshape(-1) if dim is not None else norm.reshape(1)
    v = Parameter(initial, name=f"{name}_v", trainable=attr.trainable)
    g = Parameter(g_value.astype(initial.dtype), name=f"{name}_g", trainable=attr.trainable)
    v_norm = ops.sqrt(ops.sum(v * v, axis=list(axes), keepdim=True))
    shape = [1] * rank
    if dim is not None:
        shape[dim % rank] = -1
    return v * (ops.reshape(g, shape) / v_norm)
