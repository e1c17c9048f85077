"""Attention functions of nn.functional: scaled_dot_product_attention (Paddle's [batch, seq_len,
num_heads, head_dim] layout), made of differentiable ops."""
from __future__ import annotations

import math
from typing import Any, Optional

from ...runtime import ops
from ...runtime.dtype import dtype_name
from ...runtime.ops.operands import as_tensor
from .activation import softmax
from .common import dropout
from .dims import known_dims

__all__ = ["scaled_dot_product_attention", "attention_mask_to_bias"]


def attention_mask_to_bias(mask: Any, dtype: Any) -> Any:
    """An additive attention bias: bool / int masks (1 = attend) become 0 / -1e9, float masks
    are cast to dtype and added as they are (Paddle's _convert_attention_mask)."""
    if mask is None:
        return None
    mask = as_tensor(mask)
    if dtype_name(mask.dtype) == dtype_name(dtype):
        return mask
    if dtype_name(mask.dtype) == "bool" or "int" in dtype_name(mask.dtype):
        return (ops.cast(mask, dtype) - 1.0) * 1e9
    return ops.cast(mask, dtype)


def scaled_dot_product_attention(query: Any, key: Any, value: Any, attn_mask: Any = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, training: bool = True,
                                 name: Optional[str] = None) -> Any:
    """softmax(q k^T / sqrt(head_dim) + mask) v over inputs [batch, seq_len, num_heads, head_dim].

    A bool attn_mask keeps the positions that are True (the others get -inf); a float one is
    added to the scores. is_causal hides the positions after each query's own."""
    q, k, v = as_tensor(query), as_tensor(key), as_tensor(value)
    dims = known_dims(q)
    if len(dims) != 4 or len(known_dims(k)) != 4 or len(known_dims(v)) != 4:
        raise ValueError(f"scaled_dot_product_attention: query, key and value must be 4-D "
                         f"[batch, seq_len, num_heads, head_dim], got {dims}, {known_dims(k)}, {known_dims(v)}")
    head_dim = dims[-1]
    if head_dim < 0:
        raise ValueError("scaled_dot_product_attention: head_dim (the last dim of query) must be known")
    perm = [0, 2, 1, 3]
    qh, kh, vh = ops.transpose(q, perm), ops.transpose(k, perm), ops.transpose(v, perm)
    scores = ops.matmul(qh * (1.0 / math.sqrt(head_dim)), kh, transpose_y=True)
    if attn_mask is not None:
        attn_mask = as_tensor(attn_mask)
        if dtype_name(attn_mask.dtype) == "bool":
            attn_mask = ops.where(attn_mask, ops.zeros([], dtype_name(scores.dtype)),
                                  ops.full([], float("-inf"), dtype_name(scores.dtype)))
        scores = scores + ops.cast(attn_mask, dtype_name(scores.dtype))
    if is_causal:
        lq, lk = scores.shape[-2], scores.shape[-1]
        rows = ops.unsqueeze(ops.arange(0, lq, 1, dtype="int64"), -1)
        cols = ops.unsqueeze(ops.arange(0, lk, 1, dtype="int64"), 0)
        scores = ops.where(cols <= rows, scores, ops.full([], float("-inf"), dtype_name(scores.dtype)))
    weights = softmax(scores, axis=-1)
    if dropout_p:
        weights = dropout(weights, dropout_p, training=training, mode="upscale_in_train")
    return ops.transpose(ops.matmul(weights, vh), perm)
