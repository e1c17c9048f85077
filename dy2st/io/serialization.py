"""paddle.save / paddle.load for state dicts: nested dicts, lists and tuples of tensors, numpy
arrays and Python scalars / strings, written as data only.

The file is one zip archive: `dy2st_state.json` (the structure, strict JSON) and one `.npy`
member per array (`arr_0.npy`, ...), so `np.load(path, allow_pickle=False)` can read it too.
Loading never unpickles and checks everything before building objects: a pickle, a foreign or
corrupt file is refused with a message naming the file and the problem (docs/training.md)."""
from __future__ import annotations

import io
import json
import math
import os
import struct
import zipfile
import zlib
from typing import Any, BinaryIO, Dict, List, Optional, Union

import numpy as np

from ..format.atomic import write_atomic
from ..format.errors import ModelFormatError
from ..format.jsontext import parse_json
from ..format.npy_member import (
    BIT_VIEWS,
    DEFAULT_MAX_COMPRESSION_RATIO,
    check_member,
    from_bits,
    read_npy_member,
    to_bits,
)
from ..format.opener import read_regular_file
from ..runtime.dtype import DTYPES
from ..runtime.program import Variable
from ..runtime.tensor import Tensor
from ..runtime.version import __version__

__all__ = ["save", "load"]

FORMAT_NAME = "dy2st.state"
FORMAT_VERSION = 1
_STRUCTURE = "dy2st_state.json"
# The structure is a few bytes per saved value; 256 MiB of it is no state file.
_MAX_STRUCTURE_BYTES = 256 << 20
PathOrFile = Union[str, "os.PathLike[str]", BinaryIO]


# ----------------------------------------------------------------------------- writing
class _Encoder:
    """Turns the object into JSON-able structure, collecting arrays on the way."""

    def __init__(self) -> None:
        self.arrays: List[np.ndarray] = []

    def _array(self, arr: np.ndarray, where: str) -> str:
        if arr.dtype.name not in DTYPES:
            raise TypeError(f"paddle.save: {where} is an array of dtype {arr.dtype}, which cannot "
                            f"be saved (only {', '.join(DTYPES)})")
        self.arrays.append(to_bits(np.ascontiguousarray(arr)))
        return f"arr_{len(self.arrays) - 1}"

    def encode(self, v: Any, where: str) -> Any:
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, int):
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else {"$float": repr(v)}
        if isinstance(v, np.generic):
            if v.dtype.name not in DTYPES:
                raise TypeError(f"paddle.save: {where} is a numpy {v.dtype} scalar, which "
                                "cannot be saved")
            return self.encode(v.item(), where)
        if isinstance(v, Variable):
            raise TypeError(f"paddle.save: {where} is a symbolic Variable of a static Program; "
                            "save eager tensors (e.g. a Layer's or optimizer's state_dict())")
        if isinstance(v, Tensor):
            arr = np.asarray(v._value)
            spec = {"key": self._array(arr, where), "name": v.name}
            if arr.dtype.name in BIT_VIEWS:
                spec["dtype"] = arr.dtype.name      # stored as its bits (npy_member.to_bits)
            return {"$tensor": spec}
        if isinstance(v, np.ndarray):
            spec = {"key": self._array(v, where)}
            if v.dtype.name in BIT_VIEWS:
                spec["dtype"] = v.dtype.name
            return {"$ndarray": spec}
        if isinstance(v, list):
            return [self.encode(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, tuple):
            return {"$tuple": [self.encode(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        if isinstance(v, dict):
            plain = all(isinstance(k, str) and not k.startswith("$") for k in v)
            if plain:
                return {k: self.encode(x, f"{where}[{k!r}]") for k, x in v.items()}
            return {"$dict": [[self.encode(k, f"{where} key {k!r}"),
                               self.encode(x, f"{where}[{k!r}]")] for k, x in v.items()]}
        hint = " (save its state_dict() instead)" if hasattr(v, "state_dict") else ""
        raise TypeError(f"paddle.save: {where} is a {type(v).__name__}, which cannot be saved "
                        f"as data{hint}; state files hold dicts, lists and tuples of tensors, "
                        "numpy arrays, numbers, strings and None")


def _archive(obj: Any) -> bytes:
    enc = _Encoder()
    tree = enc.encode(obj, "the object")
    doc = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION,
           "dy2st_version": __version__, "tree": tree}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(_STRUCTURE, json.dumps(doc, allow_nan=False))
        for i, arr in enumerate(enc.arrays):
            with zf.open(f"arr_{i}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, arr, allow_pickle=False)
    return buf.getvalue()


def save(obj: Any, path: PathOrFile, protocol: int = 4, **configs: Any) -> None:
    """Write `obj` (e.g. `layer.state_dict()` or `opt.state_dict()`) to `path` (a file name or a
    binary file object). `protocol` is accepted for Paddle compatibility; nothing is pickled."""
    if isinstance(protocol, bool) or not isinstance(protocol, int) or not 1 < protocol < 5:
        raise ValueError(f"paddle.save: expected 1<'protocol'<5, but received {protocol!r}")
    data = _archive(obj)
    if hasattr(path, "write"):
        path.write(data)
        return
    path = os.fspath(path)
    if not os.path.basename(path) or os.path.isdir(path):
        raise ValueError(f"paddle.save: {path!r} is a directory; give a file name such as "
                         "'model.pdparams'")
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    write_atomic(path, data)


# ----------------------------------------------------------------------------- reading
def _fail(where: str, problem: str) -> ModelFormatError:
    return ModelFormatError(f"{where}: {problem}")


class _Decoder:
    def __init__(self, arrays: Dict[str, np.ndarray], where: str, return_numpy: bool) -> None:
        self.arrays, self.where, self.return_numpy = arrays, where, return_numpy
        self.used: set = set()

    def _array(self, spec: Any, at: str) -> np.ndarray:
        key = spec.get("key") if isinstance(spec, dict) else None
        if not isinstance(key, str) or key not in self.arrays:
            raise _fail(self.where, f"{at} refers to an array {key!r} the file does not hold")
        self.used.add(key)
        arr = self.arrays[key]
        dtype = spec.get("dtype")
        if dtype is None:
            return arr
        if dtype not in BIT_VIEWS or arr.dtype.name != BIT_VIEWS[dtype]:
            raise _fail(self.where, f"{at}: an array of {arr.dtype} cannot hold {str(dtype)[:40]}")
        return from_bits(arr, dtype)

    def decode(self, v: Any, at: str) -> Any:
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, list):
            return [self.decode(x, f"{at}[{i}]") for i, x in enumerate(v)]
        if not isinstance(v, dict):
            raise _fail(self.where, f"{at} holds a {type(v).__name__}")
        marker = [k for k in v if k.startswith("$")]
        if not marker:
            return {k: self.decode(x, f"{at}[{k!r}]") for k, x in v.items()}
        if len(v) != 1:
            raise _fail(self.where, f"{at} mixes the reserved key {marker[0]!r} with others")
        kind, body = next(iter(v.items()))
        if kind == "$tensor":
            arr = self._array(body, at)
            if self.return_numpy:
                return arr
            name = body.get("name", "")
            if not isinstance(name, str):
                raise _fail(self.where, f"{at}: a tensor's name is not a string")
            # as Paddle's load: a plain tensor (stop_gradient=True) carrying the saved name
            return Tensor(arr, name=name)
        if kind == "$ndarray":
            return self._array(body, at)
        if kind == "$tuple" and isinstance(body, list):
            return tuple(self.decode(x, f"{at}[{i}]") for i, x in enumerate(body))
        if kind == "$float" and body in ("nan", "inf", "-inf"):
            return float(body)
        if kind == "$dict" and isinstance(body, list):
            out = {}
            for i, item in enumerate(body):
                if not isinstance(item, list) or len(item) != 2:
                    raise _fail(self.where, f"{at}: entry {i} is not a [key, value] pair")
                key = self.decode(item[0], f"{at} key {i}")
                try:
                    hash(key)
                except TypeError:
                    raise _fail(self.where, f"{at}: key {i} is not hashable") from None
                out[key] = self.decode(item[1], f"{at}[{key!r}]")
            return out
        raise _fail(self.where, f"{at} holds an unknown marker {kind!r}")


def _read_bytes(path: PathOrFile) -> "tuple[bytes, str]":
    if hasattr(path, "read"):
        return path.read(), "the given file object"
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"paddle.load: path must be a file name or a binary file object, got "
                        f"{type(path).__name__}")
    where = os.fsdecode(os.fspath(path))
    raw = read_regular_file(where, missing_ok=True)
    if raw is None:
        raise FileNotFoundError(f"paddle.load: {where!r} does not exist")
    return raw, where


def load(path: PathOrFile, **configs: Any) -> Any:
    """Read what `save` wrote. Tensors come back as Tensors with their names and
    stop_gradient=True (numpy arrays with `return_numpy=True`). Only regular files are read;
    a compressed member inflating beyond `max_compression_ratio` times its size (default
    100) is refused as a decompression bomb (None: no bound)."""
    return_numpy = bool(configs.pop("return_numpy", False))
    ratio = configs.pop("max_compression_ratio", DEFAULT_MAX_COMPRESSION_RATIO)
    configs.pop("model_filename", None)
    configs.pop("params_filename", None)
    if configs:
        raise ValueError(f"paddle.load: unsupported options {sorted(configs)}")
    raw, where = _read_bytes(path)
    if raw.startswith(b"\x80"):
        raise _fail(where, "is a Python pickle, not a dy2st state file; refusing to load it "
                           "(unpickling can run arbitrary code)")
    if not raw.startswith(b"PK\x03\x04"):
        raise _fail(where, "is not a dy2st state file (not a zip archive: foreign or corrupt)")
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            doc, arrays = _read_members(zf, where, ratio)
    except ModelFormatError:
        raise
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError, zlib.error,
            struct.error, NotImplementedError, RuntimeError, OverflowError, MemoryError) as e:
        raise _fail(where, f"is corrupt or truncated ({type(e).__name__}: {str(e)[:200]})") from None
    dec = _Decoder(arrays, where, return_numpy)
    out = dec.decode(doc["tree"], "the object")
    unused = sorted(set(arrays) - dec.used)
    if unused:
        raise _fail(where, f"holds arrays {unused} that its structure does not use")
    return out


def _read_members(zf: zipfile.ZipFile, where: str, ratio: Optional[float]
                  ) -> "tuple[Any, Dict[str, np.ndarray]]":
    """The structure document and {key: array}, every member checked before it is inflated."""
    infos = zf.infolist()
    names = [i.filename for i in infos]
    if len(set(names)) != len(names):
        raise _fail(where, "holds a member twice")
    by_name = dict(zip(names, infos))
    if _STRUCTURE not in by_name:
        raise _fail(where, f"is a zip archive without {_STRUCTURE}, so not a dy2st state file")
    structure = by_name[_STRUCTURE]
    check_member(structure, where, _STRUCTURE, ratio)
    if structure.file_size > _MAX_STRUCTURE_BYTES:
        raise _fail(where, f"its {_STRUCTURE} is {structure.file_size} bytes, more than the "
                           f"{_MAX_STRUCTURE_BYTES} a state file's structure may have")
    doc = parse_json(zf.read(structure), f"{where} ({_STRUCTURE})")
    _check_header(doc, where)
    arrays = {}
    for name, info in by_name.items():
        if name == _STRUCTURE:
            continue
        if not (name.startswith("arr_") and name.endswith(".npy") and name[4:-4].isdigit()):
            raise _fail(where, f"holds an unexpected member {name[:80]!r}")
        arrays[name[:-4]] = read_npy_member(zf, info, where, f"array {name!r}",
                                            max_compression_ratio=ratio)
    return doc, arrays


def _check_header(doc: Any, where: str) -> None:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise _fail(where, f"is not a dy2st state file (format is {found!r}, expected "
                           f"{FORMAT_NAME!r})")
    version = doc.get("format_version")
    if type(version) is not int or version < 1:
        raise _fail(where, f"has an invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise _fail(where, f"uses state format version {version}; this dy2st reads versions up "
                           f"to {FORMAT_VERSION}; upgrade dy2st to load it")
    if "tree" not in doc:
        raise _fail(where, "has no 'tree' (the saved object)")
