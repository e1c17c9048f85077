"""Module attributes loaded on first use: the `__getattr__` of packages whose names come from
submodules that are costly to import (`import dy2st` and a first conversion stay cheap)."""
from __future__ import annotations

import importlib
from typing import Any, Callable, Dict


def lazy_getattr(package: str, table: Dict[str, str], namespace: Dict[str, Any],
                 same_name: bool = False, root: str = "") -> Callable[[str], Any]:
    """A module `__getattr__` for `package` serving table's names: "module" (a module under
    `root`, by default package itself; with `same_name`, that module's attribute of the same
    name) or "module:attribute". A loaded name is stored in `namespace` (the package's
    globals), so the next access does not come here."""
    def getattr_(name: str) -> Any:
        target = table.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, _, attribute = target.partition(":")
        value = importlib.import_module(f"{root or package}.{module_name}")
        attribute = attribute or (name if same_name else "")
        if attribute:
            value = getattr(value, attribute)
        namespace[name] = value
        return value
    return getattr_
