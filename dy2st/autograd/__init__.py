"""Automatic differentiation: the eager tape, `backward` / `grad`, grad modes, and one gradient
rule per op serving eager backward and static `append_backward` alike."""
from __future__ import annotations

from ..runtime.registry import hooks as _registry_hooks
from . import tape as _tape
from .api import backward, grad, install as _install_tensor_api
from .engine import GradientError
from .mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .jacobian import Hessian, Jacobian, hessian, jacobian
from .py_layer import PyLayer, PyLayerContext
from .saved_hooks import saved_tensors_hooks
from .rules import NO_GRAD, RULES, load_rules, mark_no_grad, register_vjp

Function = PyLayer     # Paddle 3.3.1's torch-style name: paddle.autograd.Function is PyLayer

load_rules()
_install_tensor_api()
_registry_hooks.record = _tape.record

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "GradientError", "register_vjp", "mark_no_grad", "PyLayer", "PyLayerContext",
           "jacobian", "hessian", "Jacobian", "Hessian", "saved_tensors_hooks", "Function"]
