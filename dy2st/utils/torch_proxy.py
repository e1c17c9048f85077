"""paddle.enable_compat / disable_compat: `import torch` (and `torch.nn`, `torch.nn.functional`,
...) gives proxies of the dy2st modules, everywhere or only for the imports made by chosen
modules, as Paddle 3.3.1's torch proxy does."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings
from typing import Any, Dict, Iterable, Optional, Set, Union

Scope = Union[str, Iterable[str], None]

# torch names whose dy2st counterpart lives elsewhere (Paddle's own override list)
OVERRIDES: Dict[str, str] = {"torch.relu": "dy2st.nn.functional.relu"}
# modules whose imports never see the proxy (Paddle blocks tvm_ffi the same way)
BLOCKED: Set[str] = {"tvm_ffi"}


def _within(name: str, roots: Iterable[str]) -> bool:
    return any(name == r or name.startswith(r + ".") for r in roots)


def _importer_in(roots: Set[str]) -> bool:
    """Whether the import being resolved runs code of a module in `roots` (its top level or a
    function of it), found by the module names of the frames on the stack."""
    if not roots:
        return False
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not name.startswith(("importlib", "_frozen_importlib")) and _within(name, roots):
            return True
        frame = frame.f_back
    return False


def _resolve(path: str) -> Any:
    module, _, attr = path.rpartition(".")
    return getattr(importlib.import_module(module), attr)


class ProxyModule(types.ModuleType):
    """`torch.<sub>` standing for `dy2st.<sub>`: its attributes are the dy2st module's, except
    the torch-specific overrides."""

    def __init__(self, source: types.ModuleType, name: str) -> None:
        super().__init__(name)
        self.__dict__["_source"] = source
        self.__file__ = getattr(source, "__file__", None)
        self.__doc__ = source.__doc__

    def __getattr__(self, attr: str) -> Any:
        override = OVERRIDES.get(f"{self.__name__}.{attr}")
        if override is not None:
            return _resolve(override)
        value = getattr(self.__dict__["_source"], attr)
        if isinstance(value, types.ModuleType) and value.__name__.startswith("dy2st."):
            # torch.nn.functional reached by attribute is the same proxy `import` gives
            return importlib.import_module(f"{self.__name__}.{attr}")
        return value

    def __dir__(self) -> Any:
        return dir(self.__dict__["_source"])


class _ProxyLoader(importlib.abc.Loader):
    def __init__(self, source: types.ModuleType) -> None:
        self.source = source

    def create_module(self, spec: Any) -> ProxyModule:
        return ProxyModule(self.source, spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        if hasattr(self.source, "__path__"):
            module.__path__ = []        # a package: `import torch.nn` looks for the submodule


class TorchProxyFinder(importlib.abc.MetaPathFinder):
    """Resolves `torch` and `torch.*` to proxies of `dy2st` and `dy2st.*` when the import is
    allowed: everywhere (scope None) or inside the modules of `scope`, never inside blocked
    modules. A refused import finds the real torch, if one was imported before."""

    def __init__(self) -> None:
        self.scope: Optional[Set[str]] = None     # None: everywhere

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not _within(fullname, ("torch",)):
            return None
        if _importer_in(BLOCKED) or (self.scope is not None and not _importer_in(self.scope)):
            cached = _REAL_TORCH.get(fullname)
            if cached is not None:
                return importlib.util.spec_from_loader(fullname, _CachedLoader(cached))
            return None
        try:
            source = importlib.import_module("dy2st" + fullname[len("torch"):])
        except ModuleNotFoundError:
            return None
        return importlib.util.spec_from_loader(fullname, _ProxyLoader(source),
                                               is_package=hasattr(source, "__path__"))


class _CachedLoader(importlib.abc.Loader):
    def __init__(self, module: types.ModuleType) -> None:
        self.module = module

    def create_module(self, spec: Any) -> types.ModuleType:
        return self.module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


FINDER = TorchProxyFinder()
# real torch modules imported before enable_compat, put back by disable_compat
_REAL_TORCH: Dict[str, types.ModuleType] = {}


def _as_set(scope: Scope) -> Optional[Set[str]]:
    if scope is None:
        return None
    return {scope} if isinstance(scope, str) else set(scope)


def _drop_torch_modules(keep_real: bool) -> None:
    for name, module in list(sys.modules.items()):
        if _within(name, ("torch",)):
            if keep_real and not isinstance(module, ProxyModule):
                _REAL_TORCH[name] = module
            del sys.modules[name]


def enable_compat(*, scope: Scope = None, blocked_modules: Scope = None,
                  backend: str = "torch", silent: bool = False) -> None:
    """Make `import torch` give dy2st: everywhere (scope None), or only for imports made by the
    modules named in `scope` (and their submodules); never by `blocked_modules`. Calling it
    again widens the scope (a warning says so unless `silent`)."""
    if backend != "torch":
        raise ValueError(f"enable_compat: unsupported backend {backend!r} (only 'torch')")
    blocked = _as_set(blocked_modules)
    if blocked:
        BLOCKED.update(blocked)
    wanted = _as_set(scope)
    if FINDER in sys.meta_path:
        if FINDER.scope is None or wanted is None:
            if not silent and FINDER.scope != wanted:
                warnings.warn("enable_compat: torch compat is now enabled globally; the "
                              "previous scope is ignored", stacklevel=2)
            FINDER.scope = None
        else:
            if not silent and not wanted <= FINDER.scope:
                warnings.warn(f"enable_compat: extending the torch compat scope "
                              f"{sorted(FINDER.scope)} with {sorted(wanted)}", stacklevel=2)
            FINDER.scope |= wanted
        return
    FINDER.scope = wanted
    _drop_torch_modules(keep_real=True)
    sys.meta_path.insert(0, FINDER)


def disable_compat() -> None:
    """Undo enable_compat: `import torch` finds the real torch (or nothing) again."""
    if FINDER not in sys.meta_path:
        warnings.warn("disable_compat: torch compat is not enabled", stacklevel=2)
        return
    sys.meta_path.remove(FINDER)
    _drop_torch_modules(keep_real=False)
    sys.modules.update(_REAL_TORCH)
    _REAL_TORCH.clear()
