"""`dy2st.jit.load(path)`: a saved model as a TranslatedLayer."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from .translated_layer import TranslatedLayer


def load(path: "str | os.PathLike[str]", backend: Optional[str] = None,
         **configs: Any) -> TranslatedLayer:
    """Load the model saved by `jit.save(..., path)` (raises ModelFormatError for bad files).
    `backend` runs it: None ($DY2ST_BACKEND, else "numpy"), "numpy" or "xla"."""
    # imported here: a TranslatedLayer is an nn.Layer, and nn is off the path of `import dy2st.jit`
    from ..format import read_model
    from .translated_layer import TranslatedLayer
    model = read_model(os.fspath(path))
    return TranslatedLayer(model.concrete, model.extra, source=model.json_path, backend=backend)
