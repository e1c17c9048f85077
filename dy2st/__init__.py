"""dy2st: Paddle-style eager code on numpy, converted to static graphs by rewriting its source."""
from __future__ import annotations

from .runtime import ops as _ops
from .runtime.config import get_default_dtype, set_default_dtype
from .runtime.generator import Generator, seed
from .runtime.size import Size
from .runtime.dtype import (DType, bool_ as bool, complex64, complex128, float16, float32,
                            float64, int8, int16, int32, int64, uint8, uint32,
                            uint64)
from .runtime.ops import *  # noqa: F401,F403 - the public op functions
from .runtime.ops import is_tensor
from .runtime.tensor import Parameter, Tensor

from . import autograd  # noqa: E402
from .autograd import (enable_grad, grad, is_grad_enabled, no_grad,  # noqa: E402
                       set_grad_enabled)
from . import linalg  # noqa: E402

from .runtime.version import __version__  # noqa: E402

dtype = DType
# Paddle 3.3.1's torch-style dtype aliases
double, float, half, cfloat, cdouble = float64, float32, float16, complex64, complex128
manual_seed = seed

from .runtime.ops.linalg import inv as inverse  # noqa: E402
from .runtime.ops import assign as clone  # noqa: E402
from .utils.framework import (CPUPlace, batch, create_parameter, finfo, get_device,  # noqa: E402
                              CUDAPinnedPlace, CUDAPlace, get_rng_state, iinfo, in_dynamic_mode, is_empty,
                              is_floating_point, is_integer, is_same_shape, set_device,
                              set_printoptions, set_rng_state, tolist)
from .utils.inplace import inplace_functions as _inplace_functions  # noqa: E402
from .utils.inplace import install_methods as _install_methods  # noqa: E402
globals().update({_k: _v for _k, _v in _inplace_functions().items() if _k not in globals()})
_install_methods()
from .runtime.lazy import lazy_getattr as _lazy_getattr_for  # noqa: E402
from .utils.tensor_types import TENSOR_TYPES as _TENSOR_TYPES  # noqa: E402
from .utils.tensor_types import (as_tensor, asarray, e, from_numpy, inf, nan,  # noqa: E402,F401
                                 newaxis, pi)
globals().update(_TENSOR_TYPES)
from .utils.device import (is_compiled_with_cuda, is_compiled_with_rocm,  # noqa: E402,F401
                           is_compiled_with_xpu, is_compiled_with_custom_device)
from .utils.device import install_methods as _install_device_methods  # noqa: E402
_install_device_methods()
from .utils.framework import install_methods as _install_framework_methods  # noqa: E402
_install_framework_methods()

# Public names imported on first use, so that `import dy2st` stays cheap (benchmarks/cold_start.py).
# One entry per line, "name": "module" (a dy2st submodule) or "module:attribute"; add new
# subpackages and names re-exported from them here rather than as eager imports.
_LAZY = {
    "nn": "nn",
    "ParamAttr": "nn:ParamAttr",
    "static": "static",
    "tensor": "tensor",
    "jit": "jit",
    "regularizer": "regularizer",
    "optimizer": "optimizer",
    "io": "io",
    "load": "io:load",
    "save": "io:save",
    "onnx": "onnx",
    "metric": "metric",
    "disable_static": "static.mode:disable_static",
    "enable_static": "static.mode:enable_static",
    "base": "base",
    "hapi": "hapi",
    "Model": "hapi.model:Model",
    "summary": "hapi.summary:summary",
    "flops": "hapi.flops:flops",
    "callbacks": "hapi.callbacks",
    "LazyGuard": "nn.lazy_init:LazyGuard",
    "check_shape": "utils.data_feeder:check_shape",
    "device": "device",
    "amp": "amp",
    "vision": "vision",
    "incubate": "incubate",
    "distributed": "distributed",
    "DataParallel": "distributed.parallel:DataParallel",
    "fft": "fft",
    "signal": "signal",
    "bfloat16": "runtime.dtype:bfloat16",
    "is_autocast_enabled": "amp.auto_cast:is_autocast_enabled",
    "get_autocast_dtype": "amp.auto_cast:get_autocast_dtype",
    "get_autocast_cpu_dtype": "amp.auto_cast:get_autocast_cpu_dtype",
    "get_autocast_gpu_dtype": "amp.auto_cast:get_autocast_gpu_dtype",
    "autocast": "amp.auto_cast:autocast",
    "conv1d": "nn.functional:conv1d",
    "conv2d": "nn.functional:conv2d",
    "conv3d": "nn.functional:conv3d",
    "group_norm": "nn.functional:group_norm",
    "layer_norm": "nn.functional:layer_norm",
    "adaptive_avg_pool1d": "nn.functional:adaptive_avg_pool1d",
    "enable_compat": "utils.torch_proxy:enable_compat",
    "disable_compat": "utils.torch_proxy:disable_compat",
}


_lazy_getattr = _lazy_getattr_for(__name__, _LAZY, globals())


def __getattr__(name: str):
    if name == "__all__":       # `from dy2st import *` gets the lazy names too
        return sorted({n for n in globals() if not n.startswith("_")} | set(_LAZY))
    return _lazy_getattr(name)


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
