"""Checked reads of JSON document fields: each failure names the field and what was expected."""
from __future__ import annotations

from typing import Any, List, Optional

from ..runtime.dtype import DTYPES
from .errors import fail

_MAX_NAME = 256
# No dim of a loadable model is larger (MAX_ELEMENTS bounds whole shapes)
MAX_DIM = 1 << 32
# No variable of a loadable model may hold more elements than this (2**32: 16 GiB of float32);
# a bigger shape in a file is an attack or corruption, and running it would exhaust memory.
MAX_ELEMENTS = 1 << 32


def int_list_field(v: Any, where: str, min_: int = -1, nullable: bool = False) -> List[Any]:
    if not isinstance(v, list):
        raise fail(where, f"expected a list of ints, got {v!r}")
    for d in v:
        if d is None and nullable:
            continue
        if type(d) is not int or not min_ <= d <= MAX_DIM:
            raise fail(where, f"expected ints from {min_} to {MAX_DIM}, got {str(d)[:40]}")
    return v


def name_field(v: Any, where: str) -> str:
    """A variable / parameter name: a plain, printable, bounded string."""
    if not isinstance(v, str) or not v or len(v) > _MAX_NAME or not v.isprintable():
        raise fail(where, f"invalid name {str(v)[:80]!r} (names are non-empty printable strings "
                           f"of at most {_MAX_NAME} characters)")
    return v


def dtype_field(v: Any, where: str) -> str:
    if v == "bfloat16":
        return DTYPES[v]        # without ml_dtypes: an ImportError naming the extra to install
    if not isinstance(v, str) or v not in DTYPES:
        raise fail(where, f"unknown dtype {str(v)[:80]!r}; expected one of {', '.join(DTYPES)}")
    return DTYPES[v]


def get_field(d: Any, key: str, types: Any, where: str) -> Any:
    if not isinstance(d, dict):
        raise fail(where, f"expected a JSON object, got {type(d).__name__}")
    if key not in d:
        raise fail(where, f"missing field {key!r}")
    v = d[key]
    if not isinstance(v, types) or (isinstance(v, bool) and bool not in _as_tuple(types)):
        raise fail(f"{where}.{key}", f"expected {_type_names(types)}, got {type(v).__name__}")
    return v


def versioned_list(doc: Any, key: str, since: int, where: str) -> Optional[List[Any]]:
    """The optional list field `key` of a model file, part of the format from version `since`
    on: None when the file has none; a file of an older version that has one is refused."""
    if key not in doc:
        return None
    version = doc.get("format_version")
    if type(version) is not int or version < since:
        raise fail(f"{where}: {key}", f"is not part of format version {version} (the file "
                   "claims it)")
    return get_field(doc, key, list, where)


def _as_tuple(types: Any) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _type_names(types: Any) -> str:
    return " or ".join(t.__name__ for t in _as_tuple(types))
