"""The entry points: save a ConcreteProgram as PATH.json + PATH.<hash>.npz, and read one back."""
from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Any, Dict, NamedTuple, Optional

import numpy as np

from ..runtime.tensor import Tensor
from .atomic import fsync_dir, save_lock, write_atomic
from .build import build_concrete, fits_variable
from .codec import decode_value
from .concrete import ConcreteProgram
from .errors import ModelFormatError, fail
from .fields import get_field
from .header import check_header
from .jsontext import dumps, parse_json
from .npy_member import DEFAULT_MAX_COMPRESSION_RATIO
from .npz import max_npz_size, npz_bytes, parameter_table, read_npz
from .opener import open_regular_file, read_regular_file, shown_path
from .program_doc import concrete_doc

# The parameters file is named PATH.<first hex digits of its sha256>.npz; _own_files recognises our
# own files by the same scheme, so both must use this length.
_NPZ_HASH_CHARS = 16
_READ_ATTEMPTS = 20


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


def _own_files(prefix: str) -> "re.Pattern[str]":
    """Names of the files a save of `prefix` writes: parameter files and temporary files."""
    base = re.escape(os.path.basename(prefix))
    return re.compile(r"%s\.(?:[0-9a-f]{%d}\.npz|json)(?:\.[0-9a-f]{16}\.tmp)?" % (base, _NPZ_HASH_CHARS))


def _referenced_npz(json_path: str) -> Optional[str]:
    """The parameters file the model at json_path names, if it is readable."""
    try:
        raw = read_regular_file(json_path)
        name = json.loads(raw.decode("utf-8"))["parameters_file"]["file"]
    except Exception:  # noqa: BLE001 - no usable model: nothing is referenced
        return None
    return name if isinstance(name, str) else None


def _remove_unreferenced(prefix: str, keep: str) -> None:
    """Delete this model's parameter and temporary files other than `keep` (the one the JSON
    names). Runs under the save lock, so no other save is writing; a reader that read the old
    JSON and finds its parameters file gone reads the JSON again (see read_model)."""
    directory = os.path.dirname(prefix) or "."
    own = _own_files(prefix)
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if name == keep or name == os.path.basename(prefix) + ".json" or not own.fullmatch(name):
            continue
        try:
            os.unlink(os.path.join(directory, name))
        except OSError:
            pass                        # e.g. still open on Windows: the next save retries


def save_concrete(concrete: ConcreteProgram, path: str, extra: Optional[dict] = None) -> None:
    """Write `path.json` (the graph) and `path.<sha>.npz` (the parameters) atomically.

    Under a lock on `path.lock`, the npz is written under a name derived from its content, then
    the JSON, which names it, is renamed into place (the commit point); only then are parameter
    files no longer named by the JSON deleted. A save interrupted at any point leaves the
    previous model loadable; concurrent saves leave one of the models, whole."""
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
        if var is None or not fits_variable(arr, var):
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
    build_concrete(parse_json(text, json_path), dict(zip(names, values)), json_path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    npz_name = doc["parameters_file"]["file"]
    npz_path = os.path.join(os.path.dirname(path), npz_name)
    with save_lock(path + ".lock"):
        old = _referenced_npz(json_path)
        write_atomic(npz_path, blob)
        fsync_dir(npz_path)                 # the npz's name must be durable before the JSON's
        try:
            write_atomic(json_path, text)   # the commit point
        except BaseException:
            if old != npz_name and os.path.exists(npz_path):
                os.unlink(npz_path)          # the old model does not use it
            raise
        fsync_dir(json_path)
        _remove_unreferenced(path, npz_name)


def model_prefix(path: str) -> str:
    """The model's path prefix (a trailing `.json` is accepted and dropped)."""
    path = os.fspath(path)
    return path[:-5] if path.endswith(".json") and _is_file(path) else path


def _is_file(path: str) -> bool:
    try:
        return os.path.isfile(path)
    except (OSError, ValueError):       # isfile swallows most, not all, path errors
        return False


def read_model(path: str, max_compression_ratio: Optional[float] = DEFAULT_MAX_COMPRESSION_RATIO
               ) -> LoadedModel:
    """Read and check a saved model; nothing in the files is executed or unpickled. Only regular
    files are opened (a FIFO or device is refused, never waited on); a compressed parameter
    member inflating beyond `max_compression_ratio` times its size is refused (None: no bound)."""
    prefix = model_prefix(path)
    json_path = prefix + ".json"
    json_raw = read_regular_file(json_path, missing_ok=True)
    if json_raw is None:
        raise ModelFormatError(f"{shown_path(json_path)}: no such model file{_not_model_hint(prefix)}")
    # A save that replaces the model deletes the old parameters file after publishing the new
    # JSON: a reader that read the old JSON then finds its npz gone reads the new JSON.
    for _ in range(_READ_ATTEMPTS):
        doc = parse_json(json_raw, json_path)
        version = check_header(doc, json_path)
        pf = get_field(doc, "parameters_file", dict, json_path)
        file_ = get_field(pf, "file", str, json_path + ": parameters_file")
        if (os.path.basename(file_) != file_ or file_ in (".", "..") or not file_.endswith(".npz")
                or "\0" in file_):
            raise fail(json_path, f"parameters_file {file_[:80]!r} must be a plain .npz file name")
        sha = get_field(pf, "sha256", str, json_path + ": parameters_file")
        table = parameter_table(get_field(doc, "parameters", list, json_path), json_path)
        npz_path = os.path.join(os.path.dirname(prefix), file_)
        try:
            raw = read_regular_file(npz_path, max_npz_size(table),
                                    f"parameters {json_path} declares", missing_ok=True)
        except ModelFormatError as e:
            raise ModelFormatError(f"{e} (the parameters file named by {json_path})") from None
        if raw is not None:
            break
        newer = read_regular_file(json_path, missing_ok=True)
        if newer == json_raw:
            raise ModelFormatError(f"{shown_path(npz_path)}: the parameters file named by "
                                   f"{json_path} is missing")
        if newer is None:
            raise ModelFormatError(f"{json_path}: the model was deleted while it was being read")
        json_raw = newer
    else:
        raise ModelFormatError(f"{json_path}: the model was replaced {_READ_ATTEMPTS} times while "
                               "it was being read; try again")
    values = read_npz(npz_path, raw, sha, get_field(doc, "parameters", list, json_path), json_path,
                      max_compression_ratio)
    try:
        concrete = build_concrete(doc, values, json_path)
        extra = decode_value(doc.get("extra") or {}, json_path + ": extra")
    except RecursionError:
        raise fail(json_path, "is nested too deeply to be a dy2st model") from None
    return LoadedModel(concrete, version, str(doc.get("dy2st_version", "?")),
                       extra if isinstance(extra, dict) else {}, json_path, npz_path)


def _not_model_hint(prefix: str) -> str:
    """Why `prefix` itself is not the model, when it is some file (e.g. a Paddle pickle)."""
    try:
        f = open_regular_file(prefix, missing_ok=True)
    except ModelFormatError:
        return ""
    if f is None:
        return ""
    with f:
        try:
            first = f.read(1)
        except OSError:
            return ""
    kind = "a Python pickle (not loaded)" if first == b"\x80" else "some other file"
    return f"; {prefix!r} is {kind}, but a dy2st model is the pair PATH.json + PATH.<hash>.npz"


def load_concrete(path: str) -> ConcreteProgram:
    """The ConcreteProgram saved at `path` (see read_model for the checks)."""
    return read_model(path).concrete
