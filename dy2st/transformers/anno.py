"""Documented annotation keys stored on AST nodes (instead of ad-hoc attributes)."""
from __future__ import annotations

from typing import Any

ORIGIN = "origin"            # runtime.origin.Origin of the user's code this node came from
LIVE_OUT = "live_out"        # frozenset of names read after this statement
BODY_LIVE_IN = "body_live_in"  # loops: names read in the body before being written there
BREAK_FLAG = "break_flag"    # loops: name of the flag set by a converted `break`
SKIP = "skip"                # generated code that later passes must leave alone
ACCESSOR = "accessor"        # a generated get_args / set_args function: no user code inside

_FIELD = "_dy2st_anno"


def setanno(node: Any, key: str, value: Any) -> None:
    annos = getattr(node, _FIELD, None)
    if annos is None:
        annos = {}
        setattr(node, _FIELD, annos)
    annos[key] = value


def getanno(node: Any, key: str, default: Any = None) -> Any:
    return getattr(node, _FIELD, {}).get(key, default)


def hasanno(node: Any, key: str) -> bool:
    return key in getattr(node, _FIELD, {})
