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


_UNKNOWN = object()     # an instruction whose origin is not looked up yet


class _CodeOrigins:
    """What is known of one code object of generated code: its file's maps, its instruction
    positions (decoded once, when first needed) and the origin found at each instruction offset
    (ops are made many per line, and loops trace the same lines again)."""

    __slots__ = ("code", "lines", "spans", "_positions", "at")

    def __init__(self, code: Any, lines: Dict[int, Origin],
                 spans: Dict[int, List[Tuple[int, int, Origin]]]) -> None:
        self.code = code        # kept alive, so that id(code) keys stay valid
        self.lines, self.spans = lines, spans   # (registering the file again drops this entry)
        self._positions: Optional[List[Tuple]] = None
        self.at: Dict[int, Any] = {}

    def position(self, lasti: int) -> Optional[Tuple]:
        """(line, end line, col, end col) of the instruction at byte offset lasti, if known."""
        if lasti < 0 or not hasattr(self.code, "co_positions"):
            return None
        if self._positions is None:
            self._positions = list(self.code.co_positions())
        i = lasti // 2
        return self._positions[i] if i < len(self._positions) else None

    def find(self, lasti: int, line: int) -> Any:
        """The origin at instruction lasti of `line`: an Origin, a DeferredOrigin or None."""
        statement = self.lines.get(line)
        spans = self.spans.get(line)
        if not spans:
            return statement
        if statement is None:       # whether an expression maps is only known from its position
            return _innermost(spans, self.position(lasti), line, None)
        return DeferredOrigin(self, lasti, line, spans, statement)


def _innermost(spans: List[Tuple[int, int, Origin]], pos: Optional[Tuple], line: int,
               statement: Optional[Origin]) -> Optional[Origin]:
    """The origin of the narrowest expression span around position pos (else the statement's)."""
    if pos is not None and pos[0] == line and pos[2] is not None:
        inside = [(end - col, o) for col, end, o in spans
                  if col <= pos[2] and (pos[3] or pos[2]) <= end]
        if inside:
            return min(inside, key=lambda t: t[0])[1]
    return statement


class DeferredOrigin:
    """The origin of ops made at one instruction of generated code, worked out when first read:
    finding the expression around it decodes the code's whole position table, which only error
    messages, printing and saving need. Holds the line's maps as they were when the op was made."""

    __slots__ = ("_code", "_lasti", "_line", "_spans", "_statement", "_resolved")

    def __init__(self, code: _CodeOrigins, lasti: int, line: int,
                 spans: List[Tuple[int, int, Origin]], statement: Origin) -> None:
        self._code, self._lasti, self._line = code, lasti, line
        self._spans, self._statement = spans, statement
        self._resolved: Optional[Origin] = None

    def resolve(self) -> Origin:
        if self._resolved is None:
            self._resolved = _innermost(self._spans, self._code.position(self._lasti),
                                        self._line, self._statement)
        return self._resolved


class SourceMaps:
    """Generated file name -> {generated line: Origin of the user's statement}, plus the column
    spans of expressions on each generated line (a statement of several user lines maps each
    call to its own line)."""

    def __init__(self) -> None:
        self._maps: Dict[str, Dict[int, Origin]] = {}
        self._spans: Dict[str, Dict[int, List[Tuple[int, int, Origin]]]] = {}
        # id(code) -> what is known of that code object; keyed by id because hashing a code
        # object hashes its whole bytecode and constants
        self._codes: Dict[int, _CodeOrigins] = {}
        # id(code) -> code of dy2st's own functions, which origins skip (never generated code)
        self._internal: Dict[int, Any] = {}

    def register(self, filename: str, line_map: Dict[int, Origin],
                 spans: Optional[Dict[int, List[Tuple[int, int, Origin]]]] = None) -> None:
        self._maps[filename] = line_map
        self._spans[filename] = spans or {}
        stale = [k for k, c in self._codes.items() if c.code.co_filename == filename]
        for k in stale:
            del self._codes[k]

    def lookup(self, filename: str, line: int) -> Optional[Origin]:
        m = self._maps.get(filename)
        if m is None:
            return None
        return m.get(line)

    def _code_origins(self, code: Any) -> _CodeOrigins:
        entry = self._codes.get(id(code))
        if entry is None or entry.code is not code:
            filename = code.co_filename
            entry = self._codes[id(code)] = _CodeOrigins(code, self._maps.get(filename, {}),
                                                         self._spans.get(filename, {}))
        return entry

    def lookup_at(self, code: Any, line: int, lasti: int) -> Optional[Origin]:
        """The origin of the expression running at instruction offset `lasti` of code (falls
        back to the statement of `line`)."""
        filename = code.co_filename
        statement = self.lookup(filename, line)
        spans = self._spans.get(filename, {}).get(line)
        if not spans:
            return statement
        return _innermost(spans, self._code_origins(code).position(lasti), line, statement)

    def frame_origin(self, frame: Any) -> Any:
        """lookup_at for a frame of generated code, remembered per (code, instruction); an
        Origin, a DeferredOrigin or None."""
        entry = self._code_origins(frame.f_code)
        lasti = frame.f_lasti
        found = entry.at.get(lasti, _UNKNOWN)
        if found is _UNKNOWN:
            found = entry.at[lasti] = entry.find(lasti, frame.f_lineno)
        return found

    def is_generated(self, filename: str) -> bool:
        return filename in self._maps

    def user_origin(self, frame: Any) -> Any:
        """The origin (maybe deferred) of the nearest frame, from `frame` outwards, outside
        dy2st's own code."""
        internal, codes = self._internal, self._codes
        while frame is not None:
            code = frame.f_code
            key = id(code)
            if internal.get(key) is code:       # most frames on the way: skip them quickly
                frame = frame.f_back
                continue
            entry = codes.get(key)
            if entry is not None and entry.code is code:
                lasti = frame.f_lasti
                found = entry.at.get(lasti, _UNKNOWN)
                if found is _UNKNOWN:
                    found = entry.at[lasti] = entry.find(lasti, frame.f_lineno)
                if found is not None:
                    return found
            else:
                filename = code.co_filename
                if filename in self._maps:
                    found = self.frame_origin(frame)
                    if found is not None:
                        return found
                elif filename.startswith(_PACKAGE_DIR) or filename.startswith("<frozen"):
                    internal[key] = code
                else:
                    return origin_of_frame(frame)
            frame = frame.f_back
        return None

    def clear(self) -> None:
        self._maps.clear()
        self._spans.clear()
        self._codes.clear()
        self._internal.clear()


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
    found = source_maps.user_origin(sys._getframe(skip))
    return found.resolve() if isinstance(found, DeferredOrigin) else found


def op_origin(skip: int = 1) -> Any:
    """user_origin, possibly as a DeferredOrigin (for ops, whose origin is rarely read)."""
    return source_maps.user_origin(sys._getframe(skip))
