"""`dy2st.onnx.export`: convert a Layer, function or loaded model, lower its Program to ONNX,
check the model with onnx.checker (shape inference included) and write PATH.onnx atomically."""
from __future__ import annotations

import os
import tempfile
from typing import Any, Optional, Sequence

from ..jit.api import prune_for_export, trace_for_export
from ..jit.keywords import check_keywords
from ..jit.options import ONNX_EXPORT_KEYWORDS
from ..jit.static_function import StaticFunction
from ..jit.translated_layer import TranslatedLayer
from . import table
from .errors import import_onnx

# protobuf cannot serialize a model of 2 GB or more: larger parameters go to an external file
EXTERNAL_DATA_THRESHOLD = 2 ** 31 - 2 ** 26


def export(layer: Any, path: str, input_spec: Optional[Sequence[Any]] = None,
           opset_version: Optional[int] = None, **configs: Any) -> None:
    """Write `path + ".onnx"`: the ONNX model of `layer` (a Layer, a function, a to_static
    function, or a model loaded with jit.load), traced with `input_spec` (None dims become
    named symbolic dims). Raises NotExportableError naming the op and the user's line when the
    Program uses an op ONNX cannot express; nothing is written then."""
    check_keywords("onnx.export", configs, ONNX_EXPORT_KEYWORDS,
                   ("layer", "path", "input_spec", "opset_version"))
    onnx = import_onnx()
    opset = _check_opset(onnx, opset_version)
    if not isinstance(path, str) or not path:
        raise ValueError("onnx.export needs a non-empty path prefix")
    concrete, name = concrete_of(layer, input_spec, **configs)
    # the lowering table (every op family) loads on the first export, not with paddle.onnx
    from .model import build_model
    model = build_model(concrete, opset, onnx, doc=f"{name}, exported by dy2st")
    write_checked(onnx, model, path + ".onnx")


def concrete_of(layer: Any, input_spec: Optional[Sequence[Any]], **configs: Any) -> Any:
    """(ConcreteProgram, name) of what to export."""
    if isinstance(layer, TranslatedLayer):
        if input_spec is not None:
            raise ValueError("onnx.export: a loaded model keeps its saved input specs; do not "
                             "pass input_spec")
        return layer.concrete_program, layer.extra.get("function", "model")
    if isinstance(layer, StaticFunction) and not layer._full_graph:
        # an ONNX model is one graph: convert as full_graph=True does, so that a statement that
        # would break the graph fails naming its line instead of leaving a hole in the model
        layer = StaticFunction(layer._function, layer._input_spec, True, instance=layer._instance)
    sf, concrete = trace_for_export(layer, input_spec, "onnx.export", **configs)
    prune_for_export(sf, concrete, input_spec, configs)
    return concrete, sf.__name__


def _check_opset(onnx: Any, opset_version: Optional[int]) -> int:
    if opset_version is None:
        return table.DEFAULT_OPSET
    newest = onnx.defs.onnx_opset_version()
    if isinstance(opset_version, bool) or not isinstance(opset_version, int):
        raise TypeError(f"opset_version must be an int, got {type(opset_version).__name__}")
    if not table.MIN_OPSET <= opset_version <= newest:
        raise ValueError(f"opset_version {opset_version} is not supported: dy2st exports ONNX "
                         f"opsets {table.MIN_OPSET} to {newest} (the installed onnx's newest)")
    return opset_version


def write_checked(onnx: Any, model: Any, target: str) -> None:
    """Check `model` (full check: shape inference included) and write it to `target`; on any
    failure nothing is left behind (an existing file at `target` is kept)."""
    folder = os.path.dirname(os.path.abspath(target))
    big = sum(t.ByteSize() for t in model.graph.initializer) > EXTERNAL_DATA_THRESHOLD
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".onnx", dir=folder)
    os.close(fd)
    data = os.path.basename(target) + ".data"
    try:
        if big:
            onnx.save_model(model, tmp, save_as_external_data=True, all_tensors_to_one_file=True,
                            location=data, size_threshold=1024)
            onnx.checker.check_model(tmp, full_check=True)
        else:
            onnx.checker.check_model(model, full_check=True)
            onnx.save_model(model, tmp)
        os.replace(tmp, target)
    except BaseException:
        for leftover in (tmp, os.path.join(folder, data) if big else None):
            if leftover and os.path.exists(leftover):
                os.remove(leftover)
        raise
