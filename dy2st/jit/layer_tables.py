"""Whether a Layer holds an attribute in its parameter or buffer table: such a tensor belongs to
the programs (a write is a persistable write, a new object bumps the structure epoch)."""
from typing import Any

LAYER_TABLES = ("_parameters", "_buffers")


def in_layer_tables(obj: Any, attr: str) -> bool:
    """`obj.attr` is a parameter or buffer of a Layer (a plain attribute of that name shadows
    the tables, as Layer.__getattr__ looks there only when the instance has none)."""
    d = getattr(obj, "__dict__", None)
    if not d or attr in d or "_parameters" not in d:
        return False
    return any(attr in (d.get(t) or ()) for t in LAYER_TABLES)
