"""paddle.static.amp: mixed-precision training of static Programs (decorate, the op lists,
fp16_guard) and its bf16 submodule; built on dy2st.amp's rules for each op."""
from __future__ import annotations

from . import bf16, decorator, fp16_lists
from .decorator import OptimizerWithMixedPrecision, decorate
from .fp16_lists import AutoMixedPrecisionLists, CustomOpLists
from .rewrite import fp16_guard, rewrite_program

__all__ = ["decorate", "AutoMixedPrecisionLists", "CustomOpLists", "fp16_guard", "bf16",
           "OptimizerWithMixedPrecision", "rewrite_program", "decorator", "fp16_lists"]
