"""dy2st.nn: Paddle-style layers (nn.Layer and friends), nn.functional and nn.initializer."""
from . import functional, initializer
from .layer import Layer
from .layers import *  # noqa: F401,F403 - every concrete layer
from .naming import reset_name_counters
from .param_attr import ParamAttr
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
