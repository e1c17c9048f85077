"""nn.functional: stateless neural-network functions (activations, linear, dropout, norms, losses)."""
from .activation import (elu, gelu, hardsigmoid, hardswish, hardtanh, leaky_relu, log_softmax, mish,
                         relu, relu6, sigmoid, silu, softmax, softplus, swish, tanh)
from .common import dropout, linear, pad
from .conv import conv2d
from .input import embedding, one_hot
from .loss import (cross_entropy, l1_loss, mse_loss, nll_loss, smooth_l1_loss,
                   softmax_with_cross_entropy)
from .norm import batch_norm, layer_norm, normalize

__all__ = ["elu", "gelu", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu", "log_softmax", "mish",
           "relu", "relu6", "sigmoid", "silu", "softmax", "softplus", "swish", "tanh", "dropout",
           "linear", "pad", "conv2d", "embedding", "one_hot", "cross_entropy", "l1_loss", "mse_loss",
           "nll_loss", "smooth_l1_loss", "softmax_with_cross_entropy", "batch_norm", "layer_norm",
           "normalize"]
from .loss import binary_cross_entropy, binary_cross_entropy_with_logits, kl_div  # noqa: E402
# CNN family (conv variants, pooling, norms, vision, padding, activations)
from .conv import conv1d, conv1d_transpose, conv2d_transpose, conv3d, conv3d_transpose
__all__ += ["conv1d", "conv1d_transpose", "conv2d_transpose", "conv3d", "conv3d_transpose"]
from .pooling import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
                      adaptive_max_pool2d, adaptive_max_pool3d, avg_pool1d, avg_pool2d, avg_pool3d,
                      max_pool1d, max_pool2d, max_pool3d)
__all__ += ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
            "adaptive_max_pool2d", "adaptive_max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
            "max_pool1d", "max_pool2d", "max_pool3d"]
from .activation_extra import (celu, glu, gumbel_softmax, hardshrink, log_sigmoid, maxout, prelu, rrelu,
                               selu, softshrink, softsign, tanhshrink, thresholded_relu)
__all__ += ["celu", "glu", "gumbel_softmax", "hardshrink", "log_sigmoid", "maxout", "prelu", "rrelu",
            "selu", "softshrink", "softsign", "tanhshrink", "thresholded_relu"]
from .group_norm import group_norm, instance_norm, local_response_norm
__all__ += ["group_norm", "instance_norm", "local_response_norm"]
from .vision import (affine_grid, channel_shuffle, fold, interpolate, pixel_shuffle, pixel_unshuffle, unfold,
                     upsample)
__all__ += ["affine_grid", "channel_shuffle", "fold", "interpolate", "pixel_shuffle", "pixel_unshuffle",
            "unfold", "upsample"]
from .grid_sample import grid_sample
__all__ += ["grid_sample"]
from .activation_extra import elu_, hardtanh_, leaky_relu_, relu_, softmax_, tanh_, thresholded_relu_
__all__ += ["elu_", "hardtanh_", "leaky_relu_", "relu_", "softmax_", "tanh_", "thresholded_relu_"]
from .unpool import lp_pool1d, lp_pool2d, max_unpool1d, max_unpool2d, max_unpool3d
__all__ += ["lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d", "max_unpool3d"]
from .padding import zeropad2d
__all__ += ["zeropad2d"]
from .sequence import cosine_similarity, gather_tree, label_smooth, sequence_mask
__all__ += ["cosine_similarity", "gather_tree", "label_smooth", "sequence_mask"]
from .attention import scaled_dot_product_attention
__all__ += ["scaled_dot_product_attention"]
from .loss import (cosine_embedding_loss, gaussian_nll_loss, hinge_embedding_loss,  # noqa: E402
                   margin_ranking_loss, poisson_nll_loss, triplet_margin_loss)
__all__ += ["cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss",
            "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss"]
from .loss import ctc_loss  # noqa: E402
__all__ += ["ctc_loss"]
from .distance import dropout2d, dropout3d, pairwise_distance, soft_margin_loss  # noqa: E402
__all__ += ["dropout2d", "dropout3d", "pairwise_distance", "soft_margin_loss"]
from .activation_extra import log_sigmoid as logsigmoid  # noqa: E402 - Paddle's older spelling
from .classic_losses import dice_loss, log_loss, sigmoid_focal_loss, square_error_cost  # noqa: E402
from .margin_losses import (multi_label_margin_loss, multi_label_soft_margin_loss,  # noqa: E402
                            multi_margin_loss, npair_loss, triplet_margin_with_distance_loss)
from .dropout_variants import alpha_dropout, dropout1d, feature_alpha_dropout  # noqa: E402
from .bilinear import bilinear  # noqa: E402
from .temporal_shift import temporal_shift  # noqa: E402
__all__ += ["logsigmoid", "dice_loss", "log_loss", "sigmoid_focal_loss", "square_error_cost",
            "multi_label_margin_loss", "multi_label_soft_margin_loss", "multi_margin_loss", "npair_loss",
            "triplet_margin_with_distance_loss", "alpha_dropout", "dropout1d", "feature_alpha_dropout",
            "bilinear", "temporal_shift"]
from .fractional_pool import fractional_max_pool2d, fractional_max_pool3d  # noqa: E402
__all__ += ["fractional_max_pool2d", "fractional_max_pool3d"]
from .softmax_approx import adaptive_log_softmax_with_loss, hsigmoid_loss  # noqa: E402
__all__ += ["adaptive_log_softmax_with_loss", "hsigmoid_loss"]
from .rnnt import rnnt_loss  # noqa: E402
__all__ += ["rnnt_loss"]
from .gated import rms_norm, swiglu  # noqa: E402
__all__ += ["rms_norm", "swiglu"]
