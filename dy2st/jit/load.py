"""`dy2st.jit.load(path)`: a saved model as a TranslatedLayer."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Optional

from ..format.npy_member import DEFAULT_MAX_COMPRESSION_RATIO
from ..runtime.loop_limit import set_loop_limit

if TYPE_CHECKING:
    from .translated_layer import TranslatedLayer


def load(path: "str | os.PathLike[str]", backend: Optional[str] = None,
         max_compression_ratio: Optional[float] = DEFAULT_MAX_COMPRESSION_RATIO,
         max_loop_iterations: Optional[int] = None, **configs: Any) -> TranslatedLayer:
    """Load the model saved by `jit.save(..., path)` (raises ModelFormatError for bad files).
    `backend` runs it: None ($DY2ST_BACKEND, else "numpy"), "numpy" or "xla".

    Only regular files are read (a FIFO, device or directory is refused, never waited on). A
    compressed parameter member inflating to more than `max_compression_ratio` times its
    compressed size is refused as a decompression bomb (None: no bound, for trusted files).
    `max_loop_iterations` bounds the turns of each while loop per call (None: unbounded); a
    loop going past it raises LoopLimitError naming the loop's op and the user's line.
    `configs` (checked by jit.api.load) name Paddle's file layout and change nothing here."""
    # imported here: a TranslatedLayer is an nn.Layer, and nn is off the path of `import dy2st.jit`
    from ..format import read_model

    # lazy: keeps jit.translated_layer out of a first to_static call (loaded on first use)
    from .translated_layer import TranslatedLayer
    model = read_model(path, max_compression_ratio)
    set_loop_limit(model.concrete.program, max_loop_iterations)
    return TranslatedLayer(model.concrete, model.extra, source=model.json_path, backend=backend)
