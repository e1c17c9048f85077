"""Attach the user's original location to every node of a parsed function."""
from __future__ import annotations

from typing import Iterable, List, Optional

import gast

from ..runtime.origin import Origin
from . import anno
from .walk import all_nodes


def attach_origins(tree: gast.AST, filename: str, first_line: int, source_lines: List[str],
                   function: str, nodes: Optional[Iterable[gast.AST]] = None) -> None:
    """first_line: the file line of the parsed source's line 1 (`nodes`: tree's nodes, when the
    caller already walked it)."""
    for node in nodes if nodes is not None else all_nodes(tree):
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            continue
        text = source_lines[lineno - 1].strip() if 0 < lineno <= len(source_lines) else ""
        anno.setanno(node, anno.ORIGIN, Origin(filename, first_line + lineno - 1, function, text,
                                               getattr(node, "col_offset", 0) or 0,
                                               getattr(node, "end_col_offset", 0) or 0))
