"""Paddle's public names as data for tools/api_coverage.py: the lists PaddlePaddle 3.3.1 itself
declares (tools/paddle_api_names_331.py, generated from the installed package), plus what is left
out of the totals (EXCLUDED, each with a one-word reason from REASONS) and the names issue 13 asks
for. Names are facts; no Paddle code is copied.
"""
from __future__ import annotations

from typing import Dict, List

from tools.paddle_api_names_331 import NAMES, PADDLE_VERSION


def _names(text: str) -> List[str]:
    return sorted(set(text.split()))

# Tensor methods: tensor_method_func (in NAMES) plus the methods Paddle binds elsewhere
# base/dygraph/math_op_patch.py eager_methods (public ones)
_MATH_OP_PATCH = "astype dim ndimension ndim size T mT"
# base/dygraph/tensor_patch_methods.py method table (public ones)
_TENSOR_PATCH = """
set_value block backward clear_grad inplace_version gradient apply_ apply register_hook item to
values to_dense to_sparse_coo coalesce value cpu cuda pin_memory
"""
# paddle/fluid/pybind/eager_method.cc variable_methods (public ones)
_EAGER_METHODS = """
numpy copy_ clone reconstruct_from_ retain_grads clear_gradient is_dense is_dist detach detach_
get_tensor get_selected_rows set_string_list set_vocab get_map_tensor nnz indices crows cols
is_sparse is_sparse_coo is_sparse_csr is_same_shape to_sparse_csr element_size is_selected_rows
rows data_ptr contiguous is_contiguous get_strides
"""
# Tensor methods issue 13 names that Paddle 3.x binds outside the sources above
_ISSUE_NAMED_METHODS = "fill_ zero_ fill_diagonal_ permute"

TENSOR_METHODS = _names(" ".join(NAMES["Tensor methods"] + [_MATH_OP_PATCH, _TENSOR_PATCH,
                                  _EAGER_METHODS, _ISSUE_NAMED_METHODS]))

# one-word reason categories for leaving a name out
REASONS: Dict[str, str] = {
    "device": "needs CUDA / XPU / IPU / custom-device hardware or GPU-only fused kernels",
    "distributed": "multi-process / multi-device training",
    "sparse": "sparse tensor formats (COO / CSR / selected rows)",
    "complex": "complex dtypes",
    "dtype": "float8 / bfloat16 / string dtypes",
    "amp": "automatic mixed precision (autocast)",
    "runtime": "Paddle's C++ runtime: PIR blocks, the flag registry, DLPack, raw buffers",
    "lod": "LoD tensors (variable-length sequences packed in one tensor) of the fluid era",
}

# name -> reason category; checked against every namespace
EXCLUDED: Dict[str, str] = {}


def _exclude(reason: str, text: str) -> None:
    assert reason in REASONS, reason
    for name in text.split():
        EXCLUDED[name] = reason


_exclude("device", "CUDAPlace CUDAPinnedPlace XPUPinnedPlace IPUPlace XPUPlace CustomPlace "
         "get_cuda_rng_state set_cuda_rng_state cuda pin_memory flash_attn_qkvpacked "
         "flash_attention_v3_varlen flash_attn_varlen_qkvpacked flashmask_attention "
         "moe_permute moe_unpermute top_p_sampling")
_exclude("distributed", "DataParallel DistributedBatchSampler shard_index "
         "class_center_sample margin_cross_entropy is_dist")
_exclude("sparse", "sparse_attention to_sparse_coo to_sparse_csr to_dense coalesce values "
         "indices crows cols nnz is_sparse is_sparse_coo is_sparse_csr get_selected_rows "
         "is_selected_rows rows")
# paddle.uint16 is Paddle's bfloat16 (the same dtype object), not a 16-bit unsigned integer
_exclude("dtype", "uint16 bfloat16 float8_e4m3fn float8_e5m2 BFloat16Tensor pstring raw "
         "fp8_fp8_half_gemm_fused set_string_list set_vocab get_map_tensor")
_exclude("runtime", "get_flags set_flags disable_signal_handler MmapStorage from_dlpack "
         "to_dlpack block value get_tensor data_ptr get_strides reconstruct_from_ "
         "element_size")

# paddle.tensor: its submodules (the functions in them are paddle's own, counted there)
TENSOR = _names("attribute creation linalg logic manipulation math random search stat")

_exclude("device", "XPUPlace IPUPlace get_device_properties Stream Event current_stream "
         "set_stream stream_guard max_memory_allocated max_memory_reserved "
         "reset_max_memory_allocated reset_max_memory_reserved memory_allocated "
         "memory_reserved ipu_shard_guard IpuCompiledProgram IpuStrategy set_ipu_shard "
         "cuda_places xpu_places FusedMultiTransformer FusedEcMoe")
_exclude("distributed", "ctr_metric_bundle")
_exclude("lod", "sequence_conv sequence_softmax sequence_pool sequence_first_step "
         "sequence_last_step sequence_slice sequence_expand sequence_expand_as sequence_pad "
         "sequence_unpad sequence_reshape sequence_scatter sequence_enumerate row_conv nce "
         "data_norm")
_exclude("runtime", "serialize_program serialize_persistables save_to_file deserialize_program "
         "deserialize_persistables load_from_file normalize_program")
_exclude("device", "StreamContext get_device_capability get_device_name get_stream_from_external "
         "ipc_collect is_current_stream_capturing reset_peak_memory_stats")
# paddle.distributed: auto-parallel (meshes, placements, dtensors, parallelize plans), sharding
# stages and fleet's parameter-server datasets; namespace-qualified where the bare name is also
# a real single-process name elsewhere (split, io, to_static, load_state_dict)
_exclude("distributed", "ColWiseParallel ContextParallel ConvParallel DistAttr DistModel "
         "LocalLayer ParallelMode Partial Placement PrepareContextParallel PrepareLayerInput "
         "PrepareLayerOutput ProcessMesh ReduceType Replicate RowWiseParallel "
         "SequenceParallelBegin SequenceParallelDisable SequenceParallelEnable "
         "SequenceParallelEnd Shard ShardedStateDict ShardedWeight ShardingStage1 "
         "ShardingStage2 ShardingStage3 SplitPoint Strategy build_sharded_state_dict "
         "dtensor_from_fn get_mesh set_mesh local_map parallelize reshard shard_dataloader "
         "shard_layer shard_optimizer shard_scaler shard_tensor shard_weight to_distributed "
         "unshard_dtensor load_merged_state_dict save_state_dict CountFilterEntry "
         "ProbabilityEntry ShowClickEntry InMemoryDataset QueueDataset create_nccl_config "
         "paddle.distributed.split paddle.distributed.io paddle.distributed.to_static "
         "paddle.distributed.load_state_dict")


def is_excluded(namespace: str, name: str) -> bool:
    """Whether `name` of `namespace` is left out of the totals (bare or namespace-qualified)."""
    return name in EXCLUDED or f"{namespace}.{name}" in EXCLUDED


# where each list comes from
SOURCES: Dict[str, str] = {ns: f"__all__ of {ns} in the installed PaddlePaddle {PADDLE_VERSION}"
                           for ns in NAMES}
SOURCES["Tensor methods"] = (f"paddle.tensor.tensor_method_func of PaddlePaddle {PADDLE_VERSION}, "
                             "plus the public methods of math_op_patch.py, "
                             "tensor_patch_methods.py and eager_method.cc")
SOURCES["paddle.tensor"] = "the submodules of paddle.tensor (it has no __all__)"

NAMESPACES: Dict[str, List[str]] = {ns: names for ns, names in NAMES.items()
                                    if ns != "Tensor methods"}
NAMESPACES["Tensor methods"] = TENSOR_METHODS
NAMESPACES["paddle.tensor"] = TENSOR

# The names issue 13 asks for by name (each must be present in dy2st).
ISSUE_13 = {
    "paddle.nn": _names("""
        MaxPool1D MaxPool2D MaxPool3D AvgPool1D AvgPool2D AvgPool3D AdaptiveAvgPool1D
        AdaptiveAvgPool2D AdaptiveAvgPool3D AdaptiveMaxPool1D AdaptiveMaxPool2D Conv1D Conv3D
        Conv1DTranspose Conv2DTranspose GroupNorm InstanceNorm1D InstanceNorm2D LocalResponseNorm
        BatchNorm Upsample PixelShuffle Unfold Pad1D Pad2D Pad3D ZeroPad2D SimpleRNN LSTM GRU
        SimpleRNNCell LSTMCell GRUCell RNN BiRNN MultiHeadAttention TransformerEncoderLayer
        TransformerEncoder TransformerDecoderLayer TransformerDecoder Transformer Embedding
        Softsign LogSigmoid Hardtanh Hardsigmoid Softshrink Hardshrink Tanhshrink ThresholdedReLU
        SELU CELU PReLU RReLU GLU Maxout Silu Swish BCELoss BCEWithLogitsLoss KLDivLoss
        MarginRankingLoss CosineEmbeddingLoss HingeEmbeddingLoss TripletMarginLoss CTCLoss
        SmoothL1Loss PoissonNLLLoss GaussianNLLLoss"""),
    "paddle.nn.functional": _names("""
        interpolate unfold grid_sample affine_grid pad scaled_dot_product_attention sequence_mask
        gather_tree label_smooth cosine_similarity one_hot"""),
    "paddle": _names("""
        add_n inverse masked_fill index_add index_put index_sample scatter_nd scatter_nd_add
        repeat_interleave diagonal diff kron cross median quantile nansum nanmean logsumexp
        logcumsumexp cummax cummin bucketize searchsorted bincount histogram count_nonzero
        moveaxis ravel narrow atleast_1d atleast_2d atleast_3d hstack vstack dstack
        broadcast_tensors isin lerp hypot atan2 clone clamp masked_scatter gather slice save load"""),
    "Tensor methods": _names("""
        fill_ zero_ permute masked_fill masked_scatter index_add index_put repeat_interleave
        diagonal diff median quantile logsumexp cummax cummin moveaxis narrow clone clamp lerp
        add_ subtract_ multiply_ clip_ exp_"""),
    "paddle.linalg": _names("""
        inv det slogdet solve cholesky qr svd eigh pinv lstsq matrix_power multi_dot cond norm"""),
    "paddle.io": _names("""
        Dataset IterableDataset TensorDataset DataLoader BatchSampler RandomSampler
        SequenceSampler random_split Subset"""),
    "paddle.metric": _names("accuracy Accuracy"),
}
