"""The concrete layers of dy2st.nn, one module per family."""
from .activation import (ELU, GELU, Hardswish, LeakyReLU, LogSoftmax, Mish, ReLU, ReLU6, Sigmoid,
                         Silu, Softmax, Softplus, Tanh)
from .common import Dropout, Embedding, Flatten, Identity, Linear, Pad
from .container import LayerDict, LayerList, ParameterList, Sequential
from .conv import Conv2D
from .loss import CrossEntropyLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss
from .norm import BatchNorm1D, BatchNorm2D, BatchNorm3D, LayerNorm, SyncBatchNorm

__all__ = ["ELU", "GELU", "Hardswish", "LeakyReLU", "LogSoftmax", "Mish", "ReLU", "ReLU6", "Sigmoid",
           "Silu", "Softmax", "Softplus", "Tanh", "Dropout", "Embedding", "Flatten", "Identity",
           "Linear", "Pad", "LayerDict", "LayerList", "ParameterList", "Sequential", "Conv2D",
           "CrossEntropyLoss", "L1Loss", "MSELoss", "NLLLoss", "SmoothL1Loss", "BatchNorm1D",
           "BatchNorm2D", "BatchNorm3D", "LayerNorm", "SyncBatchNorm"]
from .loss import BCELoss, BCEWithLogitsLoss, KLDivLoss  # noqa: E402
__all__ += ["BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]
# CNN family (conv variants, pooling, norms, vision, padding, activations)
from .conv import Conv1D, Conv1DTranspose, Conv2DTranspose, Conv3D, Conv3DTranspose
__all__ += ["Conv1D", "Conv1DTranspose", "Conv2DTranspose", "Conv3D", "Conv3DTranspose"]
from .pooling import (AdaptiveAvgPool1D, AdaptiveAvgPool2D, AdaptiveAvgPool3D, AdaptiveMaxPool1D,
                      AdaptiveMaxPool2D, AdaptiveMaxPool3D, AvgPool1D, AvgPool2D, AvgPool3D, MaxPool1D,
                      MaxPool2D, MaxPool3D)
__all__ += ["AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool1D",
            "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "MaxPool1D",
            "MaxPool2D", "MaxPool3D"]
from .activation_extra import (CELU, GLU, PReLU, RReLU, SELU, Hardshrink, Hardsigmoid, Hardtanh, LogSigmoid,
                               Maxout, SiLU, Softmax2D, Softshrink, Softsign, Swish, Tanhshrink,
                               ThresholdedReLU)
__all__ += ["CELU", "GLU", "PReLU", "RReLU", "SELU", "Hardshrink", "Hardsigmoid", "Hardtanh", "LogSigmoid",
            "Maxout", "SiLU", "Softmax2D", "Softshrink", "Softsign", "Swish", "Tanhshrink", "ThresholdedReLU"]
from .fluid_batch_norm import BatchNorm
from .group_norm import GroupNorm, InstanceNorm1D, InstanceNorm2D, InstanceNorm3D, LocalResponseNorm
__all__ += ["BatchNorm", "GroupNorm", "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "LocalResponseNorm"]
from .padding import Pad1D, Pad2D, Pad3D, ZeroPad1D, ZeroPad2D, ZeroPad3D
from .vision import (ChannelShuffle, Fold, PixelShuffle, PixelUnshuffle, Unfold, Upsample, UpsamplingBilinear2D,
                     UpsamplingNearest2D)
__all__ += ["Pad1D", "Pad2D", "Pad3D", "ZeroPad1D", "ZeroPad2D", "ZeroPad3D", "ChannelShuffle", "Fold",
            "PixelShuffle", "PixelUnshuffle", "Unfold", "Upsample", "UpsamplingBilinear2D", "UpsamplingNearest2D"]
from .pooling import LPPool1D, LPPool2D, MaxUnPool1D, MaxUnPool2D, MaxUnPool3D
__all__ += ["LPPool1D", "LPPool2D", "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D"]
from .rnn import GRU, LSTM, RNN, BiRNN, GRUCell, LSTMCell, RNNCellBase, SimpleRNN, SimpleRNNCell
__all__ += ["GRU", "LSTM", "RNN", "BiRNN", "GRUCell", "LSTMCell", "RNNCellBase", "SimpleRNN", "SimpleRNNCell"]
from .transformer import (MultiHeadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,
                          TransformerEncoder, TransformerEncoderLayer)
__all__ += ["MultiHeadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer",
            "TransformerEncoder", "TransformerEncoderLayer"]
from .loss import (CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss,  # noqa: E402
                   MarginRankingLoss, PoissonNLLLoss, TripletMarginLoss)
__all__ += ["CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
            "PoissonNLLLoss", "TripletMarginLoss"]
from .loss import CTCLoss  # noqa: E402
__all__ += ["CTCLoss"]
from .distance import (CosineSimilarity, Dropout2D, Dropout3D, PairwiseDistance,  # noqa: E402
                       SoftMarginLoss, Unflatten)
__all__ += ["CosineSimilarity", "Dropout2D", "Dropout3D", "PairwiseDistance", "SoftMarginLoss",
            "Unflatten"]
from .padding import (CircularPad1D, CircularPad1d, CircularPad2D, CircularPad2d,  # noqa: E402
                      CircularPad3D, CircularPad3d, ConstantPad1D, ConstantPad1d, ConstantPad2D,
                      ConstantPad2d, ConstantPad3D, ConstantPad3d, ReflectionPad1D, ReflectionPad1d,
                      ReflectionPad2D, ReflectionPad2d, ReflectionPad3D, ReflectionPad3d,
                      ReplicationPad1D, ReplicationPad1d, ReplicationPad2D, ReplicationPad2d,
                      ReplicationPad3D, ReplicationPad3d)
__all__ += ["CircularPad1D", "CircularPad1d", "CircularPad2D", "CircularPad2d", "CircularPad3D",
            "CircularPad3d", "ConstantPad1D", "ConstantPad1d", "ConstantPad2D", "ConstantPad2d",
            "ConstantPad3D", "ConstantPad3d", "ReflectionPad1D", "ReflectionPad1d", "ReflectionPad2D",
            "ReflectionPad2d", "ReflectionPad3D", "ReflectionPad3d", "ReplicationPad1D",
            "ReplicationPad1d", "ReplicationPad2D", "ReplicationPad2d", "ReplicationPad3D",
            "ReplicationPad3d"]
from .container import ParameterDict  # noqa: E402
from .compat import (AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, Conv1d,  # noqa: E402
                     Conv2d, Conv3d, LPPool1d, LPPool2d, Module, ModuleDict, ModuleList, Parameter)
__all__ += ["ParameterDict", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "Conv1d",
            "Conv2d", "Conv3d", "LPPool1d", "LPPool2d", "Module", "ModuleDict", "ModuleList", "Parameter"]
from .margin_losses import (MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,  # noqa: E402
                            TripletMarginWithDistanceLoss)
from .dropout_variants import AlphaDropout, FeatureAlphaDropout  # noqa: E402
from .bilinear import Bilinear  # noqa: E402
__all__ += ["MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
            "TripletMarginWithDistanceLoss", "AlphaDropout", "FeatureAlphaDropout", "Bilinear"]
from .decode import BeamSearchDecoder, dynamic_decode  # noqa: E402
__all__ += ["BeamSearchDecoder", "dynamic_decode"]
from .spectral_norm import SpectralNorm  # noqa: E402
__all__ += ["SpectralNorm"]
from .pooling import FractionalMaxPool2D, FractionalMaxPool3D  # noqa: E402
__all__ += ["FractionalMaxPool2D", "FractionalMaxPool3D"]
from .loss import RNNTLoss  # noqa: E402
from .softmax_approx import AdaptiveLogSoftmaxWithLoss, HSigmoidLoss  # noqa: E402
__all__ += ["RNNTLoss", "AdaptiveLogSoftmaxWithLoss", "HSigmoidLoss"]
