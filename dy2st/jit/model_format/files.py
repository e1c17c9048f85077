"""The entry points: save a ConcreteProgram as PATH.json + PATH.<hash>.npz, and read one back."""
from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Any, Dict, NamedTuple, Optional

import numpy as np

from ...runtime.tensor import Tensor
from ..concrete import ConcreteProgram
from .atomic import _fsync_dir, _write_atomic
from .build import _fits, build_concrete
from .codec import decode_value
from .errors import ModelFormatError, _fail
from .fields import _get
from .header import check_header
from .jsontext import _parse_json, dumps
from .npz import npz_bytes, read_npz
from .program_doc import concrete_doc

# The parameters file is named PATH.<first hex digits of its sha256>.npz; _old_npz recognises our
# own files by the same scheme, so both must use this length.
_NPZ_HASH_CHARS = 16


class LoadedModel(NamedTuple):
    """Everything read from a model: the program plus the header fields and file names."""
    concrete: ConcreteProgram
    format_version: int
    dy2st_version: str
    extra: Dict[str, Any]
    json_path: str
    npz_path: str


def _npz_name(prefix: str, sha256: str) -> str:
    return f"{os.path.basename(prefix)}.{sha256[:_NPZ_HASH_CHARS]}.npz"


def _old_npz(json_path: str, prefix: str) -> Optional[str]:
    """The parameters file the existing model (if any) refers to, when it is one of ours."""
    try:
        with open(json_path, "rb") as f:
            name = json.loads(f.read().decode("utf-8"))["parameters_file"]["file"]
    except Exception:  # noqa: BLE001 - no usable old model: nothing to clean up
        return None
    pattern = re.escape(os.path.basename(prefix)) + r"\.[0-9a-f]{%d}\.npz" % _NPZ_HASH_CHARS
    return name if isinstance(name, str) and re.fullmatch(pattern, name) else None


def save_concrete(concrete: ConcreteProgram, path: str, extra: Optional[dict] = None) -> None:
    """Write `path.json` (the graph) and `path.<sha>.npz` (the parameters) atomically.

    The npz is written first under a name derived from its content; the JSON, which names it, is
    renamed into place last. A save interrupted at any point leaves the previous model loadable."""
    path = os.fspath(path)
    if not os.path.basename(path):
        raise ModelFormatError(f"{path!r}: the model path must end with a file name prefix")
    program = concrete.program
    g = program.global_block()
    names = list(program.persistables)
    values = []
    params = []
    for i, name in enumerate(names):
        t = program.persistables[name]
        var = g.vars.get(name)
        arr = np.asarray(t._value if isinstance(t, Tensor) else t)
        if var is None or not _fits(arr, var):
            raise ModelFormatError(f"parameter {name!r}: its value {arr.dtype}{list(arr.shape)} "
                                   "does not fit the graph variable")
        values.append(arr)
        params.append({"name": name, "key": f"arr_{i}", "shape": list(arr.shape),
                       "dtype": arr.dtype.name, "trainable": bool(getattr(t, "trainable", False))})
    blob = npz_bytes(values)
    sha = hashlib.sha256(blob).hexdigest()
    doc = concrete_doc(concrete, params, extra)
    doc["parameters_file"] = {"file": _npz_name(path, sha), "sha256": sha}
    text = (dumps(doc) + "\n").encode("utf-8")
    json_path = path + ".json"
    # Refuse to write what cannot be read back (an unknown op, a dangling name, ...).
    build_concrete(_parse_json(text, json_path), dict(zip(names, values)), json_path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    npz_path = os.path.join(os.path.dirname(path), doc["parameters_file"]["file"])
    old = _old_npz(json_path, path)
    _write_atomic(npz_path, blob)
    _fsync_dir(npz_path)                     # the npz's name must be durable before the JSON's
    try:
        _write_atomic(json_path, text)       # the commit point
    except BaseException:
        if old != os.path.basename(npz_path) and os.path.exists(npz_path):
            os.unlink(npz_path)              # the old model does not use it
        raise
    _fsync_dir(json_path)
    if old is not None and old != os.path.basename(npz_path):
        try:
            os.unlink(os.path.join(os.path.dirname(path), old))
        except OSError:
            pass


def model_prefix(path: str) -> str:
    """The model's path prefix (a trailing `.json` is accepted and dropped)."""
    path = os.fspath(path)
    return path[:-5] if path.endswith(".json") and os.path.isfile(path) else path


def read_model(path: str) -> LoadedModel:
    """Read and check a saved model; nothing in the files is executed or unpickled."""
    prefix = model_prefix(path)
    json_path = prefix + ".json"
    if not os.path.isfile(json_path):
        hint = ""
        if os.path.isfile(prefix):
            with open(prefix, "rb") as f:
                kind = "a Python pickle (not loaded)" if f.read(1) == b"\x80" else "some other file"
            hint = f"; {prefix!r} is {kind}, but a dy2st model is the pair PATH.json + PATH.<hash>.npz"
        raise ModelFormatError(f"{json_path}: no such model file{hint}")
    with open(json_path, "rb") as f:
        doc = _parse_json(f.read(), json_path)
    version = check_header(doc, json_path)
    pf = _get(doc, "parameters_file", dict, json_path)
    file_ = _get(pf, "file", str, json_path + ": parameters_file")
    if os.path.basename(file_) != file_ or file_ in (".", "..") or not file_.endswith(".npz"):
        raise _fail(json_path, f"parameters_file {file_[:80]!r} must be a plain .npz file name")
    npz_path = os.path.join(os.path.dirname(prefix), file_)
    if not os.path.isfile(npz_path):
        raise ModelFormatError(f"{npz_path}: the parameters file named by {json_path} is missing")
    with open(npz_path, "rb") as f:
        raw = f.read()
    table = _get(doc, "parameters", list, json_path)
    values = read_npz(npz_path, raw, _get(pf, "sha256", str, json_path), table, json_path)
    try:
        concrete = build_concrete(doc, values, json_path)
        extra = decode_value(doc.get("extra") or {}, json_path + ": extra")
    except RecursionError:
        raise _fail(json_path, "is nested too deeply to be a dy2st model") from None
    return LoadedModel(concrete, version, str(doc.get("dy2st_version", "?")),
                       extra if isinstance(extra, dict) else {}, json_path, npz_path)


def load_concrete(path: str) -> ConcreteProgram:
    """The ConcreteProgram saved at `path` (see read_model for the checks)."""
    return read_model(path).concrete
