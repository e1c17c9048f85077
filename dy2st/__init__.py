"""dy2st: Paddle-style eager code on numpy, converted to static graphs by rewriting its source."""
from __future__ import annotations

from .runtime import ops as _ops
from .runtime.config import get_default_dtype, seed, set_default_dtype
from .runtime.dtype import (DType, bool_ as bool, float16, float32, float64, int8, int16, int32,
                            int64, uint8)
from .runtime.ops import *  # noqa: F401,F403 - the public op functions
from .runtime.ops import is_tensor
from .runtime.tensor import Parameter, Tensor

from . import autograd  # noqa: E402
from .autograd import (enable_grad, grad, is_grad_enabled, no_grad,  # noqa: E402
                       set_grad_enabled)
from . import linalg  # noqa: E402
from . import nn  # noqa: E402
from . import static  # noqa: E402
from . import tensor  # noqa: E402
from . import jit  # noqa: E402

__version__ = "0.1.0"

ParamAttr = nn.ParamAttr

dtype = DType

from . import regularizer  # noqa: E402
from . import optimizer  # noqa: E402
from . import io  # noqa: E402
from .io import load, save  # noqa: E402
from . import onnx  # noqa: E402
from . import metric  # noqa: E402
from . import utils  # noqa: E402
from .runtime.ops.linalg import inv as inverse  # noqa: E402
from .runtime.ops import assign as clone  # noqa: E402
from .utils.framework import (CPUPlace, batch, create_parameter, finfo, get_device,  # noqa: E402
                              get_rng_state, iinfo, in_dynamic_mode, is_empty,
                              is_floating_point, is_integer, is_same_shape, set_device,
                              set_printoptions, set_rng_state, tolist)
from .utils.inplace import inplace_functions as _inplace_functions  # noqa: E402
from .utils.inplace import install_methods as _install_methods  # noqa: E402
globals().update({_k: _v for _k, _v in _inplace_functions().items() if _k not in globals()})
_install_methods()
from .static.mode import disable_static, enable_static  # noqa: E402,F401
from .utils.tensor_types import TENSOR_TYPES as _TENSOR_TYPES  # noqa: E402
from .utils.tensor_types import as_tensor, e, inf, nan, newaxis, pi  # noqa: E402,F401
globals().update(_TENSOR_TYPES)
from .utils.device import (is_compiled_with_cuda, is_compiled_with_rocm,  # noqa: E402,F401
                           is_compiled_with_xpu, is_compiled_with_custom_device)
from .utils.device import install_methods as _install_device_methods  # noqa: E402
_install_device_methods()
from . import base  # noqa: E402,F401
