"""Where an operator came from: the user's file, line and source text.

Generated (transformed) code registers its origins here so that origins found in it point at
the user's original source instead."""
from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Origin:
    file: str
    line: int
    function: str = ""
    source: str = ""
    col: int = 0
    end_col: int = 0

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Origin":
        return self         # frozen: a copied Program shares its origins

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
    """Generated file name -> the user Origin of each of its line numbers. Converted code is
    compiled with every node's line number set to an index into its origins (see
    jit.transform), so the line of any instruction, even inside a multi-line statement, names
    the user's expression that produced it."""

    def __init__(self) -> None:
        self._origins: Dict[str, List[Optional[Origin]]] = {}
        self._trees: Dict[str, Any] = {}
        # id(code) -> code of dy2st's own functions, which origins skip (never generated code);
        # keyed by id because hashing a code object hashes its whole bytecode and constants
        self._internal: Dict[int, Any] = {}

    def register(self, filename: str, origins: List[Optional[Origin]], tree: Any = None) -> None:
        """origins[line] is the Origin of generated `line`; tree: the compiled (tagged) AST."""
        self._origins[filename] = origins
        self._trees[filename] = tree

    def lookup(self, filename: str, line: int) -> Optional[Origin]:
        origins = self._origins.get(filename)
        if origins is None or not 0 <= line < len(origins):
            return None
        return origins[line]

    def tree(self, filename: str) -> Any:
        """The tagged AST compiled under filename (its nodes' line numbers index origins)."""
        return self._trees.get(filename)

    def is_generated(self, filename: str) -> bool:
        return filename in self._origins

    def user_origin(self, frame: Any) -> Optional[Origin]:
        """The origin of the nearest frame, from `frame` outwards, outside dy2st's own code
        (a frame of generated code names the user's line it runs)."""
        internal, origins = self._internal, self._origins
        while frame is not None:
            code = frame.f_code
            key = id(code)
            if internal.get(key) is code:       # most frames on the way: skip them quickly
                frame = frame.f_back
                continue
            filename = code.co_filename
            generated = origins.get(filename)
            if generated is not None:
                line = frame.f_lineno
                found = generated[line] if 0 <= line < len(generated) else None
                if found is not None:
                    return found
            elif filename.startswith(_PACKAGE_DIR) or filename.startswith("<frozen"):
                internal[key] = code
            else:
                return origin_of_frame(frame)
            frame = frame.f_back
        return None

    def clear(self) -> None:
        self._origins.clear()
        self._trees.clear()
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
    return source_maps.user_origin(sys._getframe(skip))

