"""The saved-model format: a versioned JSON graph plus an .npz of parameters (docs/format.md).

Loading never runs code and never unpickles: every field is checked before objects are built."""
# Modules, from the bottom up: errors, fields (checked field reads), header (format identity),
# codec (attr values <-> JSON), jsontext (JSON text in/out), program_doc (Program -> JSON),
# attr_schema + validate + build (JSON -> checked ConcreteProgram), npz (parameters file, read
# member by member), atomic (durable writes, the save lock), files (save_concrete / read_model).
from ..runtime.lazy import lazy_getattr
from .errors import ModelFormatError

# The rest loads on first use: `import dy2st.jit` needs only ModelFormatError, and saving and
# loading models (json, hashing, the builders) are off the path of a first to_static call.
_LAZY = {
    "build_concrete": "build", "decode_value": "codec", "encode_value": "codec",
    "LoadedModel": "files", "load_concrete": "files", "model_prefix": "files",
    "read_model": "files", "save_concrete": "files", "FORMAT_NAME": "header",
    "FORMAT_VERSION": "header", "check_header": "header", "dumps": "jsontext",
    "npz_bytes": "npz", "read_npz": "npz", "concrete_doc": "program_doc",
    "CONTROL_FLOW_ATTRS": "validate",
}
__getattr__ = lazy_getattr(__name__, _LAZY, globals(), same_name=True)

__all__ = [
    "CONTROL_FLOW_ATTRS", "FORMAT_NAME", "FORMAT_VERSION", "LoadedModel", "ModelFormatError",
    "build_concrete", "check_header", "concrete_doc", "decode_value", "dumps", "encode_value",
    "load_concrete", "model_prefix", "npz_bytes", "read_model", "read_npz", "save_concrete",
]
