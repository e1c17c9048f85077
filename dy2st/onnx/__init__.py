"""ONNX export (`dy2st.onnx.export`, as `paddle.onnx.export`): a converted model, control flow
included, as a standard ONNX model. Needs the optional `onnx` package, imported on export only."""
from __future__ import annotations

from .errors import NotExportableError, OnnxMissingError
from .export import export

__all__ = ["export", "NotExportableError", "OnnxMissingError"]
