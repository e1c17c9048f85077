"""One .npy member of a zip archive read as untrusted data, shared by `jit.load` and
`paddle.load`: compression method, inflated size and .npy header are checked before any data
is inflated or allocated, and pickled objects are never loaded."""
from __future__ import annotations

import zipfile
from typing import BinaryIO, List, NamedTuple, Optional

import numpy as np
import numpy.lib.format as npy_format

from ..runtime.dtype import DTYPES, dtype_name
from .errors import ModelFormatError

# numpy's own bound on an .npy header; a member may be this much larger than its data.
MAX_NPY_HEADER = 10000
# A compressed member may inflate to at most this many times its compressed size (deflate's own
# maximum is about 1032; real parameters compress 1-10x), or to MIN_INFLATION_ALLOWANCE bytes
# when that is more (tiny, very regular arrays). `max_compression_ratio=` overrides it.
DEFAULT_MAX_COMPRESSION_RATIO = 100
MIN_INFLATION_ALLOWANCE = 1 << 20
COMPRESSIONS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}


def _fail(path: str, problem: str) -> ModelFormatError:
    return ModelFormatError(f"{path}: {problem}")


class Expected(NamedTuple):
    """What a member must hold, and the names a mismatch message gives them."""
    shape: List[int]
    dtype: str
    owner: str              # e.g. "parameter 'w'"
    declared_by: str        # e.g. the model's JSON file


def check_member(info: zipfile.ZipInfo, path: str, what: str,
                 max_compression_ratio: Optional[float] = DEFAULT_MAX_COMPRESSION_RATIO) -> None:
    """Refuse a member by its zip entry alone: unknown compression, encryption, or an inflated
    size beyond the ratio bound (a decompression bomb), before anything is inflated."""
    if info.compress_type not in COMPRESSIONS:
        raise _fail(path, f"{what} uses zip compression method {info.compress_type}; only "
                          f"{' and '.join(COMPRESSIONS.values())} members are read")
    if info.flag_bits & 0x1:
        raise _fail(path, f"{what} is encrypted")
    if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
        raise _fail(path, f"{what} is stored uncompressed, but its sizes disagree "
                          f"({info.compress_size} bytes stored, {info.file_size} declared)")
    if max_compression_ratio is None:
        return
    allowed = max(int(max_compression_ratio * info.compress_size), MIN_INFLATION_ALLOWANCE)
    if info.file_size > allowed:
        raise _fail(path, f"{what} inflates from {info.compress_size} to {info.file_size} bytes, "
                          f"more than {max_compression_ratio:g} times its compressed size "
                          "(a decompression bomb?); pass max_compression_ratio=None to load it "
                          "anyway if you trust the file")


def read_npy_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, path: str, what: str,
                    expect: Optional[Expected] = None,
                    max_compression_ratio: Optional[float] = DEFAULT_MAX_COMPRESSION_RATIO
                    ) -> np.ndarray:
    """The array in member `info`, which must be a numeric .npy whose header agrees with the
    member's size (and with `expect` when given)."""
    check_member(info, path, what, max_compression_ratio)
    with zf.open(info) as raw_member:
        f = _Counting(raw_member)
        version = npy_format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = npy_format.read_array_header_1_0(f, MAX_NPY_HEADER)
        elif version == (2, 0):
            shape, fortran, dtype = npy_format.read_array_header_2_0(f, MAX_NPY_HEADER)
        else:
            raise _fail(path, f"{what} has .npy format version {version}, expected 1.0 or 2.0")
        if dtype.hasobject:
            raise _fail(path, f"{what} is an object array: pickled objects are never loaded "
                              "(allow_pickle=False)")
        if (dtype.name not in DTYPES and dtype.name not in BIT_VIEWS.values()) or \
                dtype.fields is not None or dtype.subdtype is not None:
            raise _fail(path, f"{what} is not a numeric array (dtype {dtype.str!r})")
        if expect is not None and (list(shape) != expect.shape or dtype.name not in (
                expect.dtype, BIT_VIEWS.get(expect.dtype))):
            raise _fail(path, f"{expect.owner} is {dtype.name}{list(shape)} but "
                              f"{expect.declared_by} says {dtype_name(expect.dtype)}{expect.shape}")
        nbytes = dtype.itemsize
        for d in shape:
            nbytes *= d
        if info.file_size != f.count + nbytes:
            raise _fail(path, f"{what} holds {info.file_size - f.count} bytes of data, but its "
                              f"header's {dtype.name}{list(shape)} needs {nbytes}")
        data = f.read(nbytes)
        if len(data) != nbytes:
            raise _fail(path, f"{what} is truncated")
    arr = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    arr = np.array(arr, dtype=dtype.newbyteorder("="), order="C")
    if expect is not None and dtype.name == BIT_VIEWS.get(expect.dtype):
        arr = from_bits(arr, expect.dtype)
    return arr


# dtypes numpy's .npy header cannot name (ml_dtypes' bfloat16 is a void type to it), stored as
# the unsigned integers of their bits; the table beside the array names the real dtype
BIT_VIEWS = {"bfloat16": "uint16"}


def to_bits(arr: np.ndarray) -> np.ndarray:
    """arr as storable .npy data: bfloat16 as its uint16 bits, other dtypes unchanged."""
    bits = BIT_VIEWS.get(arr.dtype.name)
    return arr.view(bits) if bits is not None else arr


def from_bits(arr: np.ndarray, dtype: str) -> np.ndarray:
    """The array of `dtype` whose bits `arr` holds (see to_bits)."""
    if BIT_VIEWS.get(dtype) != arr.dtype.name:
        raise ValueError(f"an array of {arr.dtype} does not hold {dtype_name(dtype)} bits")
    return arr.view(DTYPES[dtype].np)


class _Counting:
    """A read-only stream that counts the bytes read (the .npy header's length)."""

    def __init__(self, f: BinaryIO) -> None:
        self._f = f
        self.count = 0

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            raise ValueError("unbounded read of an archive member")
        data = self._f.read(n)
        self.count += len(data)
        return data
