"""Paddle 3.x public names, written down as data for tools/api_coverage.py.

Transcribed from the `__all__` lists of python/paddle/__init__.py, nn/__init__.py,
nn/functional/__init__.py, linalg.py, optimizer/__init__.py, io/__init__.py, metric/__init__.py
and from `tensor_method_func` in python/paddle/tensor/__init__.py (Paddle 3.x). The names that
need hardware or a runtime dy2st does not have are listed in EXCLUDED with the reason; they are
left out of the totals. Submodule names (paddle.nn.functional, paddle.io, ...) are not counted.
"""
from __future__ import annotations

from typing import Dict, List


def _names(text: str) -> List[str]:
    return sorted(set(text.split()))


NN = _names("""
Layer LayerList ParameterList ParameterDict Sequential LayerDict
Conv1D Conv1DTranspose Conv2D Conv2DTranspose Conv3D Conv3DTranspose
AdaptiveAvgPool1D AdaptiveAvgPool2D AdaptiveAvgPool3D AdaptiveMaxPool1D AdaptiveMaxPool2D
AdaptiveMaxPool3D AvgPool1D AvgPool2D AvgPool3D MaxPool1D MaxPool2D MaxPool3D MaxUnPool1D
MaxUnPool2D MaxUnPool3D FractionalMaxPool2D FractionalMaxPool3D LPPool1D LPPool2D
Pad1D Pad2D Pad3D ZeroPad1D ZeroPad2D ZeroPad3D
CELU ELU GELU GLU Hardshrink Hardsigmoid Hardswish Hardtanh LeakyReLU LogSigmoid LogSoftmax
Maxout PReLU RReLU ReLU ReLU6 SELU Sigmoid Silu Softmax Softmax2D Softplus Softshrink Softsign
Swish Mish Tanh Tanhshrink ThresholdedReLU
BatchNorm BatchNorm1D BatchNorm2D BatchNorm3D GroupNorm InstanceNorm1D InstanceNorm2D
InstanceNorm3D LayerNorm LocalResponseNorm SpectralNorm SyncBatchNorm
BiRNN GRU GRUCell LSTM LSTMCell RNN RNNCellBase SimpleRNN SimpleRNNCell
MultiHeadAttention Transformer TransformerDecoder TransformerDecoderLayer TransformerEncoder
TransformerEncoderLayer
Bilinear Linear Identity
AlphaDropout Dropout Dropout2D Dropout3D FeatureAlphaDropout
Embedding
BCELoss BCEWithLogitsLoss CrossEntropyLoss CTCLoss HSigmoidLoss KLDivLoss L1Loss
MarginRankingLoss MSELoss NLLLoss SmoothL1Loss HingeEmbeddingLoss CosineEmbeddingLoss
MultiLabelSoftMarginLoss MultiMarginLoss TripletMarginLoss TripletMarginWithDistanceLoss
SoftMarginLoss GaussianNLLLoss PoissonNLLLoss RNNTLoss MultiLabelMarginLoss
AdaptiveLogSoftmaxWithLoss
ChannelShuffle PixelShuffle PixelUnshuffle
ClipGradByGlobalNorm ClipGradByNorm ClipGradByValue
BeamSearchDecoder dynamic_decode
CosineSimilarity Flatten Unflatten Fold Unfold Upsample UpsamplingBilinear2D UpsamplingNearest2D
PairwiseDistance
""")

FUNCTIONAL = _names("""
conv1d conv1d_transpose conv2d conv2d_transpose conv3d conv3d_transpose
adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d
adaptive_max_pool2d adaptive_max_pool3d avg_pool1d avg_pool2d avg_pool3d max_pool1d max_pool2d
max_pool3d max_unpool1d max_unpool2d max_unpool3d fractional_max_pool2d fractional_max_pool3d
lp_pool1d lp_pool2d
celu elu elu_ gelu glu gumbel_softmax hardshrink hardsigmoid hardswish hardtanh hardtanh_
leaky_relu leaky_relu_ log_sigmoid log_softmax maxout mish prelu relu relu_ relu6 rrelu selu
sigmoid silu softmax softmax_ softplus softshrink softsign swish tanh tanh_ tanhshrink
thresholded_relu thresholded_relu_
batch_norm group_norm instance_norm layer_norm local_response_norm normalize
linear bilinear
alpha_dropout dropout dropout2d dropout3d feature_alpha_dropout
embedding one_hot
binary_cross_entropy binary_cross_entropy_with_logits cosine_embedding_loss cross_entropy
ctc_loss dice_loss gaussian_nll_loss hinge_embedding_loss hsigmoid_loss kl_div l1_loss log_loss
margin_cross_entropy margin_ranking_loss mse_loss multi_label_soft_margin_loss multi_margin_loss
nll_loss npair_loss poisson_nll_loss rnnt_loss sigmoid_focal_loss smooth_l1_loss
soft_margin_loss softmax_with_cross_entropy square_error_cost triplet_margin_loss
triplet_margin_with_distance_loss multi_label_margin_loss adaptive_log_softmax_with_loss
affine_grid channel_shuffle class_center_sample cosine_similarity diag_embed fold gather_tree
grid_sample interpolate label_smooth pad zeropad2d pairwise_distance pixel_shuffle
pixel_unshuffle sequence_mask temporal_shift unfold upsample scaled_dot_product_attention
sparse_attention flash_attention flash_attn_unpadded flash_attention_with_sparse_mask
""")

LINALG = _names("""
cholesky norm matrix_norm vector_norm cond cov corrcoef inv eig eigvals multi_dot matrix_rank
svd qr householder_product pca_lowrank svd_lowrank lu lu_unpack lu_solve matrix_exp
matrix_power det slogdet eigh eigvalsh pinv solve cholesky_solve triangular_solve lstsq
cholesky_inverse ormqr matrix_transpose vecdot svdvals fp8_fp8_half_gemm_fused
""")

OPTIMIZER = _names("""
Optimizer Adagrad Adam AdamW Adamax RMSProp Adadelta SGD Momentum Lamb LBFGS ASGD NAdam RAdam
Rprop
""")

IO = _names("""
Dataset IterableDataset TensorDataset ComposeDataset ChainDataset ConcatDataset BatchSampler
DistributedBatchSampler DataLoader get_worker_info Sampler SequenceSampler RandomSampler
WeightedRandomSampler SubsetRandomSampler random_split Subset
""")

METRIC = _names("""
Metric Accuracy Precision Recall Auc accuracy
""")

PADDLE = _names("""
iinfo finfo dtype uint8 int8 int16 int32 int64 float16 float32 float64 bfloat16 bool complex64
complex128 float8_e4m3fn float8_e5m2 Tensor Size
batch disable_signal_handler get_flags set_flags disable_static enable_static in_dynamic_mode
in_pir_mode LazyGuard
is_complex is_integer rank shape real imag is_floating_point to_tensor diag diagflat diag_embed
eye linspace logspace ones ones_like zeros zeros_like arange full full_like triu triu_ tril tril_
meshgrid empty empty_like assign complex clone tril_indices triu_indices polar cauchy_ geometric_
matmul dot norm transpose transpose_ dist t t_ cross cholesky bmm histogram histogramdd bincount
mv eigvalsh equal equal_ greater_equal greater_equal_ greater_than greater_than_ is_empty
less_equal less_equal_ less_than less_than_ less logical_and logical_and_ logical_not
logical_not_ logical_or logical_or_ logical_xor logical_xor_ bitwise_and bitwise_and_
bitwise_not bitwise_not_ bitwise_or bitwise_or_ bitwise_xor bitwise_xor_ bitwise_left_shift
bitwise_left_shift_ bitwise_right_shift bitwise_right_shift_ bitwise_invert bitwise_invert_
not_equal not_equal_ allclose isclose equal_all is_tensor
cast cast_ concat broadcast_tensors expand broadcast_to expand_as tile flatten flatten_ gather
gather_nd reshape reshape_ reverse scatter scatter_ scatter_nd_add scatter_nd shard_index slice
crop split vsplit hsplit dsplit tensor_split squeeze squeeze_ stack strided_slice unique
unique_consecutive unsqueeze unsqueeze_ unstack flip rot90 unbind roll chunk tolist
take_along_axis put_along_axis put_along_axis_ select_scatter tensordot as_complex as_real
moveaxis repeat_interleave index_add index_add_ index_put index_put_ index_fill index_fill_
unflatten as_strided view view_as unfold masked_fill masked_fill_ masked_scatter masked_scatter_
diagonal_scatter slice_scatter column_stack row_stack hstack vstack dstack atleast_1d atleast_2d
atleast_3d block_diag cartesian_prod combinations narrow
abs abs_ acos acos_ asin asin_ atan atan_ atan2 ceil ceil_ cos cos_ tan tan_ cosh cosh_ cumsum
cumsum_ cummax cummin cumprod cumprod_ logcumsumexp logit logit_ exp exp_ expm1 expm1_ floor
floor_ increment log log_ log2 log2_ log10 log10_ multiplex pow pow_ reciprocal reciprocal_ all
any round round_ rsqrt rsqrt_ scale scale_ sign sin sin_ sinh sinh_ sqrt sqrt_ square square_
stanh sum nan_to_num nan_to_num_ nansum nanmean count_nonzero tanh tanh_ add_n max maximum amax
min minimum amin mm divide divide_ floor_divide floor_divide_ remainder remainder_ mod mod_
floor_mod floor_mod_ multiply multiply_ renorm renorm_ add add_ subtract subtract_ logsumexp
logaddexp inverse log1p log1p_ erf erf_ addmm addmm_ clip clip_ trace diagonal kron isfinite
isinf isnan isneginf isposinf isreal prod broadcast_shape conj trunc trunc_ frac frac_ digamma
digamma_ neg neg_ lgamma lgamma_ acosh acosh_ asinh asinh_ atanh atanh_ lerp lerp_ erfinv
erfinv_ rad2deg deg2rad gcd gcd_ lcm lcm_ diff angle fmax fmin inner outer heaviside sgn take
frexp ldexp ldexp_ trapezoid cumulative_trapezoid vander nextafter i0 i0_ i0e i1 i1e polygamma
polygamma_ hypot hypot_ signbit copysign copysign_ gammaln gammaln_ gammainc gammainc_ gammaincc
gammaincc_ sinc sinc_ multigammaln multigammaln_ baddbmm baddbmm_ isin clamp clamp_ negative
positive absolute arccos arcsin arctan arctan2 arccosh arcsinh arctanh true_divide mul sub div
bernoulli bernoulli_ binomial poisson multinomial standard_normal normal normal_ uniform
uniform_ randn rand randint randint_like randperm standard_gamma log_normal log_normal_
exponential_
argmax argmin argsort searchsorted bucketize masked_select topk where where_ index_select
nonzero sort kthvalue mode top_p_sampling
set_printoptions einsum seed get_rng_state set_rng_state get_cuda_rng_state set_cuda_rng_state
ParamAttr create_parameter CPUPlace IPUPlace CUDAPlace CUDAPinnedPlace CustomPlace XPUPlace
grad no_grad enable_grad set_grad_enabled is_grad_enabled save load DataParallel
set_default_dtype get_default_dtype index_sample mean std var numel median nanmedian quantile
nanquantile is_same_shape is_compiled_with_cuda is_compiled_with_rocm is_compiled_with_xpu
is_compiled_with_custom_device is_compiled_with_cinn is_compiled_with_distribute get_device
set_device device_guard summary flops Model callbacks check_shape vision text
""")

TENSOR_METHODS = _names("""
abs abs_ acos acos_ acosh acosh_ add add_ add_n addmm addmm_ all allclose amax amin angle any
arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin argsort as_complex as_real
as_strided asin asin_ asinh asinh_ astype atan atan_ atan2 atanh atanh_ atleast_1d atleast_2d
atleast_3d baddbmm baddbmm_ bernoulli_ bincount bitwise_and bitwise_and_ bitwise_left_shift
bitwise_left_shift_ bitwise_not bitwise_not_ bitwise_or bitwise_or_ bitwise_right_shift
bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm broadcast_shape broadcast_tensors broadcast_to
bucketize cast cast_ cauchy_ cdist ceil ceil_ cholesky cholesky_solve chunk clip clip_ clone
clamp clamp_ concat cond conj copysign copysign_ corrcoef cos cos_ cosh cosh_ count_nonzero cov
cross cummax cummin cumprod cumprod_ cumsum cumsum_ cumulative_trapezoid deg2rad det diag
diag_embed diagflat diagonal diagonal_scatter diff digamma digamma_ dist divide divide_ dot
dsplit eig eigvals eigvalsh equal equal_ equal_all erf erf_ erfinv erfinv_ exp exp_ expand
expand_as expm1 expm1_ exponential_ fill_ fill_diagonal_ fill_diagonal_tensor
fill_diagonal_tensor_ flatten flatten_ flip floor floor_ floor_divide floor_divide_ floor_mod
floor_mod_ fmax fmin frac frac_ frexp gammainc gammainc_ gammaincc gammaincc_ gammaln gammaln_
gather gather_nd gcd gcd_ geometric_ greater_equal greater_equal_ greater_than greater_than_
heaviside histogram histogramdd householder_product hsplit hypot hypot_ i0 i0_ i0e i1 i1e imag
increment index_add index_add_ index_fill index_fill_ index_put index_put_ index_sample
index_select inner inverse is_complex is_empty is_floating_point is_integer is_tensor isclose
isfinite isin isinf isnan isneginf isposinf isreal kron kthvalue lcm lcm_ ldexp ldexp_ lerp
lerp_ less less_equal less_equal_ less_than less_than_ lgamma lgamma_ log log10 log10_ log1p
log1p_ log2 log2_ log_ log_normal_ logaddexp logcumsumexp logical_and logical_and_ logical_not
logical_not_ logical_or logical_or_ logical_xor logical_xor_ logit logit_ logsumexp lstsq lu
lu_unpack masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select matmul
matrix_power max maximum mean median min minimum mm mod mod_ mode moveaxis multi_dot
multigammaln multigammaln_ multinomial multiplex multiply multiply_ mv nan_to_num nan_to_num_
nanmean nanmedian nanquantile nansum narrow neg neg_ negative nextafter nonzero norm normal_
not_equal not_equal_ numel outer pca_lowrank pinv polygamma polygamma_ positive pow pow_ prod
put_along_axis put_along_axis_ qr quantile rad2deg rank real reciprocal reciprocal_ remainder
remainder_ renorm renorm_ repeat_interleave reshape reshape_ reverse roll rot90 round round_
rsqrt rsqrt_ scale scale_ scatter scatter_ scatter_nd scatter_nd_add select_scatter sgn shard_index
sign signbit sin sin_ sinc sinc_ sinh sinh_ slice slice_scatter slogdet solve sort split sqrt
sqrt_ square square_ squeeze squeeze_ stack stanh std strided_slice subtract subtract_ sum svd
svd_lowrank t t_ take take_along_axis tan tan_ tanh tanh_ tensor_split tensordot tile tolist topk
trace transpose transpose_ trapezoid triangular_solve tril tril_ triu triu_ true_divide trunc
trunc_ unbind unflatten unfold uniform_ unique unique_consecutive unsqueeze unsqueeze_ unstack
vander var vsplit where where_ zero_ mul mul_ sub sub_ div div_ absolute view view_as
""")

# name -> reason it is left out (hardware, runtimes, dtypes or distributed training dy2st does
# not have); checked against every namespace.
EXCLUDED: Dict[str, str] = {}


def _exclude(reason: str, text: str) -> None:
    for name in text.split():
        EXCLUDED[name] = reason


_exclude("CUDA / XPU / custom devices and their RNG state",
         "CUDAPlace CUDAPinnedPlace IPUPlace XPUPlace CustomPlace get_cuda_rng_state "
         "set_cuda_rng_state is_compiled_with_cuda is_compiled_with_rocm is_compiled_with_xpu "
         "is_compiled_with_custom_device is_compiled_with_cinn flash_attention "
         "flash_attn_unpadded flash_attention_with_sparse_mask sparse_attention")
_exclude("distributed training", "DataParallel DistributedBatchSampler SyncBatchNorm "
         "is_compiled_with_distribute shard_index class_center_sample margin_cross_entropy")
_exclude("complex numbers", "complex complex64 complex128 is_complex real imag conj angle "
         "as_complex as_real polar isreal sgn eig eigvals")
_exclude("float8 / bfloat16", "bfloat16 float8_e4m3fn float8_e5m2 fp8_fp8_half_gemm_fused")
_exclude("the PIR runtime and the C++ flag registry", "in_pir_mode get_flags set_flags "
         "disable_signal_handler")
_exclude("the high-level hapi trainer (paddle.Model) and its callbacks, vision and text "
         "packages", "Model callbacks summary flops vision text")

NAMESPACES = {
    "paddle": PADDLE,
    "paddle.nn": NN,
    "paddle.nn.functional": FUNCTIONAL,
    "paddle.linalg": LINALG,
    "paddle.optimizer": OPTIMIZER,
    "paddle.io": IO,
    "paddle.metric": METRIC,
    "Tensor methods": TENSOR_METHODS,
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
