"""A returned dict entry that a tensor loop or `if` may not have added (a flagged key): the call
leaves the key out where its flag is false, as the eager dict has no such key."""
from __future__ import annotations

from typing import Any


class _Absent:
    def __repr__(self) -> str:
        return "<absent dict entry>"


ABSENT = _Absent()


def drop_absent(value: Any) -> Any:
    """value without the dict entries that are ABSENT; an ABSENT anywhere else (a returned
    entry read out of the dict, in a list) raises KeyError, as reading it eagerly does."""
    if type(value) is dict:
        return {k: drop_absent(v) for k, v in value.items() if v is not ABSENT}
    if type(value) in (list, tuple):
        if any(v is ABSENT for v in value):
            raise KeyError("a returned dict entry that the program did not add")
        return type(value)(drop_absent(v) for v in value)
    if value is ABSENT:
        raise KeyError("a returned dict entry that the program did not add")
    return value

