"""The parameters file: an .npz written without pickles and read back member by member, each
member's zip entry and .npy header checked against the JSON parameter table before any data is
read (so a lying header or a decompression bomb is refused, never allocated)."""
from __future__ import annotations

import hashlib
import io
import struct
import zipfile
import zlib
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..runtime.dtype import DTYPES, dtype_name
from .errors import ModelFormatError, fail
from .fields import dtype_field, get_field, int_list_field, name_field
from .npy_member import (
    COMPRESSIONS,
    DEFAULT_MAX_COMPRESSION_RATIO,
    MAX_NPY_HEADER,
    Expected,
    read_npy_member,
    to_bits,
)

_ZIP_OVERHEAD = 4096            # per member: local + central directory entries, extra fields
_MAX_PARAMETER_BYTES = 8 << 32  # fields.MAX_ELEMENTS elements of 8 bytes

Entry = Tuple[str, List[int], str]       # (npz key, shape, dtype name)


def npz_bytes(values: List[np.ndarray]) -> bytes:
    buf = io.BytesIO()
    # positional: keys arr_0, arr_1, ... named by the JSON table (which names bfloat16 too)
    np.savez(buf, *[to_bits(v) for v in values])
    return buf.getvalue()


def parameter_table(table: List[Any], where: str) -> Dict[str, Entry]:
    """{parameter name: (key, shape, dtype)} from the JSON parameter table, checked."""
    entries: Dict[str, Entry] = {}
    keys = set()
    for i, pd in enumerate(table):
        pw = f"{where}: parameters[{i}]"
        name = name_field(get_field(pd, "name", str, pw), pw)
        if name in entries:
            raise fail(pw, f"parameter {name!r} is listed twice")
        key = name_field(get_field(pd, "key", str, pw), pw + ".key")
        if key in keys:
            raise fail(pw, f"array key {key!r} is listed twice")
        keys.add(key)
        shape = int_list_field(get_field(pd, "shape", list, pw), pw, 0)
        if data_nbytes(shape, "float64") > _MAX_PARAMETER_BYTES:
            raise fail(pw, f"parameter {name!r} has shape {shape}, more than "
                            f"{_MAX_PARAMETER_BYTES >> 3} elements")
        entries[name] = (key, shape, dtype_field(get_field(pd, "dtype", str, pw), pw))
    return entries


def data_nbytes(shape: List[int], dtype: str) -> int:
    """The size of an array's data in bytes (exact Python ints: no overflow)."""
    n = np.dtype(DTYPES[dtype].np).itemsize
    for d in shape:
        n *= d
    return n


def max_npz_size(entries: Dict[str, Entry]) -> int:
    """The largest parameters file the table allows (every member stored, headers at their
    largest): a bigger file is not this model's and is refused before it is read."""
    return sum(data_nbytes(s, d) + MAX_NPY_HEADER + _ZIP_OVERHEAD
               for _, s, d in entries.values()) + _ZIP_OVERHEAD


def read_npz(path: str, raw: bytes, sha256: str, table: List[Any], where: str,
             max_compression_ratio: Optional[float] = DEFAULT_MAX_COMPRESSION_RATIO
             ) -> Dict[str, np.ndarray]:
    """{parameter name: array} from the npz bytes, checked against the JSON parameter table
    (a compressed member inflating beyond `max_compression_ratio` is refused; None: no bound)."""
    entries = parameter_table(table, where)
    if raw.startswith(b"\x80"):
        raise fail(path, "is a Python pickle, not an .npz of parameters; refusing to load it "
                          "(unpickling can run arbitrary code)")
    if not raw.startswith(b"PK\x03\x04") and not raw.startswith(b"PK\x05\x06"):
        raise fail(path, "is not an .npz archive (foreign or corrupt file)")
    if hashlib.sha256(raw).hexdigest() != sha256:
        raise fail(path, f"does not match the checksum recorded in {where} (truncated, corrupt, "
                          "or from another save)")
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            members = _members(zf, path)
            keys = set(members)
            want = {k for k, _, _ in entries.values()}
            if keys - want:
                raise fail(path, f"holds arrays {sorted(keys - want)} that {where} does not list")
            if want - keys:
                raise fail(path, f"lacks the parameter arrays {sorted(want - keys)} listed in {where}")
            return {name: _read_member(zf, members[key], name, shape, dtype, path, where,
                                      max_compression_ratio)
                    for name, (key, shape, dtype) in entries.items()}
    except ModelFormatError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error, struct.error,
            NotImplementedError, RuntimeError, KeyError, OverflowError, MemoryError) as e:
        raise fail(path, f"cannot be read as an .npz of parameters ({type(e).__name__}: "
                          f"{str(e)[:200]})") from None


def _members(zf: zipfile.ZipFile, path: str) -> Dict[str, zipfile.ZipInfo]:
    members: Dict[str, zipfile.ZipInfo] = {}
    for info in zf.infolist():
        name = info.filename
        if not name.endswith(".npy"):
            raise fail(path, f"member {name[:80]!r} is not an .npy array")
        key = name[:-4]
        if key in members:
            raise fail(path, f"member {name[:80]!r} appears twice")
        members[key] = info
    return members


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, shape: List[int],
                 dtype: str, path: str, where: str, max_compression_ratio: Optional[float]
                 ) -> np.ndarray:
    what = f"array {info.filename!r} (parameter {name!r})"
    nbytes = data_nbytes(shape, dtype)
    if info.compress_type in COMPRESSIONS and info.file_size > nbytes + MAX_NPY_HEADER:
        raise fail(path, f"{what} inflates to {info.file_size} bytes, but {where} declares "
                          f"{dtype_name(dtype)}{shape} ({nbytes} bytes of data)")
    expect = Expected(shape, dtype, f"parameter {name!r}", where)
    return read_npy_member(zf, info, path, what, expect, max_compression_ratio)
