"""The parameters file: an .npz written without pickles and read back only after checking its
magic, its checksum and every array against the JSON parameter table."""
from __future__ import annotations

import hashlib
import io
import zipfile
from typing import Any, Dict, List

import numpy as np

from ...runtime.dtype import DTYPES
from .errors import ModelFormatError, _fail
from .fields import _dtype, _get, _int_list, _name


def npz_bytes(values: List[np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, *values)          # positional: keys arr_0, arr_1, ... named by the JSON table
    return buf.getvalue()


def read_npz(path: str, raw: bytes, sha256: str, table: List[Any], where: str) -> Dict[str, np.ndarray]:
    """{parameter name: array} from the npz bytes, checked against the JSON parameter table."""
    if raw.startswith(b"\x80"):
        raise _fail(path, "is a Python pickle, not an .npz of parameters; refusing to load it "
                          "(unpickling can run arbitrary code)")
    if not raw.startswith(b"PK\x03\x04") and not raw.startswith(b"PK\x05\x06"):
        raise _fail(path, "is not an .npz archive (foreign or corrupt file)")
    if hashlib.sha256(raw).hexdigest() != sha256:
        raise _fail(path, f"does not match the checksum recorded in {where} (truncated, corrupt, "
                          "or from another save)")
    entries = {}
    for i, pd in enumerate(table):
        pw = f"{where}: parameters[{i}]"
        name = _name(_get(pd, "name", str, pw), pw)
        if name in entries:
            raise _fail(pw, f"parameter {name!r} is listed twice")
        entries[name] = (_get(pd, "key", str, pw), _int_list(_get(pd, "shape", list, pw), pw, 0),
                         _dtype(_get(pd, "dtype", str, pw), pw))
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            keys = set(npz.files)
            want = {k for k, _, _ in entries.values()}
            if keys - want:
                raise _fail(path, f"holds arrays {sorted(keys - want)} that {where} does not list")
            if want - keys:
                raise _fail(path, f"lacks the parameter arrays {sorted(want - keys)} listed in {where}")
            values = {}
            for name, (key, shape, dtype) in entries.items():
                arr = npz[key]
                if not isinstance(arr, np.ndarray) or arr.dtype.name not in DTYPES:
                    raise _fail(path, f"array {key!r} (parameter {name!r}) is not a numeric array")
                if list(arr.shape) != shape or arr.dtype.name != dtype:
                    raise _fail(path, f"parameter {name!r} is {arr.dtype.name}{list(arr.shape)} but "
                                      f"{where} says {dtype}{shape}")
                values[name] = arr
            return values
    except ModelFormatError:
        raise
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as e:
        raise _fail(path, f"cannot be read as an .npz of parameters ({e})") from None
