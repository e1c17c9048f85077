"""The front end from eager code to static graphs: to_static, StaticFunction, caches, error
mapping, save/load and explain (the `_jst` runtime is dy2st.jst, the model format dy2st.format)."""
from __future__ import annotations

from . import convert_call  # noqa: F401 - installs the call converter and the Layer hook
from .options import ignore_module, not_to_static, options
from .errors import ConversionError
from ..format.errors import ModelFormatError
from .static_function import StaticFunction, to_static
from . import load as _load_module  # noqa: F401 - imported first so `load` below stays the function
from .api import enable_to_static, save, load, set_code_level, set_verbosity, to_code
from .api import explain
from .graph import to_dot

__all__ = ["to_static", "StaticFunction", "not_to_static", "ignore_module", "enable_to_static",
           "save", "load", "set_verbosity", "set_code_level", "to_code", "ConversionError",
           "ModelFormatError", "explain", "to_dot"]
