"""paddle.static.amp.bf16: bfloat16 mixed precision of static Programs (AutoMixedPrecisionListsBF16,
bf16_guard, decorate_bf16), the float16 machinery with bfloat16 and its lists."""
from __future__ import annotations

from typing import Any, Iterable, Optional, Set

from ....amp import lists
from ..decorator import OptimizerWithMixedPrecision
from ..fp16_lists import AutoMixedPrecisionLists, check_overlap
from ..rewrite import fp16_guard

__all__ = ["AutoMixedPrecisionListsBF16", "bf16_guard", "decorate_bf16"]

bf16_guard = fp16_guard


class AutoMixedPrecisionListsBF16(AutoMixedPrecisionLists):
    """Paddle's bfloat16 lists: bf16_list (run in bfloat16), fp32_list (float32), gray_list
    (their inputs' precision), fp32_varnames; white_list / black_list / black_varnames are the
    same sets under the float16 lists' names."""

    def __init__(self, custom_bf16_list: Optional[Iterable[str]] = None,
                 custom_fp32_list: Optional[Iterable[str]] = None,
                 custom_fp32_varnames: Optional[Iterable[str]] = None) -> None:
        check_overlap(custom_bf16_list, custom_fp32_list,
                      "custom_bf16_list overlaps custom_fp32_list")
        self.amp_dtype = "bfloat16"
        self._custom_white_list, self._custom_black_list = custom_bf16_list, custom_fp32_list
        self.white_list: Set[str] = set(lists.BF16_WHITE_LIST)
        self.black_list: Set[str] = set(lists.STATIC_BF16_FP32_LIST)
        self.gray_list: Set[str] = set(lists.GRAY_LIST)
        self.black_varnames = None if custom_fp32_varnames is None else set(custom_fp32_varnames)
        self._update_list()

    @property
    def bf16_list(self) -> Set[str]:
        return self.white_list

    @property
    def fp32_list(self) -> Set[str]:
        return self.black_list

    @property
    def fp32_varnames(self) -> Any:
        return self.black_varnames


def decorate_bf16(optimizer: Any, amp_lists: Optional[AutoMixedPrecisionListsBF16] = None,
                  use_pure_bf16: bool = False, use_bf16_guard: Optional[bool] = None
                  ) -> OptimizerWithMixedPrecision:
    """The optimizer of bfloat16 training: O1 with the bf16 lists (O2 with use_pure_bf16; only
    the ops inside bf16_guard blocks then, when use_bf16_guard, which defaults to
    use_pure_bf16). bfloat16 needs no loss scaling: the scaling stays 1."""
    guard = use_pure_bf16 if use_bf16_guard is None else use_bf16_guard
    return OptimizerWithMixedPrecision(
        optimizer, amp_lists or AutoMixedPrecisionListsBF16(), "O2" if use_pure_bf16 else "O1",
        "bfloat16", 1.0, False, 1000, 2, 2.0, 0.5, use_amp_guard=bool(guard))
