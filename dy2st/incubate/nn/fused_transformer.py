"""Paddle's fused transformer layers (FusedMultiHeadAttention, FusedFeedForward,
FusedTransformerEncoderLayer, FusedBiasDropoutResidualLayerNorm, FusedDropoutAdd), with
Paddle's parameter names and shapes, computed by the ops of their unfused formulas."""
from __future__ import annotations

import math
from typing import Any, Optional

from ...nn import functional as F
from ...nn.initializer import Constant
from ...nn.layer import Layer
from ...runtime import ops
from ...runtime.dtype import dtype_name

__all__ = ["FusedMultiHeadAttention", "FusedFeedForward", "FusedTransformerEncoderLayer",
           "FusedBiasDropoutResidualLayerNorm", "FusedDropoutAdd"]


def _layer_norm(x: Any, scale: Any, bias: Any, epsilon: float) -> Any:
    return F.layer_norm(x, [x.shape[-1]], weight=scale, bias=bias, epsilon=epsilon)


def _mask(mask: Any, dtype: Any) -> Any:
    """Paddle's attention mask forms: bool / int (0 = masked) become -1e9 additive floats."""
    if mask is None:
        return None
    if dtype_name(mask.dtype) == "bool" or "int" in dtype_name(mask.dtype):
        keep = ops.cast(mask, dtype)
        return (keep - 1.0) * 1e9
    return mask


class FusedMultiHeadAttention(Layer):
    """out = residual + dropout(linear(attention(qkv(ln?(x))))), then post layer norm unless
    normalize_before (pre layer norm). qkv_weight is [3, num_heads, head_dim, embed_dim]."""

    def __init__(self, embed_dim: int, num_heads: int, dropout_rate: float = 0.5,
                 attn_dropout_rate: float = 0.5, dropout_seed: Optional[int] = None,
                 attn_dropout_seed: Optional[int] = None, kdim: Optional[int] = None,
                 vdim: Optional[int] = None, normalize_before: bool = False,
                 need_weights: bool = False, qkv_weight_attr: Any = None,
                 qkv_bias_attr: Any = None, linear_weight_attr: Any = None,
                 linear_bias_attr: Any = None, pre_ln_scale_attr: Any = None,
                 pre_ln_bias_attr: Any = None, ln_scale_attr: Any = None,
                 ln_bias_attr: Any = None, epsilon: float = 1e-5, nranks: int = 1,
                 ring_id: int = -1, name: Optional[str] = None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"FusedMultiHeadAttention: embed_dim and num_heads must be > 0, "
                             f"got {embed_dim}, {num_heads}")
        if embed_dim % num_heads:
            raise ValueError("embed_dim must be divisible by num_heads")
        if need_weights:
            raise ValueError("FusedMultiHeadAttention: only need_weights=False is supported "
                             "(as in Paddle)")
        if nranks != 1:
            raise ValueError("FusedMultiHeadAttention: tensor model parallelism (nranks > 1) "
                             "needs several devices")
        self.normalize_before, self._epsilon = normalize_before, epsilon
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.kdim, self.vdim, self.need_weights = kdim, vdim, need_weights
        self.qkv_weight = self.create_parameter([3, num_heads, self.head_dim, embed_dim],
                                                attr=qkv_weight_attr)
        self.qkv_bias = self.create_parameter([3, num_heads, self.head_dim], attr=qkv_bias_attr,
                                              is_bias=True)
        self.linear_weight = self.create_parameter([embed_dim, embed_dim],
                                                   attr=linear_weight_attr)
        self.linear_bias = self.create_parameter([embed_dim], attr=linear_bias_attr,
                                                 is_bias=True)
        if normalize_before:
            self.pre_ln_scale = self.create_parameter([embed_dim], attr=pre_ln_scale_attr,
                                                      default_initializer=Constant(1.0))
            self.pre_ln_bias = self.create_parameter([embed_dim], attr=pre_ln_bias_attr,
                                                     is_bias=True)
            self.ln_scale = self.ln_bias = None
        else:
            self.pre_ln_scale = self.pre_ln_bias = None
            self.ln_scale = self.create_parameter([embed_dim], attr=ln_scale_attr,
                                                  default_initializer=Constant(1.0))
            self.ln_bias = self.create_parameter([embed_dim], attr=ln_bias_attr, is_bias=True)
        self.dropout_rate, self.attn_dropout_rate = dropout_rate, attn_dropout_rate
        self.dropout_seed, self.attn_dropout_seed = dropout_seed, attn_dropout_seed
        self.name = name

    def forward(self, query: Any, key: Any = None, value: Any = None, attn_mask: Any = None,
                cache: Any = None) -> Any:
        if cache is not None:
            raise ValueError("FusedMultiHeadAttention: cache is not supported (as in Paddle)")
        x = query
        residual = x
        if self.normalize_before:
            x = _layer_norm(x, self.pre_ln_scale, self.pre_ln_bias, self._epsilon)
        b, s = x.shape[0], x.shape[1]
        h, d = self.num_heads, self.head_dim
        w = ops.reshape(self.qkv_weight, [3 * h * d, self.embed_dim])
        qkv = ops.matmul(x, w, transpose_y=True) + ops.reshape(self.qkv_bias, [3 * h * d])
        qkv = ops.transpose(ops.reshape(qkv, [b, s, 3, h, d]), [2, 0, 3, 1, 4])
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = ops.matmul(q * (1.0 / math.sqrt(d)), k, transpose_y=True)
        mask = _mask(attn_mask, scores.dtype)
        if mask is not None:
            scores = scores + mask
        weights = F.dropout(F.softmax(scores, axis=-1), self.attn_dropout_rate,
                            training=self.training)
        out = ops.reshape(ops.transpose(ops.matmul(weights, v), [0, 2, 1, 3]),
                          [b, s, self.embed_dim])
        out = ops.matmul(out, self.linear_weight) + self.linear_bias
        out = residual + F.dropout(out, self.dropout_rate, training=self.training)
        if not self.normalize_before:
            out = _layer_norm(out, self.ln_scale, self.ln_bias, self._epsilon)
        return out

    def extra_repr(self) -> str:
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
                f"dropout_rate={self.dropout_rate}, attn_dropout_rate={self.attn_dropout_rate}, "
                f"epsilon={self._epsilon}, normalize_before={self.normalize_before}")


class FusedFeedForward(Layer):
    """out = residual + dropout(linear2(act_dropout(act(linear1(ln1?(x)))))), then ln2
    unless normalize_before."""

    def __init__(self, d_model: int, dim_feedforward: int, dropout_rate: float = 0.1,
                 epsilon: float = 1e-05, activation: str = "relu",
                 act_dropout_rate: Optional[float] = None, normalize_before: bool = False,
                 linear1_weight_attr: Any = None, linear1_bias_attr: Any = None,
                 linear2_weight_attr: Any = None, linear2_bias_attr: Any = None,
                 ln1_scale_attr: Any = None, ln1_bias_attr: Any = None,
                 ln2_scale_attr: Any = None, ln2_bias_attr: Any = None, nranks: int = 1,
                 ring_id: int = -1, name: Optional[str] = None) -> None:
        super().__init__()
        if d_model <= 0 or dim_feedforward <= 0:
            raise ValueError(f"FusedFeedForward: d_model and dim_feedforward must be > 0, got "
                             f"{d_model}, {dim_feedforward}")
        if nranks != 1:
            raise ValueError("FusedFeedForward: tensor model parallelism (nranks > 1) needs "
                             "several devices")
        if getattr(F, activation, None) is None:
            raise ValueError(f"FusedFeedForward: unknown activation {activation!r}")
        self._d_model, self._dim_feedforward = d_model, dim_feedforward
        self._dropout_rate = dropout_rate
        self._act_dropout_rate = dropout_rate if act_dropout_rate is None else act_dropout_rate
        self._act_method, self._normalize_before, self._epsilon = activation, normalize_before, \
            epsilon
        self._linear1_weight = self.create_parameter([d_model, dim_feedforward],
                                                     attr=linear1_weight_attr)
        self._linear1_bias = self.create_parameter([dim_feedforward], attr=linear1_bias_attr,
                                                   is_bias=True)
        self._linear2_weight = self.create_parameter([dim_feedforward, d_model],
                                                     attr=linear2_weight_attr)
        self._linear2_bias = self.create_parameter([d_model], attr=linear2_bias_attr,
                                                   is_bias=True)
        if normalize_before:
            self._ln1_scale = self.create_parameter([d_model], attr=ln1_scale_attr,
                                                    default_initializer=Constant(1.0))
            self._ln1_bias = self.create_parameter([d_model], attr=ln1_bias_attr, is_bias=True)
            self._ln2_scale = self._ln2_bias = None
        else:
            self._ln1_scale = self._ln1_bias = None
            self._ln2_scale = self.create_parameter([d_model], attr=ln2_scale_attr,
                                                    default_initializer=Constant(1.0))
            self._ln2_bias = self.create_parameter([d_model], attr=ln2_bias_attr, is_bias=True)
        self.name = name

    def forward(self, src: Any, cache: Any = None) -> Any:
        residual = src
        x = src
        if self._normalize_before:
            x = _layer_norm(x, self._ln1_scale, self._ln1_bias, self._epsilon)
        h = getattr(F, self._act_method)(F.linear(x, self._linear1_weight, self._linear1_bias))
        h = F.dropout(h, self._act_dropout_rate, training=self.training)
        out = F.linear(h, self._linear2_weight, self._linear2_bias)
        out = residual + F.dropout(out, self._dropout_rate, training=self.training)
        if not self._normalize_before:
            out = _layer_norm(out, self._ln2_scale, self._ln2_bias, self._epsilon)
        return out


class FusedTransformerEncoderLayer(Layer):
    """fused_attn (FusedMultiHeadAttention) then ffn (FusedFeedForward)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int,
                 dropout_rate: float = 0.1, activation: str = "relu",
                 attn_dropout_rate: Optional[float] = None,
                 act_dropout_rate: Optional[float] = None, normalize_before: bool = False,
                 weight_attr: Any = None, bias_attr: Any = None) -> None:
        super().__init__()
        attn_dropout_rate = dropout_rate if attn_dropout_rate is None else attn_dropout_rate
        act_dropout_rate = dropout_rate if act_dropout_rate is None else act_dropout_rate
        self.normalize_before = normalize_before
        self.fused_attn = FusedMultiHeadAttention(
            d_model, nhead, dropout_rate=dropout_rate, attn_dropout_rate=attn_dropout_rate,
            normalize_before=normalize_before, qkv_weight_attr=weight_attr,
            qkv_bias_attr=bias_attr, linear_weight_attr=weight_attr,
            linear_bias_attr=bias_attr)
        self.ffn = FusedFeedForward(
            d_model, dim_feedforward, dropout_rate=dropout_rate, activation=activation,
            act_dropout_rate=act_dropout_rate, normalize_before=normalize_before,
            linear1_weight_attr=weight_attr, linear1_bias_attr=bias_attr,
            linear2_weight_attr=weight_attr, linear2_bias_attr=bias_attr)

    def forward(self, src: Any, src_mask: Any = None, cache: Any = None) -> Any:
        return self.ffn(self.fused_attn(src, attn_mask=src_mask, cache=cache))


class FusedBiasDropoutResidualLayerNorm(Layer):
    """layer_norm(residual + dropout(x + linear_bias))."""

    def __init__(self, embed_dim: int, dropout_rate: float = 0.5, weight_attr: Any = None,
                 bias_attr: Any = None, epsilon: float = 1e-5,
                 name: Optional[str] = None) -> None:
        super().__init__()
        if embed_dim <= 0:
            raise ValueError(f"embed_dim must be > 0, got {embed_dim}")
        self.embed_dim, self.dropout_rate, self._epsilon = embed_dim, dropout_rate, epsilon
        self.linear_bias = self.create_parameter([embed_dim], attr=bias_attr, is_bias=True)
        self.ln_scale = self.create_parameter([embed_dim], attr=weight_attr,
                                              default_initializer=Constant(1.0))
        self.ln_bias = self.create_parameter([embed_dim], attr=bias_attr, is_bias=True)
        self.name = name

    def forward(self, x: Any, residual: Any) -> Any:
        out = residual + F.dropout(x + self.linear_bias, self.dropout_rate,
                                   training=self.training)
        return _layer_norm(out, self.ln_scale, self.ln_bias, self._epsilon)


class FusedDropoutAdd(Layer):
    """dropout(x) + y."""

    def __init__(self, p: float = 0.5, mode: str = "upscale_in_train",
                 name: Optional[str] = None) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"p argument should between 0 and 1, got {p}")
        if mode not in ("downscale_in_infer", "upscale_in_train"):
            raise ValueError(f"mode argument should be 'downscale_in_infer' or "
                             f"'upscale_in_train', got {mode!r}")
        self.p, self.mode, self.name = p, mode, name

    def forward(self, x: Any, y: Any) -> Any:
        return F.dropout(x, self.p, training=self.training, mode=self.mode) + y
