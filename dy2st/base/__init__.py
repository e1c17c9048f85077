"""paddle.base: the names Paddle model code still reaches through this namespace
(`base.ParamAttr`, `base.dygraph.to_variable`, `base.dygraph.guard`, device queries,
`base.data_feeder.convert_dtype`)."""
from __future__ import annotations

from ..nn.param_attr import ParamAttr
from ..utils.device import is_compiled_with_cuda, is_compiled_with_rocm, is_compiled_with_xpu
from ..utils.framework import CPUPlace
from . import data_feeder, dygraph

__all__ = ["ParamAttr", "CPUPlace", "data_feeder", "dygraph", "is_compiled_with_cuda", "is_compiled_with_rocm",
           "is_compiled_with_xpu"]
