"""Values a saved program makes new leaves (`y.stop_gradient = False` on a value that needs no
gradient): `new_leaves` of the model file, so that a loaded model fine-tuned gives them, and what
is computed from them, gradients as eager code and to_static do."""
from __future__ import annotations

from typing import Any, Dict, List

from ..runtime.leaf_notes import new_leaves
from ..runtime.program import Program
from .errors import fail
from .fields import name_field, versioned_list


def leaves_doc(program: Program, renumber: Dict[int, int]) -> List[Dict[str, Any]]:
    """[{"var": name, "block": index}] of the noted leaves still in a live block of `program`
    (`renumber`: old block index -> the file's)."""
    return [{"var": name, "block": renumber[idx]}
            for name, (idx, _) in new_leaves(program).items()
            if idx in renumber and name in program.blocks[idx].vars]


def build_leaves(doc: Dict[str, Any], program: Program, where: str) -> None:
    """Check the optional `new_leaves` (format version 4) and note them on the program: each a
    variable of its block, once."""
    listed = versioned_list(doc, "new_leaves", 4, where)
    if listed is None:
        return
    lw = f"{where}: new_leaves"
    noted = new_leaves(program)
    for i, d in enumerate(listed):
        iw = f"{lw}[{i}]"
        if not isinstance(d, dict) or set(d) != {"var", "block"} or type(d["block"]) is not int:
            raise fail(iw, f"expected {{'var': name, 'block': index}}, got {str(d)[:80]}")
        name, idx = name_field(d["var"], iw + ".var"), d["block"]
        if not 0 <= idx < len(program.blocks) or name not in program.blocks[idx].vars \
                or name in noted:
            raise fail(iw, f"{name!r} is not a variable of block {idx}, or is listed twice")
        noted[name] = (idx, None)
