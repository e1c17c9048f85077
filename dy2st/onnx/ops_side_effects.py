"""Ops run for their effects. An ONNX graph cannot print or raise: `print` is left out, and the
run-time checks (`assert`, `raise`, `check_defined`) are left out with a warning naming the
user's line, since the exported model then computes on where dy2st would have stopped."""
from __future__ import annotations

import warnings
from typing import List

from ..runtime.side_effects import REFUSED
from ..runtime.widened import WIDENED
from .builder import OpContext
from .errors import NotExportableError
from .table import lowers


@lowers("print", fold=False)
def print_(cx: OpContext) -> List[str]:
    return []


class UncheckedWarning(UserWarning):
    """A run-time check of the Program that the exported ONNX model does not make."""


@lowers("assert", "raise", "check_defined", fold=False)
def run_time_check(cx: OpContext) -> List[str]:
    if cx.op.type == "check_defined" and cx.attrs.get("name") == REFUSED:
        # without the check the model would compute a placeholder's zeros: refuse instead
        raise NotExportableError("check_defined", cx.attrs["where"], cx.op.origin)
    what = {"assert": "the assertion", "raise": "the exception raised",
            "check_defined": "the check that a variable is assigned"}[cx.op.type]
    if cx.op.type == "check_defined" and cx.attrs.get("name") == WIDENED:
        what = ("the check that a tensor loop that widens a variable's dtype ran a turn (where "
                "it ran none, the model gives the widened dtype; eager code keeps the old one)")
    warnings.warn(f"ONNX export: {what}{cx.where()} is not checked by the exported model "
                  "(ONNX graphs cannot raise errors)", UncheckedWarning, stacklevel=2)
    return []
