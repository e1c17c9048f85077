"""The static API's `nn` namespace: control flow (cond, while_loop, case, switch_case) and the
fluid-style layer functions (fc here; conv2d, batch_norm, embedding, ... in nn_layers)."""
from __future__ import annotations

from typing import Any, Optional

from ..runtime.control_flow import cond, while_loop
from ..runtime.lazy import lazy_getattr as _lazy_getattr
from .control import case, switch_case

_LAYERS = ("conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose", "batch_norm",
           "embedding", "sparse_embedding", "layer_norm", "group_norm", "instance_norm",
           "prelu", "bilinear_tensor_product", "spectral_norm", "deform_conv2d")
__all__ = ["cond", "while_loop", "fc", "case", "switch_case", "static_pylayer", "py_func",
           *_LAYERS]
# the layer functions build dy2st.nn layers: loaded on first use (static loads with jit)
__getattr__ = _lazy_getattr(__name__, {**{n: "nn_layers" for n in _LAYERS},
                                       "static_pylayer": "pylayer", "py_func": "host_function"},
                            globals(),
                            same_name=True, root="dy2st.static")


def fc(x: Any, size: int, num_flatten_dims: int = 1, weight_attr: Any = None,
       bias_attr: Any = None, activation: Optional[str] = None, name: Optional[str] = None) -> Any:
    """A fully connected layer that creates its own parameters: the dims of x from
    `num_flatten_dims` on are flattened into one, multiplied by a new [that size, size] weight
    (Xavier-uniform), plus a new [size] bias (zeros; none when bias_attr is False), then
    `activation` (a name in nn.functional, e.g. 'relu'). A list of inputs gets one weight each;
    their products are summed."""
    # here, not at the top: paddle.static.nn's namespace holds Paddle's names only
    from .. import nn
    from ..nn import functional as F  # (as above)
    from ..runtime import ops  # (as above)
    from ..utils.framework import create_parameter  # (as above)
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise ValueError(f"fc: size must be a positive int, got {size!r}")
    inputs = list(x) if isinstance(x, (list, tuple)) else [x]
    if not inputs:
        raise ValueError("fc: no input")
    total = None
    for xi in inputs:
        rank = len(xi.shape)
        if not 1 <= num_flatten_dims < max(rank, 2):
            raise ValueError(f"fc: num_flatten_dims={num_flatten_dims} does not fit an input "
                             f"of rank {rank}")
        tail = list(xi.shape[num_flatten_dims:])
        if any(not isinstance(d, int) or d < 0 for d in tail):
            raise ValueError(f"fc: the dims of x from num_flatten_dims={num_flatten_dims} on "
                             f"must be known, got {list(xi.shape)}")
        in_features = 1
        for d in tail:
            in_features *= d
        weight = create_parameter([in_features, size], xi.dtype, attr=weight_attr,
                                  default_initializer=nn.initializer.XavierUniform())
        flat = xi if rank == num_flatten_dims + 1 else ops.flatten(xi, num_flatten_dims, -1)
        product = ops.matmul(flat, weight)
        total = product if total is None else total + product
    if bias_attr is not False:
        bias = create_parameter([size], total.dtype, attr=bias_attr, is_bias=True)
        total = total + bias
    if activation is not None:
        act = getattr(F, activation, None)
        if act is None:
            raise ValueError(f"fc: unknown activation {activation!r}")
        total = act(total)
    return total
