"""Attach the user's original location to every node of a parsed function."""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional

import gast

from ..runtime.origin import Origin
from . import anno
from .walk import all_nodes


def attach_origins(tree: gast.AST, filename: str, first_line: int, source_lines: List[str],
                   function: str, nodes: Optional[Iterable[gast.AST]] = None) -> None:
    """first_line: the file line of the parsed source's line 1 (`nodes`: tree's nodes in
    pre-order, when the caller already has them). Nodes of one line share one Origin, whose
    columns are those of the line's first (outermost) node."""
    by_line: Dict[int, Origin] = {}
    for node in nodes if nodes is not None else all_nodes(tree):
        fields = node.__dict__
        lineno = fields.get("lineno")
        if lineno is None:
            continue
        origin = by_line.get(lineno)
        if origin is None:
            text = source_lines[lineno - 1].strip() if 0 < lineno <= len(source_lines) else ""
            end = fields.get("end_col_offset") if fields.get("end_lineno") == lineno else None
            origin = by_line[lineno] = Origin(filename, first_line + lineno - 1, function, text,
                                              fields.get("col_offset") or 0, end or 0)
        anno.setanno(node, anno.ORIGIN, origin)
