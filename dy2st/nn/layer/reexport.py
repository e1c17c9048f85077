"""The public classes of some dy2st.nn.layers modules, for the Paddle module paths under
paddle.nn.layer (`paddle.nn.layer.activation.ReLU`) that model zoos import from."""
from __future__ import annotations

import types
from typing import Any, Dict


def classes_of(*modules: types.ModuleType) -> Dict[str, Any]:
    """name -> class for every public class defined (not imported) in `modules`."""
    out: Dict[str, Any] = {}
    for module in modules:
        for name, value in vars(module).items():
            if isinstance(value, type) and not name.startswith("_") \
                    and value.__module__ == module.__name__:
                out[name] = value
    return out
