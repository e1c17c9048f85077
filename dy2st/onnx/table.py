"""The lowering table: every registered op either has an ONNX lowering or is listed here as not
exportable, with the reason. The op-family modules fill the table when they are imported
(onnx/lowerings.py imports them all)."""
from __future__ import annotations

from typing import Callable, Dict, NamedTuple

MIN_OPSET = 13          # every lowering is written for opset 13 and newer
DEFAULT_OPSET = 18      # recent, and run by every current onnxruntime


class Lowering(NamedTuple):
    fn: Callable
    min_opset: int


LOWERINGS: Dict[str, Lowering] = {}
NOT_EXPORTABLE: Dict[str, str] = {}
# ops whose value is computed at export time when all their inputs are constants
FOLDABLE: Dict[str, bool] = {}


def lowers(*names: str, min_opset: int = MIN_OPSET, fold: bool = True) -> Callable:
    """Declare the decorated `fn(cx) -> [onnx output names]` as the lowering of ops `names`."""
    def deco(fn: Callable) -> Callable:
        for name in names:
            if name in LOWERINGS or name in NOT_EXPORTABLE:
                raise ValueError(f"op {name!r} has two ONNX lowerings")
            LOWERINGS[name] = Lowering(fn, min_opset)
            FOLDABLE[name] = fold
        return fn
    return deco


def not_exportable(reason: str, *names: str) -> None:
    """List ops that no ONNX graph can express (or that have no lowering yet), with why."""
    for name in names:
        if name in LOWERINGS or name in NOT_EXPORTABLE:
            raise ValueError(f"op {name!r} is listed twice in the ONNX table")
        NOT_EXPORTABLE[name] = reason

