"""Where an operator came from: the user's file, line and source text.

Generated (transformed) code registers a line map here so that origins found in it point at the
user's original source instead."""
from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Origin:
    file: str
    line: int
    function: str = ""
    source: str = ""
    col: int = 0
    end_col: int = 0

    def short(self) -> str:
        return f"{os.path.basename(self.file)}:{self.line}"

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "function": self.function,
                "source": self.source, "col": self.col, "end_col": self.end_col}

    @classmethod
    def from_json(cls, d: dict) -> "Origin":
        return cls(str(d.get("file", "")), int(d.get("line", 0)), str(d.get("function", "")),
                   str(d.get("source", "")), int(d.get("col", 0)), int(d.get("end_col", 0)))


class SourceMaps:
    """Generated file name -> {generated line: Origin of the user's statement}, plus the column
    spans of expressions on each generated line (a statement of several user lines maps each
    call to its own line)."""

    def __init__(self) -> None:
        self._maps: Dict[str, Dict[int, Origin]] = {}
        self._spans: Dict[str, Dict[int, List[Tuple[int, int, Origin]]]] = {}
        self._positions: Dict[Any, List[Tuple]] = {}

    def register(self, filename: str, line_map: Dict[int, Origin],
                 spans: Optional[Dict[int, List[Tuple[int, int, Origin]]]] = None) -> None:
        self._maps[filename] = line_map
        self._spans[filename] = spans or {}

    def lookup(self, filename: str, line: int) -> Optional[Origin]:
        m = self._maps.get(filename)
        if m is None:
            return None
        return m.get(line)

    def lookup_at(self, code: Any, line: int, lasti: int) -> Optional[Origin]:
        """The origin of the expression running at instruction offset `lasti` of code (falls
        back to the statement of `line`)."""
        filename = code.co_filename
        spans = self._spans.get(filename, {}).get(line)
        if spans and lasti >= 0 and hasattr(code, "co_positions"):
            positions = self._positions.get(code)
            if positions is None:       # one list per code object: ops are made many per line
                positions = self._positions[code] = list(code.co_positions())
            pos = positions[lasti // 2] if lasti // 2 < len(positions) else None
            if pos is not None and pos[0] == line and pos[2] is not None:
                inside = [(end - col, o) for col, end, o in spans
                          if col <= pos[2] and (pos[3] or pos[2]) <= end]
                if inside:
                    return min(inside, key=lambda t: t[0])[1]
        return self.lookup(filename, line)

    def is_generated(self, filename: str) -> bool:
        return filename in self._maps

    def clear(self) -> None:
        self._maps.clear()
        self._spans.clear()
        self._positions.clear()


source_maps = SourceMaps()


def is_internal(filename: str) -> bool:
    return filename.startswith(_PACKAGE_DIR) and not source_maps.is_generated(filename)


def origin_of_frame(frame) -> Optional[Origin]:
    filename = frame.f_code.co_filename
    line = frame.f_lineno
    mapped = source_maps.lookup(filename, line)
    if mapped is not None:
        return mapped
    if source_maps.is_generated(filename):
        return None
    text = linecache.getline(filename, line).strip()
    return Origin(filename, line, frame.f_code.co_name, text)


def user_origin(skip: int = 1) -> Optional[Origin]:
    """The nearest calling frame outside dy2st (generated code maps to the user's line)."""
    frame = sys._getframe(skip)
    while frame is not None:
        filename = frame.f_code.co_filename
        if source_maps.is_generated(filename):
            found = source_maps.lookup_at(frame.f_code, frame.f_lineno, frame.f_lasti)
            if found is not None:
                return found
        elif not filename.startswith(_PACKAGE_DIR) and not filename.startswith("<frozen"):
            return origin_of_frame(frame)
        frame = frame.f_back
    return None
