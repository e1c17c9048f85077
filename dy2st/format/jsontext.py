"""The graph file's text: diff-friendly JSON out, strict JSON in (foreign files are named as such)."""
from __future__ import annotations

import json
import math
from typing import Any

from .errors import fail


def dumps(v: Any, indent: str = "") -> str:
    """JSON text where a container that fits in one short line stays on one line (diff-friendly)."""
    flat = json.dumps(v, allow_nan=False, separators=(", ", ": "))
    if len(flat) + len(indent) <= 120 or not isinstance(v, (list, dict)) or not v:
        return flat
    inner = indent + " "
    if isinstance(v, list):
        body = [inner + dumps(x, inner) for x in v]
        return "[\n" + ",\n".join(body) + "\n" + indent + "]"
    body = [f"{inner}{json.dumps(k)}: {dumps(x, inner)}" for k, x in v.items()]
    return "{\n" + ",\n".join(body) + "\n" + indent + "}"


def parse_json(raw: bytes, where: str) -> Any:
    """The JSON document in raw; pickles, archives, duplicate keys and non-finite numbers are
    refused with an error naming `where`."""
    if raw.startswith(b"\x80"):
        raise fail(where, "is a Python pickle, not a dy2st model; refusing to load it (unpickling "
                           "can run arbitrary code)")
    if raw.startswith(b"PK\x03\x04") or raw.startswith(b"\x93NUMPY"):
        raise fail(where, "is a numpy/zip archive, not the JSON graph of a dy2st model")

    def pairs(items: list) -> dict:
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate key in an object")
        return dict(items)

    def constant(name: str) -> Any:
        raise ValueError(f"non-standard JSON constant {name}")

    def finite(text: str) -> float:
        # 1e999 is valid JSON syntax but no finite number: Python would read it as inf
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(f"number {text[:40]} is out of range of a float")
        return value

    def bounded_int(text: str) -> int:
        if len(text.lstrip("-")) > 64:
            raise ValueError(f"integer {text[:20]}... has more than 64 digits")
        return int(text)

    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=pairs, parse_constant=constant,
                          parse_float=finite, parse_int=bounded_int)
    except UnicodeDecodeError:
        raise fail(where, "is not UTF-8 text, so not a dy2st model graph") from None
    except json.JSONDecodeError as e:
        raise fail(where, f"is not valid JSON (truncated or corrupt?): {e}") from None
    except (ValueError, RecursionError) as e:
        raise fail(where, f"is not valid JSON: {e}") from None
