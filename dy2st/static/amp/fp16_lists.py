"""paddle.static.amp's op lists: AutoMixedPrecisionLists (CustomOpLists) with Paddle 3.3.1's
white / black / gray sets of op names, updated by the user's custom lists."""
from __future__ import annotations

from typing import Any, Iterable, Optional, Set

from ...amp import lists
from ...runtime.dtype import dtype_text

__all__ = ["AutoMixedPrecisionLists", "CustomOpLists", "check_amp_dtype"]


def check_amp_dtype(dtype: Any) -> str:
    name = dtype_text(dtype)
    if name not in ("float16", "bfloat16"):
        raise ValueError("If enable AMP, dtype should be 'float16' or 'bfloat16'.")
    return name


def check_overlap(white: Optional[Iterable[str]], black: Optional[Iterable[str]],
                  what: str = "custom_white_list overlaps custom_black_list") -> None:
    if white and black:
        for name in white:
            if name in set(black):
                raise ValueError(f"The given {what} with < {name} >!")


class AutoMixedPrecisionLists:
    """The ops a mixed-precision static program runs in `dtype` (white_list), in float32
    (black_list) and in their inputs' precision (gray_list), by Paddle op name (dy2st op names
    work too). A custom white name leaves the black / gray list, a custom black name the white /
    gray list; the ops reading or writing a variable of custom_black_varnames run in float32."""

    def __init__(self, custom_white_list: Optional[Iterable[str]] = None,
                 custom_black_list: Optional[Iterable[str]] = None,
                 custom_black_varnames: Optional[Iterable[str]] = None,
                 dtype: str = "float16") -> None:
        self.amp_dtype = check_amp_dtype(dtype)
        self._custom_white_list = custom_white_list
        self._custom_black_list = custom_black_list
        white = set(lists.FP16_WHITE_LIST)
        if self.amp_dtype == "float16":
            white |= lists.STATIC_FP16_EXTRA_WHITE
        self.white_list: Set[str] = white
        self.black_list: Set[str] = set(lists.FP16_BLACK_LIST | lists.EXTRA_BLACK_LIST)
        self.gray_list: Set[str] = set(lists.GRAY_LIST)
        self.black_varnames = None if custom_black_varnames is None else set(custom_black_varnames)
        self._update_list()

    def _update_list(self) -> None:
        check_overlap(self._custom_white_list, self._custom_black_list)
        for name in self._custom_white_list or ():
            self.black_list.discard(name)
            self.gray_list.discard(name)
            self.white_list.add(name)
        for name in self._custom_black_list or ():
            self.white_list.discard(name)
            self.gray_list.discard(name)
            self.black_list.add(name)

    def low_precision(self) -> Set[str]:
        """The ops run in amp_dtype (Paddle names as given, and their dy2st names)."""
        white = set(self.white_list) | set(lists.dy2st_names(self.white_list)) | {"linear"}
        return white - self.full_precision()

    def full_precision(self) -> Set[str]:
        """The ops run in float32."""
        return set(self.black_list) | set(lists.dy2st_names(self.black_list))


CustomOpLists = AutoMixedPrecisionLists
