"""Paddle's mixed-precision op lists (python/paddle/amp/amp_lists.py), in dy2st's op names.

White ops run in the low-precision dtype; black ops in float32; the rest ("gray") keep their
inputs' precision, promoted to float32 when the inputs mix float32 with float16 / bfloat16."""
from __future__ import annotations

from typing import Dict, FrozenSet

# Paddle names -> dy2st op names where they differ (matmul_v2 / mul are dy2st's matmul; Paddle's
# linear is a matmul plus a bias, dy2st's one linear op; interpolation is dy2st's resample)
PADDLE_TO_DY2ST: Dict[str, str] = {
    "matmul_v2": "matmul", "mul": "matmul", "linear_v2": "linear", "reduce_sum": "sum",
    "reduce_mean": "mean", "reduce_prod": "prod", "pnorm": "norm", "frobenius_norm": "norm",
    "lookup_table": "embedding", "lookup_table_v2": "embedding",
    "linear_interp_v2": "resample", "nearest_interp_v2": "resample",
    "bilinear_interp_v2": "resample", "bicubic_interp_v2": "resample",
    "trilinear_interp_v2": "resample", "softmax_with_cross_entropy": "cross_entropy",
    "cross_entropy2": "cross_entropy", "tanh_shrink": "tanhshrink", "huber_loss": "smooth_l1",
}


def dy2st_names(names: "set[str] | frozenset[str]") -> FrozenSet[str]:
    """The dy2st op names for Paddle op names (unknown names are kept, so custom lists naming
    dy2st ops work too)."""
    return frozenset(PADDLE_TO_DY2ST.get(n, n) for n in names)


# Paddle 3.3.1's lists: bfloat16 shares float16's, less the quantisation / fused-attention ops
WHITE_LIST = frozenset({
    "conv2d", "einsum", "matmul", "matmul_v2", "linear_v2", "max_pool2d_with_index", "mul",
    "fused_gemm_epilogue", "fused_rotary_position_embedding", "flash_attn"})
ONLY_FP16_WHITE_LIST = frozenset({
    "fake_quantize_dequantize_abs_max", "fake_quantize_dequantize_moving_average_abs_max",
    "fused_attention", "fused_feedforward"})
FP16_WHITE_LIST = WHITE_LIST | ONLY_FP16_WHITE_LIST
FP16_BLACK_LIST = frozenset({
    "tan", "acos", "asin", "sinh", "cosh", "atanh", "tanh_shrink", "erfinv", "exp",
    "expm1", "log", "log10", "log2", "reciprocal", "rsqrt", "pow", "square", "reduce_sum",
    "mean", "reduce_mean", "reduce_prod", "cumprod", "cumsum", "dist", "pnorm", "frobenius_norm",
    "renorm", "group_norm", "layer_norm", "softmax", "softmin", "softplus", "log_softmax",
    "softmax_with_cross_entropy", "sigmoid_cross_entropy_with_logits",
    "c_softmax_with_cross_entropy", "c_softmax_with_multi_label_cross_entropy", "cross_entropy",
    "cross_entropy2", "nll_loss", "huber_loss", "triplet_margin_loss", "log_loss",
    "hsigmoid_loss", "margin_cross_entropy"})
EXTRA_BLACK_LIST = frozenset({
    "linear_interp_v2", "nearest_interp_v2", "bilinear_interp_v2", "bicubic_interp_v2",
    "trilinear_interp_v2", "lookup_table", "lookup_table_v2", "scatter"})
BF16_WHITE_LIST = WHITE_LIST
BF16_BLACK_LIST = FP16_BLACK_LIST
# the ops Paddle's static lists name as keeping their inputs' precision
GRAY_LIST = frozenset({
    "all_reduce", "batch_norm", "c_concat", "c_identity", "cast", "concat", "dropout",
    "elementwise_add", "elementwise_div", "elementwise_floordiv", "elementwise_max",
    "elementwise_min", "elementwise_mod", "elementwise_mul", "elementwise_pow", "elementwise_sub",
    "fill_constant", "flatten2", "fused_attention", "fused_bn_add_activation", "fused_feedforward",
    "fused_multi_transformer", "gather", "gaussian_random", "get_tensor_from_selected_rows",
    "layer_norm", "leaky_relu", "pool2d", "pool3d", "rank", "relu", "relu6", "reshape2", "scale",
    "sigmoid", "sign", "slice", "soft_relu", "split", "stack", "tanh", "top_k", "transpose2",
    "uniform_random", "uniform_random_batch_size_like", "unstack"})
# paddle.static.amp's float16 white list adds two fused kernels
STATIC_FP16_EXTRA_WHITE = frozenset({"fused_bn_add_activation", "resnet_unit"})
# paddle.static.amp.bf16's float32 list: the black list less layer_norm, plus the quantisers
STATIC_BF16_FP32_LIST = (BF16_BLACK_LIST - {"layer_norm"}) | {
    "fake_quantize_dequantize_abs_max", "fake_quantize_dequantize_moving_average_abs_max"}

# dy2st's linear is Paddle's matmul (white) fused with its bias add
_EXTRA_WHITE = frozenset({"linear"})


def white_list(dtype: str, level: str) -> FrozenSet[str]:
    """The ops run in `dtype` at `level` (the same at OD, O1 and O2, as in Paddle)."""
    base = FP16_WHITE_LIST if dtype == "float16" else BF16_WHITE_LIST
    return dy2st_names(base) | _EXTRA_WHITE


def black_list(dtype: str, level: str) -> FrozenSet[str]:
    """The ops kept in float32: none at OD, the full list at O1, the extra list at O2."""
    if level == "OD":
        return frozenset()
    if level == "O2":
        return dy2st_names(EXTRA_BLACK_LIST)
    base = FP16_BLACK_LIST if dtype == "float16" else BF16_BLACK_LIST
    return dy2st_names(base | EXTRA_BLACK_LIST)
