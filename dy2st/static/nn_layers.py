"""Fluid-style layer functions of paddle.static.nn (conv2d, batch_norm, embedding, layer_norm,
...): each call creates its layer's parameters and applies it once, as Paddle's static API does,
built on the dy2st.nn layer of the same computation; `act` names an nn.functional activation."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from .. import nn
from ..nn import functional as F
from ..nn.layers.deform_conv import DeformConv2D
from ..runtime import ops

__all__ = ["conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose", "batch_norm",
           "embedding", "sparse_embedding", "layer_norm", "group_norm", "instance_norm",
           "prelu", "bilinear_tensor_product", "spectral_norm", "deform_conv2d"]


def _act(out: Any, act: Optional[str], who: str) -> Any:
    if act is None:
        return out
    fn = getattr(F, act, None)
    if fn is None:
        raise ValueError(f"{who}: unknown activation {act!r} (a name in paddle.nn.functional)")
    return fn(out)


def _channels(x: Any, data_format: str, who: str) -> int:
    c = x.shape[1] if data_format.startswith("NC") else x.shape[-1]
    if not isinstance(c, int) or c < 0:
        raise ValueError(f"{who}: the channel dim of the input must be known, got shape "
                         f"{list(x.shape)}")
    return c


def _conv_layer(layer_cls: Any, who: str, input: Any, num_filters: int, filter_size: Any,
                stride: Any, padding: Any, dilation: Any, groups: Optional[int],
                param_attr: Any, bias_attr: Any, data_format: str) -> Any:
    """A new convolution layer of `layer_cls` for `input`, from fluid-style arguments."""
    return layer_cls(_channels(input, data_format, who), num_filters, filter_size,
                     stride=stride, padding=padding, dilation=dilation, groups=groups or 1,
                     weight_attr=param_attr, bias_attr=bias_attr, data_format=data_format)


def _conv(layer_cls: Any, who: str, input: Any, num_filters: int, filter_size: Any,
          stride: Any, padding: Any, dilation: Any, groups: Optional[int], param_attr: Any,
          bias_attr: Any, act: Optional[str], data_format: str) -> Any:
    if filter_size is None:
        raise ValueError(f"{who}: filter_size is required")
    layer = _conv_layer(layer_cls, who, input, num_filters, filter_size, stride, padding,
                        dilation, groups, param_attr, bias_attr, data_format)
    return _act(layer(input), act, who)


def conv2d(input: Any, num_filters: int, filter_size: Any, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: Optional[int] = None, param_attr: Any = None,
           bias_attr: Any = None, use_cudnn: bool = True, act: Optional[str] = None,
           name: Optional[str] = None, data_format: str = "NCHW") -> Any:
    """A 2-D convolution with new [num_filters, C/groups, kh, kw] weights (and bias)."""
    return _conv(nn.Conv2D, "conv2d", input, num_filters, filter_size, stride, padding,
                 dilation, groups, param_attr, bias_attr, act, data_format)


def conv3d(input: Any, num_filters: int, filter_size: Any, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: Optional[int] = None, param_attr: Any = None,
           bias_attr: Any = None, use_cudnn: bool = True, act: Optional[str] = None,
           name: Optional[str] = None, data_format: str = "NCDHW") -> Any:
    """A 3-D convolution with new weights (and bias)."""
    return _conv(nn.Conv3D, "conv3d", input, num_filters, filter_size, stride, padding,
                 dilation, groups, param_attr, bias_attr, act, data_format)


def conv2d_transpose(input: Any, num_filters: int, output_size: Any = None,
                     filter_size: Any = None, padding: Any = 0, stride: Any = 1,
                     dilation: Any = 1, groups: Optional[int] = None, param_attr: Any = None,
                     bias_attr: Any = None, use_cudnn: bool = True, act: Optional[str] = None,
                     name: Optional[str] = None, data_format: str = "NCHW") -> Any:
    """A 2-D transposed convolution with new weights (and bias)."""
    layer = _conv_layer(nn.Conv2DTranspose, "conv2d_transpose", input, num_filters, filter_size, stride,
                        padding, dilation, groups, param_attr, bias_attr, data_format)
    return _act(layer(input, output_size=output_size), act, "conv2d_transpose")


def conv3d_transpose(input: Any, num_filters: int, output_size: Any = None,
                     filter_size: Any = None, padding: Any = 0, stride: Any = 1,
                     dilation: Any = 1, groups: Optional[int] = None, param_attr: Any = None,
                     bias_attr: Any = None, use_cudnn: bool = True, act: Optional[str] = None,
                     name: Optional[str] = None, data_format: str = "NCDHW") -> Any:
    """A 3-D transposed convolution with new weights (and bias)."""
    layer = _conv_layer(nn.Conv3DTranspose, "conv3d_transpose", input, num_filters, filter_size, stride,
                        padding, dilation, groups, param_attr, bias_attr, data_format)
    return _act(layer(input, output_size=output_size), act, "conv3d_transpose")


def batch_norm(input: Any, act: Optional[str] = None, is_test: bool = False,
               momentum: float = 0.9, epsilon: float = 1e-05, param_attr: Any = None,
               bias_attr: Any = None, data_layout: str = "NCHW", in_place: bool = False,
               name: Optional[str] = None, moving_mean_name: Optional[str] = None,
               moving_variance_name: Optional[str] = None,
               do_model_average_for_mean_and_var: bool = True,
               use_global_stats: bool = False) -> Any:
    """Batch normalization with new scale / bias and running statistics; training statistics
    (and updated running ones) unless is_test or use_global_stats."""
    layer = nn.BatchNorm(_channels(input, data_layout, "batch_norm"), act=act, is_test=is_test,
                         momentum=momentum, epsilon=epsilon, param_attr=param_attr,
                         bias_attr=bias_attr, data_layout=data_layout,
                         moving_mean_name=moving_mean_name,
                         moving_variance_name=moving_variance_name,
                         use_global_stats=use_global_stats)
    if is_test:
        layer.eval()
    return layer(input)


def embedding(input: Any, size: Sequence[int], is_sparse: bool = False,
              is_distributed: bool = False, padding_idx: Optional[int] = None,
              param_attr: Any = None, dtype: str = "float32") -> Any:
    """Look ids up in a new [size[0], size[1]] table (padding_idx rows give zeros)."""
    if len(size) != 2:
        raise ValueError(f"embedding: size must be [vocab_size, emb_dim], got {size!r}")
    layer = nn.Embedding(int(size[0]), int(size[1]), padding_idx=padding_idx,
                         weight_attr=param_attr)
    return layer(input)


def sparse_embedding(input: Any, size: Sequence[int], padding_idx: Optional[int] = None,
                     is_test: bool = False, entry: Any = None, table_class: str = "MemorySparseTable",
                     param_attr: Any = None, dtype: str = "float32", slot: Any = None) -> Any:
    """embedding (dy2st keeps the table dense)."""
    return embedding(input, size, padding_idx=padding_idx, param_attr=param_attr, dtype=dtype)


def layer_norm(input: Any, scale: bool = True, shift: bool = True, begin_norm_axis: int = 1,
               epsilon: float = 1e-05, param_attr: Any = None, bias_attr: Any = None,
               act: Optional[str] = None, name: Optional[str] = None) -> Any:
    """Normalize over the dims from begin_norm_axis on, with new scale / shift."""
    shape = list(input.shape[begin_norm_axis:])
    if any(not isinstance(d, int) or d < 0 for d in shape):
        raise ValueError(f"layer_norm: the normalized dims must be known, got {list(input.shape)}")
    layer = nn.LayerNorm(shape, epsilon=epsilon,
                         weight_attr=param_attr if scale else False,
                         bias_attr=bias_attr if shift else False)
    return _act(layer(input), act, "layer_norm")


def group_norm(input: Any, groups: int, epsilon: float = 1e-05, param_attr: Any = None,
               bias_attr: Any = None, act: Optional[str] = None, data_layout: str = "NCHW",
               name: Optional[str] = None) -> Any:
    """Group normalization with new scale / bias."""
    layer = nn.GroupNorm(groups, _channels(input, data_layout, "group_norm"), epsilon=epsilon,
                         weight_attr=param_attr, bias_attr=bias_attr, data_format=data_layout)
    return _act(layer(input), act, "group_norm")


def instance_norm(input: Any, epsilon: float = 1e-05, param_attr: Any = None,
                  bias_attr: Any = None, name: Optional[str] = None) -> Any:
    """Instance normalization of an NCHW input with new scale / bias."""
    rank = len(input.shape)
    cls = {3: nn.InstanceNorm1D, 4: nn.InstanceNorm2D, 5: nn.InstanceNorm3D}.get(rank)
    if cls is None:
        raise ValueError(f"instance_norm: input must have rank 3, 4 or 5, got {rank}")
    layer = cls(_channels(input, "NC", "instance_norm"), epsilon=epsilon,
                weight_attr=param_attr, bias_attr=bias_attr)
    return layer(input)


def prelu(x: Any, mode: str, param_attr: Any = None, data_format: str = "NCHW",
          name: Optional[str] = None) -> Any:
    """PReLU with a new slope: one ('all'), one per channel ('channel') or per element."""
    if mode not in ("all", "channel", "element"):
        raise ValueError(f"prelu: mode must be 'all', 'channel' or 'element', got {mode!r}")
    if mode == "all":
        n = 1
    elif mode == "channel":
        n = _channels(x, data_format, "prelu")
    else:
        n = 1
        for d in x.shape[1:]:
            n *= d
    layer = nn.PReLU(num_parameters=n, weight_attr=param_attr, data_format=data_format)
    if mode == "element":        # one slope per element: the parameter reshaped like x
        w = ops.reshape(layer._weight, [1] + list(x.shape[1:]))
        return ops.maximum(x, x * 0.0) + w * ops.minimum(x, x * 0.0)
    return layer(x)


def bilinear_tensor_product(x: Any, y: Any, size: int, act: Optional[str] = None,
                            name: Optional[str] = None, param_attr: Any = None,
                            bias_attr: Any = None) -> Any:
    """out[:, k] = x W_k y^T + b_k with a new [size, dx, dy] weight."""
    layer = nn.Bilinear(x.shape[-1], y.shape[-1], size, weight_attr=param_attr,
                        bias_attr=bias_attr)
    return _act(layer(x, y), act, "bilinear_tensor_product")


def spectral_norm(weight: Any, dim: int = 0, power_iters: int = 1, eps: float = 1e-12,
                  name: Optional[str] = None) -> Any:
    """weight divided by its largest singular value (power iteration)."""
    layer = nn.SpectralNorm(list(weight.shape), dim=dim, power_iters=power_iters, eps=eps)
    return layer(weight)


def deform_conv2d(x: Any, offset: Any, mask: Any, num_filters: int, filter_size: Any,
                  stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1,
                  deformable_groups: int = 1, im2col_step: int = 1, weight_attr: Any = None,
                  bias_attr: Any = None, name: Optional[str] = None) -> Any:
    """A deformable convolution (v2 with `mask`, v1 with mask=None) with new
    [num_filters, C / groups, kh, kw] weights and bias; offset is
    [N, 2 * deformable_groups * kh * kw, H_out, W_out] (im2col_step only batches Paddle's
    GPU kernel and changes nothing here)."""
    if filter_size is None:
        raise ValueError("deform_conv2d: filter_size is required")
    layer = DeformConv2D(_channels(x, "NCHW", "deform_conv2d"), num_filters, filter_size,
                         stride=stride, padding=padding, dilation=dilation,
                         deformable_groups=deformable_groups, groups=groups or 1,
                         weight_attr=weight_attr, bias_attr=bias_attr)
    return layer(x, offset, mask)
