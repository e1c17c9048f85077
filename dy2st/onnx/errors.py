"""Errors of ONNX export: an op or construct that ONNX cannot express, a missing `onnx` package."""
from __future__ import annotations

from typing import Any, Optional


def where_text(origin: Any) -> str:
    """` (File "f.py", line 12: x = y + 1)` for an op's user origin, or ``."""
    if origin is None:
        return ""
    source = f": {origin.source.strip()}" if getattr(origin, "source", "") else ""
    return f' (File "{origin.file}", line {origin.line}{source})'


class NotExportableError(ValueError):
    """The Program uses an op (or a form of an op) that has no ONNX lowering."""

    def __init__(self, op_type: str, reason: str, origin: Optional[Any] = None) -> None:
        super().__init__(f"not exportable to ONNX: op {op_type}{where_text(origin)}: {reason}")
        self.op_type = op_type
        self.dy2st_origin = origin


class OnnxMissingError(ImportError):
    """The optional `onnx` package is not installed."""


def import_onnx() -> Any:
    """The `onnx` module, or a clear OnnxMissingError telling how to install it."""
    try:
        import onnx
        from onnx import helper, numpy_helper  # noqa: F401 - the parts the export uses
    except ImportError as e:
        raise OnnxMissingError(
            "ONNX export needs the `onnx` package, which is not installed "
            f"({e}); install it with: pip install \"dy2st[onnx]\" (or pip install onnx)") from None
    return onnx
