"""Paddle's public names, written down as data for tools/api_coverage.py.

The lists are transcribed from PaddlePaddle/Paddle sources on GitHub (develop branch, 3.x era;
the commit each list was read at is in SOURCES). The stored snapshots are not tagged 3.3.1, so the
totals differ a little from the figures issue 13 measured on an installed Paddle 3.3.1 (nn 179,
nn.functional 136, paddle 516, Tensor 543, where `paddle` and `Tensor` there count dir() rather
than `__all__`). Names are facts; no Paddle code is copied.

Names that need hardware or a runtime dy2st does not have are in EXCLUDED, each with a one-word
reason category from REASONS; they are left out of the totals.
"""
from __future__ import annotations

from typing import Dict, List


def _names(text: str) -> List[str]:
    return sorted(set(text.split()))


# where each list was read (repository PaddlePaddle/Paddle)
SOURCES: Dict[str, str] = {
    "paddle": "python/paddle/__init__.py __all__ @ 1c9bff6b9d36244fdc4ec74d24e3949bac8719b6",
    "paddle.nn": "python/paddle/nn/__init__.py __all__ (stored version with Module/ModuleDict, "
                 "index id 16902928406; 179 names, as issue 13 measured)",
    "paddle.nn.functional": "python/paddle/nn/functional/__init__.py __all__ "
                            "@ d5c29e55830e6ae94e9e23bcdcf39b6a1dd7ae8c",
    "paddle.linalg": "python/paddle/linalg.py __all__ (stored version with vecdot/svdvals/"
                     "fp8_fp8_half_gemm_fused, index id 668785862)",
    "paddle.optimizer": "python/paddle/optimizer/__init__.py __all__ "
                        "@ a7ff758ee06ed223547277e02617389ef98eb2d2",
    "paddle.io": "python/paddle/io/__init__.py __all__ (3.x: the 2.x list @ 5ad5d755 plus "
                 "random_split, Subset, SubsetRandomSampler, ConcatDataset)",
    "paddle.metric": "python/paddle/metric/__init__.py __all__ @ "
                     "a48c5ade007100b56642e7e3e786a44cbeaa211d",
    "Tensor methods": "python/paddle/tensor/__init__.py tensor_method_func @ "
                      "dce6a6d2ce290221e590206db34ad431abd524c3; eager_methods in "
                      "python/paddle/base/dygraph/math_op_patch.py @ 0ab6998c; the method table "
                      "in python/paddle/base/dygraph/tensor_patch_methods.py (index id "
                      "1013258800); public entries of variable_methods in "
                      "paddle/fluid/pybind/eager_method.cc @ 001b3f32",
}

PADDLE = _names("""
block_diag gt eq iinfo finfo dtype uint8 int8 int16 int32 int64 float8_e4m3fn float8_e5m2
float16 float32 float64 bfloat16 bool complex64 complex128 pstring raw addmm addmm_ baddbmm
baddbmm_ allclose isclose t t_ add subtract diag diagflat diag_embed isnan scatter_nd_add
unstack get_default_dtype save multinomial get_cuda_rng_state get_rng_state rank empty_like eye
cumsum cumsum_ cummax cummin cumprod cumprod_ logaddexp logcumsumexp logit logit_ LazyGuard sign
is_empty equal equal_ equal_all is_tensor is_complex is_integer cartesian_prod cross where
where_ log1p cos cos_ tan tan_ mean mode mv in_dynamic_mode min narrow amin any slice
slice_scatter normal normal_ log_normal log_normal_ logsumexp full unsqueeze unsqueeze_ argmax
Model summary flops sort msort searchsorted bucketize split tensor_split hsplit dsplit vsplit
logical_and logical_and_ MmapStorage full_like less_than less_than_ less less_ kron clip clamp
Tensor FloatTensor DoubleTensor HalfTensor BFloat16Tensor ByteTensor CharTensor ShortTensor
IntTensor LongTensor BoolTensor crop ParamAttr stanh randint randint_like assign gather scale
zeros rsqrt squeeze squeeze_ to_tensor as_tensor gather_nd isin isinf isneginf isposinf isreal
uniform floor_divide floor_divide_ remainder remainder_ floor_mod floor_mod_ roll batch max amax
logical_or logical_or_ bitwise_and bitwise_and_ bitwise_or bitwise_or_ bitwise_xor bitwise_xor_
bitwise_not bitwise_not_ bitwise_invert bitwise_invert_ mm flip rot90 bincount
histogram_bin_edges histogram histogramdd multiplex CUDAPlace empty shape real imag
is_floating_point complex reciprocal rand less_equal less_equal_ triu triu_ sin sin_ dist cdist
pdist unbind meshgrid range arange load numel median nanmedian quantile nanquantile no_grad
enable_grad set_grad_enabled is_grad_enabled mod mod_ abs abs_ tril tril_ pow pow_ zeros_like
maximum topk index_select CPUPlace matmul seed acos acos_ logical_xor exp expm1 expm1_ bernoulli
bernoulli_ binomial poisson standard_gamma sinh sinh_ sinc sinc_ round DataParallel argmin prod
broadcast_shapes broadcast_shape conj neg neg_ negative lgamma lgamma_ gammaincc gammaincc_
gammainc gammainc_ lerp erfinv inner outer ger square square_ divide divide_ div div_
true_divide gammaln gammaln_ ceil atan atan_ atan2 rad2deg deg2rad gcd gcd_ lcm lcm_ expand
broadcast_to ones_like index_sample cast cast_ grad all ones not_equal sum reduce_as nansum
nanmean count_nonzero tile greater_equal greater_equal_ isfinite create_parameter dot increment
erf erf_ bmm chunk tolist tensordot greater_than greater_than_ shard_index argsort tanh tanh_
transpose swapaxes swapdims transpose_ permute cauchy_ geometric_ randn randn_like rand_like
strided_slice unique unique_consecutive set_cuda_rng_state set_rng_state set_printoptions std
flatten flatten_ ravel asin mul multiply multiply_ disable_static masked_select var trace
enable_static scatter_nd set_default_dtype disable_signal_handler expand_as stack hstack vstack
dstack column_stack row_stack sqrt randperm linspace logspace reshape reshape_ atleast_1d
atleast_2d atleast_3d reverse nonzero argwhere CUDAPinnedPlace XPUPinnedPlace logical_not
logical_not_ add_n minimum scatter scatter_ floor cosh log log_ log2 log2_ log10 log10_ concat
cat concatenate check_shape trunc trunc_ frac frac_ digamma digamma_ standard_normal diagonal
broadcast_tensors einsum set_flags get_flags asinh acosh atanh as_complex view_as_complex
as_real view_as_real diff angle fmax fmin moveaxis repeat_interleave clone kthvalue renorm
renorm_ take_along_axis take_along_dim scatter_reduce put_along_axis scatter_add select_scatter
multigammaln multigammaln_ nan_to_num nan_to_num_ scatter_add_ heaviside tril_indices index_add
index_add_ index_put index_put_ sgn triu_indices take frexp ldexp ldexp_ trapezoid
cumulative_trapezoid polar vander unflatten as_strided view view_as unfold nextafter i0 i0_ i0e
i1 i1e polygamma polygamma_ copysign copysign_ bitwise_left_shift bitwise_left_shift_
bitwise_right_shift bitwise_right_shift_ masked_fill masked_fill_ masked_scatter masked_scatter_
matrix_transpose hypot hypot_ index_fill index_fill_ diagonal_scatter combinations signbit
positive from_dlpack to_dlpack inf newaxis vecdot nan pi e is_autocast_enabled
get_autocast_dtype get_autocast_cpu_dtype get_autocast_gpu_dtype softmax
""")

NN = _names("""
BatchNorm CELU GroupNorm LayerNorm SpectralNorm BatchNorm1D BatchNorm2D BatchNorm3D
InstanceNorm1D InstanceNorm2D InstanceNorm3D SyncBatchNorm LocalResponseNorm Embedding Linear
Upsample UpsamplingNearest2D UpsamplingBilinear2D Pad1D Pad2D Pad3D ConstantPad1D ConstantPad2D
ConstantPad3D CircularPad1D CircularPad2D CircularPad3D ReplicationPad1D ReplicationPad2D
ReplicationPad3D ReflectionPad1D ReflectionPad2D ReflectionPad3D CircularPad1d CircularPad2d
CircularPad3d ConstantPad1d ConstantPad2d ConstantPad3d ReplicationPad1d ReplicationPad2d
ReplicationPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d CosineSimilarity Dropout
Dropout2D Dropout3D Bilinear AlphaDropout FeatureAlphaDropout Unfold Fold RNNCellBase
SimpleRNNCell LSTMCell GRUCell RNN BiRNN SimpleRNN LSTM GRU dynamic_decode MultiHeadAttention
Maxout Softsign Transformer MSELoss LogSigmoid BeamSearchDecoder ClipGradByNorm ReLU
PairwiseDistance BCEWithLogitsLoss SmoothL1Loss MaxPool3D AdaptiveMaxPool2D Hardshrink Softplus
KLDivLoss AvgPool2D L1Loss LeakyReLU AvgPool1D AdaptiveAvgPool3D AdaptiveMaxPool3D NLLLoss
PoissonNLLLoss Conv1D Conv1d Sequential Hardswish Conv1DTranspose AdaptiveMaxPool1D
TransformerEncoder Softmax Softmax2D ParameterDict ParameterList Conv2D Conv2d Softshrink
Hardtanh TransformerDecoderLayer CrossEntropyLoss GELU GLU SELU Silu SiLU Conv2DTranspose
CTCLoss RNNTLoss ThresholdedReLU AdaptiveAvgPool2D MaxPool1D Layer TransformerDecoder Conv3D
Conv3d Tanh Conv3DTranspose Flatten AdaptiveAvgPool1D Tanhshrink HSigmoidLoss PReLU
TransformerEncoderLayer AvgPool3D MaxPool2D MarginRankingLoss LayerList ClipGradByValue BCELoss
Hardsigmoid ClipGradByGlobalNorm LogSoftmax Sigmoid Swish Mish PixelShuffle PixelUnshuffle
ChannelShuffle ELU ReLU6 LayerDict ZeroPad2D MaxUnPool1D MaxUnPool2D MaxUnPool3D
MultiLabelSoftMarginLoss HingeEmbeddingLoss Identity CosineEmbeddingLoss RReLU MultiMarginLoss
MultiLabelMarginLoss TripletMarginWithDistanceLoss TripletMarginLoss SoftMarginLoss
GaussianNLLLoss AdaptiveLogSoftmaxWithLoss Unflatten FractionalMaxPool2D FractionalMaxPool3D
LPPool1D LPPool2D ZeroPad1D ZeroPad3D Parameter AdaptiveMaxPool1d AdaptiveMaxPool2d
AdaptiveMaxPool3d LPPool2d LPPool1d Module ModuleDict ModuleList
""")

FUNCTIONAL = _names("""
celu conv1d conv1d_transpose conv2d conv2d_transpose conv3d conv3d_transpose pairwise_distance
elu elu_ gelu hardshrink hardtanh hardtanh_ hardsigmoid hardswish leaky_relu leaky_relu_
log_sigmoid logsigmoid maxout prelu relu relu_ relu6 selu softmax softmax_ softplus softshrink
softsign sigmoid silu swish mish tanh tanh_ tanhshrink thresholded_relu thresholded_relu_
log_softmax glu gumbel_softmax sequence_mask dropout dropout1d dropout2d dropout3d alpha_dropout
feature_alpha_dropout label_smooth linear pad zeropad2d unfold interpolate upsample bilinear
cosine_similarity avg_pool1d avg_pool2d avg_pool3d lp_pool1d lp_pool2d max_pool1d max_pool2d
max_pool3d max_unpool1d max_unpool2d max_unpool3d moe_permute moe_unpermute adaptive_avg_pool1d
adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool2d
adaptive_max_pool3d fractional_max_pool2d fractional_max_pool3d binary_cross_entropy
binary_cross_entropy_with_logits cross_entropy dice_loss hsigmoid_loss kl_div l1_loss log_loss
mse_loss margin_ranking_loss multi_label_soft_margin_loss nll_loss poisson_nll_loss npair_loss
sigmoid_focal_loss smooth_l1_loss softmax_with_cross_entropy margin_cross_entropy
square_error_cost ctc_loss rnnt_loss hinge_embedding_loss affine_grid grid_sample
local_response_norm pixel_shuffle pixel_unshuffle channel_shuffle embedding gather_tree one_hot
normalize temporal_shift batch_norm layer_norm instance_norm class_center_sample
sparse_attention fold cosine_embedding_loss rrelu triplet_margin_with_distance_loss
triplet_margin_loss adaptive_log_softmax_with_loss multi_margin_loss multi_label_margin_loss
soft_margin_loss gaussian_nll_loss scaled_dot_product_attention flashmask_attention
flash_attn_qkvpacked flash_attention_v3_varlen flash_attn_varlen_qkvpacked group_norm
""")

LINALG = _names("""
cholesky cholesky_inverse norm matrix_norm vecdot vector_norm cond cov corrcoef cross inv eig
eigvals multi_dot matrix_rank matrix_transpose svd svdvals qr householder_product pca_lowrank
svd_lowrank lu lu_unpack matrix_exp matrix_power det slogdet eigh eigvalsh pinv solve
cholesky_solve triangular_solve lstsq ormqr fp8_fp8_half_gemm_fused diagonal
""")

OPTIMIZER = _names("""
Optimizer Adagrad Adam AdamW Adamax ASGD RAdam RMSProp Adadelta SGD Rprop Momentum NAdam Lamb
LBFGS
""")

IO = _names("""
Dataset IterableDataset TensorDataset ComposeDataset ChainDataset ConcatDataset BatchSampler
DistributedBatchSampler DataLoader get_worker_info Sampler SequenceSampler RandomSampler
WeightedRandomSampler SubsetRandomSampler random_split Subset
""")

METRIC = _names("""
Metric Accuracy Precision Recall Auc accuracy
""")

# paddle.tensor.tensor_method_func: functions bound onto Tensor as methods
_TENSOR_METHOD_FUNC = """
create_parameter create_tensor ormqr matmul dot cov corrcoef norm cond transpose cauchy_
geometric_ lstsq dist t t_ cross cholesky cholesky_inverse bmm histogram histogram_bin_edges
histogramdd bincount mv matrix_power matrix_transpose qr householder_product pca_lowrank
svd_lowrank eigvals eigvalsh abs acos all any asin asin_ atan ceil ceil_ cos cosh cumsum cumsum_
cummax cummin cumprod cumprod_ logcumsumexp logit logit_ exp exp_ expm1 floor floor_ increment
logaddexp log log_ log2 log2_ log10 log10_ logsumexp multiplex pow pow_ prod reciprocal
reciprocal_ round round_ rsqrt rsqrt_ scale scale_ sign sin sinc sinh sqrt sqrt_ square square_
stanh sum reduce_as multigammaln multigammaln_ nan_to_num nan_to_num_ hypot hypot_ nansum
nanmean block_diag count_nonzero tanh tanh_ add_n max amax maximum min amin minimum fmax fmin mm
inner outer divide divide_ div div_ sub sub_ true_divide floor_divide floor_divide_ remainder
remainder_ mod mod_ floor_mod floor_mod_ multiply multiply_ mul mul_ add add_ subtract subtract_
inverse log1p log1p_ erf addmm addmm_ baddbmm baddbmm_ clip clip_ trace kron kthvalue isfinite
isin isinf isnan isneginf isposinf isreal broadcast_shapes broadcast_shape conj neg neg_
negative lgamma lgamma_ gammaincc gammaincc_ gammainc gammainc_ equal equal_ equal_all
greater_equal greater_equal_ greater_than greater_than_ is_empty less_equal less_equal_
less_than less_than_ less less_ logical_and logical_and_ logical_not logical_not_ logical_or
logical_or_ logical_xor logical_xor_ narrow not_equal not_equal_ allclose isclose is_tensor cast
cast_ concat expand broadcast_to expand_as ravel flatten flatten_ gather gather_nd reshape
reshape_ scatter scatter_ scatter_nd_add scatter_nd shard_index slice slice_scatter split
tensor_split hsplit dsplit vsplit chunk tensordot squeeze squeeze_ stack strided_slice swapaxes
swapdims transpose_ permute tan_ unique unique_consecutive unsqueeze unsqueeze_ unstack flip
rot90 unbind roll tile repeat argmax argmin argsort masked_select topk top_p_sampling where
where_ index_select nonzero sort msort index_sample mean std var numel median nanmedian quantile
nanquantile is_complex is_integer rank shape real imag is_floating_point gammaln gammaln_
digamma digamma_ diagonal trunc trunc_ frac frac_ bitwise_and bitwise_and_ bitwise_or
bitwise_or_ bitwise_xor bitwise_xor_ bitwise_not bitwise_not_ bitwise_invert bitwise_invert_
broadcast_tensors eig uniform_ random_ multi_dot solve cholesky_solve slogdet triangular_solve
asinh atanh atanh_ acosh lu lu_unpack cdist as_complex view_as_complex as_real view_as_real
rad2deg deg2rad gcd gcd_ lcm lcm_ diff mode lerp lerp_ erfinv erfinv_ angle moveaxis
repeat_interleave take_along_axis take_along_dim scatter_reduce put_along_axis scatter_add
select_scatter put_along_axis_ bernoulli_ exponential_ heaviside scatter_add_ index_add
index_add_ index_put index_put_ take bucketize sgn frexp ldexp ldexp_ trapezoid
cumulative_trapezoid polar sigmoid sigmoid_ vander nextafter unflatten as_strided view view_as
unfold i0 i0_ i0e i1 i1e polygamma polygamma_ masked_fill masked_fill_ diag_embed atan2 diagflat
multinomial pinv renorm renorm_ tan tril tril_ triu triu_ stft istft abs_ acos_ atan_ cos_ cosh_
sin_ sinc_ sinh_ acosh_ asinh_ diag normal_ copysign copysign_ bitwise_left_shift
bitwise_left_shift_ bitwise_right_shift bitwise_right_shift_ index_fill index_fill_ atleast_1d
atleast_2d atleast_3d diagonal_scatter masked_scatter masked_scatter_ combinations signbit
log_normal_ set_ resize_ argwhere softmax eq ne lt le ge clamp clamp_ split_with_sizes
"""
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

TENSOR_METHODS = _names(" ".join([_TENSOR_METHOD_FUNC, _MATH_OP_PATCH, _TENSOR_PATCH,
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
_exclude("distributed", "DataParallel SyncBatchNorm DistributedBatchSampler shard_index "
         "class_center_sample margin_cross_entropy is_dist")
_exclude("sparse", "sparse_attention to_sparse_coo to_sparse_csr to_dense coalesce values "
         "indices crows cols nnz is_sparse is_sparse_coo is_sparse_csr get_selected_rows "
         "is_selected_rows rows")
_exclude("dtype", "bfloat16 float8_e4m3fn float8_e5m2 BFloat16Tensor pstring raw "
         "fp8_fp8_half_gemm_fused set_string_list set_vocab get_map_tensor")
_exclude("amp", "is_autocast_enabled get_autocast_dtype get_autocast_cpu_dtype "
         "get_autocast_gpu_dtype")
_exclude("runtime", "get_flags set_flags disable_signal_handler MmapStorage from_dlpack "
         "to_dlpack block value get_tensor data_ptr get_strides reconstruct_from_ "
         "element_size")

# issue 30: the namespaces model zoos reach beyond the main ones
AMP = _names("auto_cast GradScaler decorate is_float16_supported is_bfloat16_supported")
AUTOGRAD = _names("jacobian hessian backward PyLayer PyLayerContext saved_tensors_hooks")
DEVICE = _names("""
get_cudnn_version set_device get_device XPUPlace IPUPlace is_compiled_with_xpu
is_compiled_with_ipu is_compiled_with_cinn is_compiled_with_cuda is_compiled_with_rocm
is_compiled_with_distribute is_compiled_with_custom_device get_all_device_type
get_all_custom_device_type get_available_device get_available_custom_device
get_device_properties Stream Event current_stream set_stream stream_guard device_guard
synchronize device_count empty_cache max_memory_allocated max_memory_reserved
reset_max_memory_allocated reset_max_memory_reserved memory_allocated memory_reserved""")
STATIC = _names("""
append_backward gradients Executor global_scope scope_guard BuildStrategy CompiledProgram
ipu_shard_guard IpuCompiledProgram IpuStrategy Print py_func ExecutionStrategy name_scope
program_guard WeightNormParamAttr ExponentialMovingAverage default_main_program
default_startup_program Program data InputSpec save load save_inference_model
load_inference_model serialize_program serialize_persistables save_to_file
deserialize_program deserialize_persistables load_from_file normalize_program
load_program_state set_program_state cpu_places cuda_places xpu_places Variable
create_global_var accuracy auc device_guard create_parameter set_ipu_shard ctr_metric_bundle""")
STATIC_NN = _names("""
fc batch_norm bilinear_tensor_product embedding case cond static_pylayer conv2d
conv2d_transpose conv3d conv3d_transpose data_norm deform_conv2d group_norm instance_norm
layer_norm nce prelu py_func row_conv spectral_norm switch_case while_loop sparse_embedding
sequence_conv sequence_softmax sequence_pool sequence_first_step sequence_last_step
sequence_slice sequence_expand sequence_expand_as sequence_pad sequence_unpad sequence_reshape
sequence_scatter sequence_enumerate""")
INCUBATE_NN = _names("""
FusedMultiHeadAttention FusedFeedForward FusedTransformerEncoderLayer FusedMultiTransformer
FusedLinear FusedBiasDropoutResidualLayerNorm FusedEcMoe FusedDropoutAdd""")
# paddle.tensor: its submodules (the functions in them are paddle's own, counted there)
TENSOR = _names("attribute creation linalg logic manipulation math random search stat")
SIGNAL = _names("stft istft")
FFT = _names("""
fft ifft rfft irfft hfft ihfft fft2 ifft2 rfft2 irfft2 hfft2 ihfft2 fftn ifftn rfftn irfftn
hfftn ihfftn fftfreq rfftfreq fftshift ifftshift""")
VISION_OPS = _names("""
yolo_loss yolo_box prior_box box_coder deform_conv2d DeformConv2D distribute_fpn_proposals
generate_proposals read_file decode_jpeg roi_pool RoIPool psroi_pool PSRoIPool roi_align
RoIAlign nms matrix_nms""")

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

SOURCES.update({
    "paddle.amp": "python/paddle/amp/__init__.py __all__ (3.x, index id 358024814)",
    "paddle.autograd": "python/paddle/autograd/__init__.py __all__ (3.x, index id 752850641)",
    "paddle.device": "python/paddle/device/__init__.py __all__ @ "
                     "008dc20b4375a5e067d11476684012c4d59b7543",
    "paddle.static": "python/paddle/static/__init__.pyi __all__ (3.x stub, index id "
                     "5025873817)",
    "paddle.static.nn": "python/paddle/static/nn/__init__.py __all__ (3.x, index id 565471936)",
    "paddle.incubate.nn": "python/paddle/incubate/nn/__init__.pyi __all__ (3.x stub, index id "
                          "5211663937)",
    "paddle.tensor": "the submodules of python/paddle/tensor/ (attribute ... stat)",
    "paddle.fft": "python/paddle/fft.py __all__ (2.x and 3.x lists agree)",
    "paddle.signal": "python/paddle/signal.py __all__ (3.3.1)",
    "paddle.vision.ops": "python/paddle/vision/ops.py __all__ (2.x/3.x)",
})

NAMESPACES = {
    "paddle": PADDLE,
    "paddle.nn": NN,
    "paddle.nn.functional": FUNCTIONAL,
    "paddle.linalg": LINALG,
    "paddle.optimizer": OPTIMIZER,
    "paddle.io": IO,
    "paddle.metric": METRIC,
    "Tensor methods": TENSOR_METHODS,
    "paddle.amp": AMP,
    "paddle.autograd": AUTOGRAD,
    "paddle.device": DEVICE,
    "paddle.static": STATIC,
    "paddle.static.nn": STATIC_NN,
    "paddle.incubate.nn": INCUBATE_NN,
    "paddle.tensor": TENSOR,
    "paddle.fft": FFT,
    "paddle.signal": SIGNAL,
    "paddle.vision.ops": VISION_OPS,
}

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
