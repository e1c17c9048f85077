"""nn.SpectralNorm (Paddle's signature): a weight divided by its largest singular value, which
power_iters power iterations estimate from the layer's fixed vectors weight_u and weight_v."""
from __future__ import annotations

from typing import Any, Sequence

from ...runtime import ops
from ..initializer import Normal
from ..layer import Layer


class SpectralNorm(Layer):
    """forward(weight) = weight / sigma, where weight (shape weight_shape) is seen as a matrix
    [weight_shape[dim], rest] and sigma = u^T W v after power_iters steps of
    v = W^T u / (|W^T u| + eps), u = W v / (|W v| + eps) starting from weight_u. As in Paddle,
    weight_u / weight_v are not updated and the gradient treats u and v as constants."""

    def __init__(self, weight_shape: Sequence[int], dim: int = 0, power_iters: int = 1,
                 epsilon: float = 1e-12, dtype: str = "float32") -> None:
        super().__init__()
        self._weight_shape = [int(d) for d in weight_shape]
        rank = len(self._weight_shape)
        if rank < 1:
            raise ValueError(f"SpectralNorm: weight_shape must have at least one dim, got "
                             f"{list(weight_shape)}")
        if not -rank <= dim < rank:
            raise ValueError(f"SpectralNorm: dim {dim} is out of range for weight_shape "
                             f"{self._weight_shape}")
        if int(power_iters) < 0:
            raise ValueError(f"SpectralNorm: power_iters must be >= 0, got {power_iters}")
        self._dim = dim % rank
        self._power_iters = int(power_iters)
        self._epsilon = float(epsilon)
        self._dtype = dtype
        h = self._weight_shape[self._dim]
        w = 1
        for i, d in enumerate(self._weight_shape):
            if i != self._dim:
                w *= d
        self.weight_u = self.create_parameter([h], dtype=dtype, default_initializer=Normal(0.0, 1.0))
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter([w], dtype=dtype, default_initializer=Normal(0.0, 1.0))
        self.weight_v.stop_gradient = True

    def forward(self, weight: Any) -> Any:
        perm = [self._dim] + [i for i in range(len(self._weight_shape)) if i != self._dim]
        mat = ops.transpose(weight, perm) if self._dim != 0 else weight
        mat = ops.reshape(mat, [self._weight_shape[self._dim], -1])
        frozen = mat.detach()
        u, v = self.weight_u, self.weight_v
        for _ in range(self._power_iters):
            v = ops.matmul(u, frozen)          # W^T u
            v = v / (ops.sqrt(ops.sum(v * v)) + self._epsilon)
            u = ops.matmul(frozen, v)
            u = u / (ops.sqrt(ops.sum(u * u)) + self._epsilon)
        sigma = ops.sum(u.detach() * ops.matmul(mat, v.detach()))
        return weight / sigma

    def extra_repr(self) -> str:
        return (f"weight_shape={self._weight_shape}, dim={self._dim}, "
                f"power_iters={self._power_iters}, epsilon={self._epsilon}")
