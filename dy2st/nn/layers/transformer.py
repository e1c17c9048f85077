"""Attention layers with Paddle 3.x's names and defaults: MultiHeadAttention (with its Cache and
StaticCache for incremental decoding), TransformerEncoderLayer/Encoder,
TransformerDecoderLayer/Decoder and Transformer. All are compositions of differentiable ops."""
from __future__ import annotations

import collections
import copy
from typing import Any, List, Optional

from ...runtime import ops
from ...runtime.dtype import dtype_name
from .. import functional as F
from ..functional.attention import attention_mask_to_bias
from ..layer import Layer
from .common import Dropout, Linear
from .container import LayerList
from .norm import LayerNorm

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _attr_list(attr: Any, n: int) -> List[Any]:
    """Paddle lets weight_attr / bias_attr be one attribute for all sublayers or a list of n."""
    if isinstance(attr, (list, tuple)):
        if len(attr) == 1:
            return [attr[0]] * n
        if len(attr) != n:
            raise ValueError(f"expected 1 or {n} parameter attributes, got {len(attr)}")
        return list(attr)
    return [attr] * n


def _activation(name: str) -> Any:
    fn = getattr(F, name, None)
    if not callable(fn):
        raise ValueError(f"unknown activation {name!r}: it must name a function of nn.functional")
    return fn


class MultiHeadAttention(Layer):
    """Attention of query over key/value with num_heads heads of embed_dim // num_heads.

    forward(query, key=None, value=None, attn_mask=None, cache=None) returns out, plus the
    attention weights when need_weights, plus the updated cache when one is given."""

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, kdim: Optional[int] = None,
                 vdim: Optional[int] = None, need_weights: bool = False, weight_attr: Any = None,
                 bias_attr: Any = None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"MultiHeadAttention: embed_dim and num_heads must be positive, got "
                             f"{embed_dim} and {num_heads}")
        if embed_dim % num_heads:
            raise ValueError(f"MultiHeadAttention: embed_dim ({embed_dim}) must be divisible by "
                             f"num_heads ({num_heads})")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim, self.vdim = kdim or embed_dim, vdim or embed_dim
        self.head_dim = embed_dim // num_heads
        self.need_weights = need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x: Any) -> Any:
        """[batch, seq, embed] -> [batch, heads, seq, head_dim]."""
        return ops.transpose(ops.reshape(x, [0, 0, self.num_heads, self.head_dim]), [0, 2, 1, 3])

    def compute_kv(self, key: Any, value: Any) -> Any:
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key: Any, value: Any = None, type: Any = None) -> Any:
        """StaticCache: the projected key/value (for cross attention). Cache with value None:
        empty [batch, heads, 0, head_dim] keys and values that grow at every step; with a value:
        Cache(key, value) as given."""
        type = type or MultiHeadAttention.Cache
        if type is MultiHeadAttention.StaticCache:
            return MultiHeadAttention.StaticCache(*self.compute_kv(key, key if value is None else value))
        if value is None:
            batch = key.shape[0]
            empty = ops.full([batch, self.num_heads, 0, self.head_dim], 0, dtype_name(key.dtype))
            return MultiHeadAttention.Cache(empty, empty)
        return MultiHeadAttention.Cache(key, value)

    def forward(self, query: Any, key: Any = None, value: Any = None, attn_mask: Any = None,
                cache: Any = None) -> Any:
        key = query if key is None else key
        value = query if value is None else value
        q = self._heads(self.q_proj(query))
        if isinstance(cache, MultiHeadAttention.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, MultiHeadAttention.Cache):
            k = ops.concat([cache.k, k], axis=2)
            v = ops.concat([cache.v, v], axis=2)
            cache = MultiHeadAttention.Cache(k, v)
        elif cache is not None and not isinstance(cache, MultiHeadAttention.StaticCache):
            raise TypeError(f"MultiHeadAttention: cache must be a MultiHeadAttention.Cache or "
                            f"StaticCache, got {type(cache).__name__}")
        scores = ops.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            scores = scores + attention_mask_to_bias(attn_mask, dtype_name(scores.dtype))
        weights = F.softmax(scores)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training, mode="upscale_in_train")
        out = ops.transpose(ops.matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(ops.reshape(out, [0, 0, self.embed_dim]))
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


class TransformerEncoderLayer(Layer):
    """Self attention then a feed-forward block, each with a residual connection and layer norm
    (before the block when normalize_before, after it otherwise)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: Optional[float] = None,
                 act_dropout: Optional[float] = None, normalize_before: bool = False,
                 weight_attr: Any = None, bias_attr: Any = None, layer_norm_eps: float = 1e-5) -> None:
        super().__init__()
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                            activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
                            normalize_before=normalize_before, weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weights, biases = _attr_list(weight_attr, 2), _attr_list(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weights[0],
                                            bias_attr=biases[0])
        self.linear1 = Linear(d_model, dim_feedforward, weights[1], bias_attr=biases[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weights[1], bias_attr=biases[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation(activation)

    def _block(self, x: Any, norm: Layer, block: Any, drop: Layer) -> Any:
        """x + drop(block(x)) with norm before the block or after the sum."""
        residual = x
        if self.normalize_before:
            x = norm(x)
        out = block(x)
        extra = None
        if isinstance(out, tuple):
            out, extra = out
        x = residual + drop(out)
        if not self.normalize_before:
            x = norm(x)
        return x, extra

    def _feed_forward(self, x: Any) -> Any:
        return self.linear2(self.dropout(self.activation(self.linear1(x))))

    def forward(self, src: Any, src_mask: Any = None, cache: Any = None) -> Any:
        src_mask = attention_mask_to_bias(src_mask, dtype_name(src.dtype))
        src, new_cache = self._block(src, self.norm1, lambda x: self.self_attn(x, x, x, src_mask, cache),
                                     self.dropout1)
        src, _ = self._block(src, self.norm2, self._feed_forward, self.dropout2)
        return src if cache is None else (src, new_cache)

    def gen_cache(self, src: Any) -> Any:
        return self.self_attn.gen_cache(src, type=MultiHeadAttention.Cache)


class TransformerDecoderLayer(TransformerEncoderLayer):
    """Self attention, cross attention over memory, then a feed-forward block."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: Optional[float] = None,
                 act_dropout: Optional[float] = None, normalize_before: bool = False,
                 weight_attr: Any = None, bias_attr: Any = None, layer_norm_eps: float = 1e-5) -> None:
        weights, biases = _attr_list(weight_attr, 3), _attr_list(bias_attr, 3)
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout, act_dropout,
                         normalize_before, [weights[0], weights[2]], [biases[0], biases[2]], layer_norm_eps)
        self._config.update(weight_attr=weight_attr, bias_attr=bias_attr)
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=dropout if attn_dropout is None
                                             else attn_dropout, weight_attr=weights[1], bias_attr=biases[1])
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")

    def forward(self, tgt: Any, memory: Any, tgt_mask: Any = None, memory_mask: Any = None,
                cache: Any = None) -> Any:
        tgt_mask = attention_mask_to_bias(tgt_mask, dtype_name(tgt.dtype))
        memory_mask = attention_mask_to_bias(memory_mask, dtype_name(tgt.dtype))
        self_cache, cross_cache = (None, None) if cache is None else cache
        tgt, new_self = self._block(tgt, self.norm1,
                                    lambda x: self.self_attn(x, x, x, tgt_mask, self_cache), self.dropout1)
        tgt, _ = self._block(tgt, self.norm2,
                             lambda x: self.cross_attn(x, memory, memory, memory_mask, cross_cache), self.dropout2)
        tgt, _ = self._block(tgt, self.norm3, self._feed_forward, self.dropout3)
        return tgt if cache is None else (tgt, (new_self, cross_cache))

    def gen_cache(self, memory: Any) -> Any:
        return (self.self_attn.gen_cache(memory, type=MultiHeadAttention.Cache),
                self.cross_attn.gen_cache(memory, memory, type=MultiHeadAttention.StaticCache))


def _clones(layer: Layer, num_layers: int) -> LayerList:
    """The given layer first, then num_layers - 1 fresh layers built from its configuration."""
    return LayerList([layer if i == 0 else type(layer)(**copy.copy(layer._config)) for i in range(num_layers)])


class TransformerEncoder(Layer):
    """num_layers encoder layers (the given one and fresh copies of its configuration), then norm."""

    def __init__(self, encoder_layer: Layer, num_layers: int, norm: Optional[Layer] = None) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src: Any, src_mask: Any = None, cache: Any = None) -> Any:
        src_mask = attention_mask_to_bias(src_mask, dtype_name(src.dtype))
        out, new_caches = src, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, src_mask=src_mask)
            else:
                out, c = layer(out, src_mask=src_mask, cache=cache[i])
                new_caches.append(c)
        if self.norm is not None:
            out = self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, src: Any) -> List[Any]:
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoder(Layer):
    """num_layers decoder layers over a shared memory, then norm."""

    def __init__(self, decoder_layer: Layer, num_layers: int, norm: Optional[Layer] = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt: Any, memory: Any, tgt_mask: Any = None, memory_mask: Any = None,
                cache: Any = None) -> Any:
        tgt_mask = attention_mask_to_bias(tgt_mask, dtype_name(tgt.dtype))
        memory_mask = attention_mask_to_bias(memory_mask, dtype_name(tgt.dtype))
        out, new_caches = tgt, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)
            else:
                out, c = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=cache[i])
                new_caches.append(c)
        if self.norm is not None:
            out = self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, memory: Any, do_zip: bool = False) -> List[Any]:
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _encoder_decoder_attrs(attr: Any, what: str) -> Any:
    """Transformer's attribute lists: 1 for everything; 2 (attention, feed-forward), the decoder's
    cross attention taking the attention one; 3 (self attention, cross attention, feed-forward)."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]], [attr[0]]
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[1]]
    if len(attr) == 3:
        return [attr[0], attr[2]], list(attr)
    raise ValueError(f"Transformer: {what} must be one attribute or a list of 1, 2 or 3, got {len(attr)}")


class Transformer(Layer):
    """An encoder-decoder Transformer; forward(src, tgt, src_mask=None, tgt_mask=None,
    memory_mask=None) returns the decoder output [batch, tgt_len, d_model]."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: Optional[float] = None,
                 act_dropout: Optional[float] = None, normalize_before: bool = False,
                 weight_attr: Any = None, bias_attr: Any = None, custom_encoder: Optional[Layer] = None,
                 custom_decoder: Optional[Layer] = None) -> None:
        super().__init__()
        enc_w, dec_w = _encoder_decoder_attrs(weight_attr, "weight_attr")
        enc_b, dec_b = _encoder_decoder_attrs(bias_attr, "bias_attr")
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, enc_w, enc_b)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, dec_w, dec_b)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src: Any, tgt: Any, src_mask: Any = None, tgt_mask: Any = None,
                memory_mask: Any = None) -> Any:
        memory = self.encoder(src, src_mask=src_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length: Any) -> Any:
        """[length, length] float mask: 0 on and below the diagonal, -inf above it."""
        return ops.triu(ops.full([length, length], float("-inf"), "float32"), 1)

