"""The user-facing gradient functions: `backward`, `grad`, and the Tensor methods
(`backward`, `grad`, `clear_grad`, `register_hook`, ...)."""
from __future__ import annotations

import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from ..runtime import ops
from ..runtime.ops import indexing
from ..runtime.ops.grad_kernels import cleared
from ..runtime.origin import source_maps
from ..runtime.program import Variable
from ..runtime.state import build_state
from ..runtime.tensor import Tensor
from ..runtime.tensor_methods import INPLACE
from .backward_hooks import run_after_backward
from .engine import GradientError, as_grad, ones_like_grad, run_backward, unused_input
from .tape import adopt, check_inplace, needs_tape

Tensors = Union[Tensor, Sequence[Tensor]]


def _as_list(x: Any) -> List[Any]:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _seeds(outputs: List[Tensor], grad_outputs: Any) -> List[Tensor]:
    given = _as_list(grad_outputs)
    if given and len(given) != len(outputs):
        raise ValueError(f"{len(given)} gradients given for {len(outputs)} outputs")
    seeds = []
    for i, out in enumerate(outputs):
        g = given[i] if given else None
        seeds.append(ones_like_grad(out) if g is None else as_grad(g, out))
    return seeds


def _check_differentiable(outputs: List[Any], what: str) -> None:
    for out in outputs:
        if not isinstance(out, Tensor):
            raise TypeError(f"{what} expects Tensors, got {type(out).__name__}")
        if out.stop_gradient:
            raise GradientError(
                f"{what}: the tensor (shape {out.shape}) does not depend on any tensor that "
                "needs a gradient (stop_gradient=True everywhere); set stop_gradient=False on an "
                "input or use Parameters")


def backward(tensors: Tensors, grad_tensors: Any = None, retain_graph: bool = False) -> None:
    """Accumulate into every leaf's `.grad` the gradient of `tensors` (seeded with
    `grad_tensors`, ones where None)."""
    outputs = _as_list(tensors)
    if outputs and isinstance(outputs[0], Variable):
        # lazy: keeps autograd.static_api out of `import dy2st` (loaded on first use)
        from .static_api import traced_backward
        traced_backward(outputs, grad_tensors, retain_graph)
        run_after_backward()
        return None
    _check_differentiable(outputs, "backward")
    run_backward(outputs, _seeds(outputs, grad_tensors), retain_graph, False)
    run_after_backward()
    return None


def grad(outputs: Tensors, inputs: Tensors, grad_outputs: Any = None,
         retain_graph: Optional[bool] = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool = False,
         no_grad_vars: Any = None) -> List[Optional[Tensor]]:
    """The gradients of `outputs` with respect to `inputs` (a list, one per input); leaves'
    `.grad` are left alone. `create_graph=True` records the gradient computation itself so it
    can be differentiated again; no gradient flows through `no_grad_vars`. As in Paddle 3.3.1
    (whose paddle.grad runs on a copy of the graph), the graph is never freed: a later
    `paddle.grad` or `backward()` through it works whatever `retain_graph` says."""
    outs, ins = _as_list(outputs), _as_list(inputs)
    if outs and isinstance(outs[0], Variable):
        # lazy: keeps static autograd out of `import dy2st` (loaded on first use)
        from .traced_paddle_grad import grad_of_variables
        return grad_of_variables(outs, ins, grad_outputs, create_graph, allow_unused,
                                 _as_list(no_grad_vars))
    _check_differentiable(outs, "paddle.grad")
    for x in ins + _as_list(no_grad_vars):
        if not isinstance(x, Tensor):
            raise TypeError(f"paddle.grad: inputs and no_grad_vars must be Tensors, got "
                            f"{type(x).__name__}")
    found = run_backward(outs, _seeds(outs, grad_outputs), True, create_graph, capture=ins,
                         blocked=_as_list(no_grad_vars))
    result = []
    for i, (x, g) in enumerate(zip(ins, found)):
        if g is None:
            if not allow_unused:
                raise unused_input(i, x._value.shape)
            result.append(None)
            continue
        if not create_graph:
            g = Tensor(g._value)
        result.append(g)
    return result


# ----------------------------------------------------------------------------- Tensor methods
def _tensor_backward(self: Tensor, grad_tensor: Any = None, retain_graph: bool = False) -> None:
    backward([self], None if grad_tensor is None else [grad_tensor], retain_graph)


def _converted_caller() -> bool:
    """Whether `.grad` is read by converted code, which understands a value flagged None on
    some paths (library code, such as an optimizer step, does not)."""
    return source_maps.is_generated(sys._getframe(2).f_code.co_filename)


def _get_grad(self: Tensor) -> Optional[Tensor]:
    if build_state.blocks:
        # lazy: keeps autograd.traced out of `import dy2st` (loaded on first use)
        from .traced import traced_grad
        return traced_grad(self, _converted_caller())
    return getattr(self, "_grad", None)


def _set_grad(self: Tensor, value: Any) -> None:
    if value is not None and not isinstance(value, Tensor):
        value = Tensor(np.asarray(value, dtype=self._value.dtype))
    self._grad = value


def _clear_grad(self: Tensor, set_to_zero: bool = True) -> None:
    if build_state.blocks:
        # inside a traced step the gradient is cleared when the program runs
        from .traced import traced_clear_grad
        return traced_clear_grad(self, set_to_zero)
    g = getattr(self, "_grad", None)
    if g is None:
        return
    self._grad = Tensor(cleared(g._value.shape, g._value.dtype)) if set_to_zero else None


def _register_hook(self: Tensor, hook: Callable[[Tensor], Optional[Tensor]]) -> Any:
    if self.stop_gradient:
        raise GradientError("register_hook: the tensor has stop_gradient=True, so no gradient "
                            "will reach the hook")
    if self._node is not None:
        node, idx = self._node, self._out_index
        if node.out_hooks is None:
            node.out_hooks = {}
        hooks = node.out_hooks.setdefault(idx, [])
    else:
        hooks = getattr(self, "_hooks", None)
        if hooks is None:
            hooks = self._hooks = []
    hooks.append(hook)
    return _HookHandle(hooks, hook)


class _HookHandle:
    def __init__(self, hooks: list, hook: Callable) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def _is_leaf(self: Tensor) -> bool:
    return self._node is None


def _detach(self: Tensor) -> Tensor:
    return Tensor(self._value, stop_gradient=True)


def _detach_(self: Tensor) -> Tensor:
    self._node = None
    self.stop_gradient = True
    return self


# ----------------------------------------------------------------------------- in-place changes
def _tracked_setitem(original: Callable) -> Callable:
    def setitem(self: Tensor, index: Any, value: Any) -> None:
        # (indices carry no gradient; the common case, nothing needs one, costs two checks)
        if self.stop_gradient and (type(value) is not Tensor or value.stop_gradient) \
                or not needs_tape(self, value):
            return original(self, index, value)
        check_inplace(self, "x[index] = value")
        adopt(self, indexing.setitem(self, index, value))
    return setitem


def _tracked_inplace(name: str, original: Callable, fn: Callable) -> Callable:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if not needs_tape(self, *args, *kwargs.values()):
            return original(self, *args, **kwargs)
        check_inplace(self, f"Tensor.{name}")
        adopt(self, fn(self, *args, **kwargs))
        return self
    method.__name__ = name
    return method


def _inplace_ops() -> Dict[str, Callable]:
    """The eager in-place methods and the out-of-place ops they apply."""
    return {"add_": ops.add, "subtract_": ops.subtract, "multiply_": ops.multiply,
            "scale_": ops.scale, "clip_": ops.clip, "unsqueeze_": ops.unsqueeze,
            "squeeze_": ops.squeeze, "reshape_": lambda x, *a, **k: x.reshape(*a, **k),
            **_more_inplace_ops()}


def _more_inplace_ops() -> Dict[str, Callable]:
    return dict(INPLACE)


def _variable_backward(self: Variable, grad_tensor: Any = None, retain_graph: bool = False) -> None:
    backward([self], None if grad_tensor is None else [grad_tensor], retain_graph)


def _variable_grad(self: Variable) -> Optional[Any]:
    if not build_state.blocks:
        return None
    # lazy: keeps autograd.traced out of `import dy2st` (loaded on first use)
    from .traced import traced_grad
    return traced_grad(self, _converted_caller())


def install() -> None:
    Variable.backward = _variable_backward
    # an input of a traced function has the `.grad` of the call's tensor (autograd.traced)
    Variable.grad = property(_variable_grad)
    Variable.clear_grad = _clear_grad
    Variable.clear_gradient = _clear_grad
    # an eager in-place change of a tensor that needs a gradient is recorded like its
    # out-of-place op (and refused on a leaf); static Variables keep the plain methods
    Tensor.__setitem__ = _tracked_setitem(Tensor.__setitem__)
    for name, fn in _inplace_ops().items():
        original = getattr(Tensor, name, None)
        if original is not None:
            setattr(Tensor, name, _tracked_inplace(name, original, fn))
    Tensor.backward = _tensor_backward
    Tensor.grad = property(_get_grad, _set_grad)
    Tensor.gradient = lambda self: None if self.grad is None else self.grad.numpy()
    Tensor.clear_grad = _clear_grad
    Tensor.clear_gradient = _clear_grad
    Tensor.register_hook = _register_hook
    Tensor.is_leaf = property(_is_leaf)
    Tensor.detach = _detach
    Tensor.detach_ = _detach_
