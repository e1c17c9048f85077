"""Persistable variables a saved program writes (a buffer updated in forward, `paddle.assign(h,
output=self.buf)`): `persistable_writes` of the model file, so that a loaded model carries the
new value into its next call as eager code and to_static do."""
from __future__ import annotations

from typing import Any, Dict, List

from ..runtime.dtype import dtype_name
from ..runtime.program import Program
from .errors import fail
from .fields import name_field, versioned_list


def writes_doc(program: Program) -> List[Dict[str, str]]:
    """[{"param": persistable name, "value": the variable holding its value after a call}]."""
    return [{"param": old, "value": new} for old, new in program.persistable_writes.items()]


def build_writes(doc: Dict[str, Any], program: Program, where: str) -> None:
    """Check the optional `persistable_writes` (format version 3) and install them on the
    program: each names a parameter of the table once and a fetched variable of its very shape
    and dtype."""
    listed = versioned_list(doc, "persistable_writes", 3, where)
    if listed is None:
        return
    ww = f"{where}: persistable_writes"
    g = program.global_block()
    for i, d in enumerate(listed):
        iw = f"{ww}[{i}]"
        if not isinstance(d, dict) or set(d) != {"param", "value"}:
            raise fail(iw, f"expected {{'param': name, 'value': name}}, got {str(d)[:80]}")
        param = name_field(d["param"], iw + ".param")
        value = name_field(d["value"], iw + ".value")
        if param not in program.persistables or param in program.persistable_writes:
            raise fail(iw, f"{param!r} is not a parameter of the table, or is written twice")
        if value not in program.fetch_names:
            raise fail(iw, f"{value!r} is not a fetched variable of the program")
        target, var = g.vars[param], g.vars[value]
        if var.kind != "dense" or var._shape != target._shape or var.dtype != target.dtype:
            raise fail(iw, f"{value!r} ({dtype_name(var.dtype)}{list(var._shape)}) does not fit "
                           f"the parameter {param!r} "
                           f"({dtype_name(target.dtype)}{list(target._shape)})")
        program.persistable_writes[param] = value
        program.write_targets[param] = program.persistables[param]
