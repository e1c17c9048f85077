"""The saved-model format: a versioned JSON graph plus an .npz of parameters (docs/format.md).

Loading never runs code and never unpickles: every field is checked before objects are built."""
# Modules, from the bottom up: errors, fields (checked field reads), header (format identity),
# codec (attr values <-> JSON), jsontext (JSON text in/out), program_doc (Program -> JSON),
# attr_schema + validate + build (JSON -> checked ConcreteProgram), npz (parameters file, read
# member by member), atomic (durable writes, the save lock), files (save_concrete / read_model).
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


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "CONTROL_FLOW_ATTRS", "FORMAT_NAME", "FORMAT_VERSION", "LoadedModel", "ModelFormatError",
    "build_concrete", "check_header", "concrete_doc", "decode_value", "dumps", "encode_value",
    "load_concrete", "model_prefix", "npz_bytes", "read_model", "read_npz", "save_concrete",
]
