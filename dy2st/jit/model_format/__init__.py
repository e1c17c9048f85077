"""The saved-model format: a versioned JSON graph plus an .npz of parameters (docs/format.md).

Loading never runs code and never unpickles: every field is checked before objects are built."""
# Modules, from the bottom up: errors, fields (checked field reads), header (format identity),
# codec (attr values <-> JSON), jsontext (JSON text in/out), program_doc (Program -> JSON),
# attr_schema + validate + build (JSON -> checked ConcreteProgram), npz (parameters file, read
# member by member), atomic (durable writes, the save lock), files (save_concrete / read_model).
from .build import build_concrete
from .codec import decode_value, encode_value
from .errors import ModelFormatError
from .files import LoadedModel, load_concrete, model_prefix, read_model, save_concrete
from .header import FORMAT_NAME, FORMAT_VERSION, check_header
from .jsontext import dumps
from .npz import npz_bytes, read_npz
from .program_doc import concrete_doc
from .validate import CONTROL_FLOW_ATTRS

__all__ = [
    "CONTROL_FLOW_ATTRS", "FORMAT_NAME", "FORMAT_VERSION", "LoadedModel", "ModelFormatError",
    "build_concrete", "check_header", "concrete_doc", "decode_value", "dumps", "encode_value",
    "load_concrete", "model_prefix", "npz_bytes", "read_model", "read_npz", "save_concrete",
]
