"""The Optimizer base class (paddle.optimizer.Optimizer): parameter groups, learning rate,
gradient clipping, weight decay, state and the step loop shared by every optimizer.

Every update is written with dy2st ops under no_grad and stored with `write_persistable`, and
all state (moments, beta powers, the learning rate) lives in Tensors. So the same `step()`
updates parameters at once in eager mode and, when a whole train step is traced by `to_static`,
becomes ops of the compiled Program that update parameters and state in place at every run."""
from __future__ import annotations

import functools
import numbers
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..autograd.mode import no_grad
from ..autograd.static_api import append_backward
from ..autograd.traced_inputs import fed_input, wrote_grad
from ..autograd.traced_reach import grad_flag
from ..nn.clip import GradientClipBase
from ..regularizer import L2Decay, WeightDecayRegularizer
from ..runtime import ops, state
from ..runtime.control_flow.cond import cond
from ..runtime.dtype import float32
from ..runtime.persistable import write_persistable
from ..runtime.program import Variable
from ..runtime.tensor import Tensor
from .lr import LRScheduler

__all__ = ["Optimizer"]

ParamsGrads = List[Tuple[Any, Any]]


def _as_regularizer(weight_decay: Any, what: str) -> Optional[WeightDecayRegularizer]:
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    if isinstance(weight_decay, numbers.Real) and not isinstance(weight_decay, bool):
        return L2Decay(float(weight_decay))
    raise TypeError(f"{what}: weight_decay must be a float, an L1Decay / L2Decay or None, got "
                    f"{type(weight_decay).__name__}")


class Optimizer:
    """Base class of the optimizers. Subclasses name their per-parameter state in
    `_accumulator_specs` and implement `_update(param, grad, lr, group)`."""

    # (name, fill value or None for the subclass's _fill(name), shape or None for the param's)
    _accumulator_specs: Tuple[Tuple[str, Any, Any], ...] = ()

    @no_grad()
    def __init__(self, learning_rate: Any, parameters: Any = None, weight_decay: Any = None,
                 grad_clip: Optional[GradientClipBase] = None, name: Optional[str] = None) -> None:
        if parameters is None and not state.in_static_mode():
            raise AttributeError("parameters argument given to the Optimizer should not be None "
                                 "in dygraph mode.")
        if isinstance(parameters, Tensor):
            raise TypeError("`parameters` argument given to the optimizer should be an iterable "
                            f"of paddle Tensors, but got argument type is `{type(parameters)}`.")
        if isinstance(parameters, dict):
            raise TypeError("`parameters` argument should not get dict type, if parameter groups "
                            "is needed, please set `parameters` as list of dict")
        # static mode (program_guard) without parameters: minimize(loss) trains every one
        self._parameter_list = list(parameters) if parameters is not None else []
        if parameters is not None and not self._parameter_list:
            raise ValueError("the optimizer got an empty list of parameters")
        if isinstance(learning_rate, bool) or not isinstance(learning_rate,
                                                              (numbers.Real, LRScheduler)):
            raise TypeError(f"learning rate should be float or LRScheduler, got "
                            f"{type(learning_rate).__name__} here")
        if grad_clip is not None and not isinstance(grad_clip, GradientClipBase):
            raise TypeError("'grad_clip' should be an instance of GradientClipBase's derived "
                            "class (nn.ClipGradByGlobalNorm, ClipGradByNorm or ClipGradByValue)")
        self._name = name
        self.regularization = _as_regularizer(weight_decay, type(self).__name__)
        self._grad_clip = grad_clip
        self._learning_rate = learning_rate if isinstance(learning_rate, LRScheduler) \
            else float(learning_rate)
        first = self._parameter_list[0] if self._parameter_list else None
        first = first.get("params") if isinstance(first, dict) else first
        if isinstance(first, (list, tuple)) and first:
            first = first[0]
        self._dtype = first.dtype if isinstance(first, Tensor) and first.dtype.is_floating \
            else float32
        if self._dtype == "float16":
            self._dtype = float32       # as Paddle: a float16 learning rate would lose digits
        # the learning rate every update reads at run time; schedulers and set_lr write it
        self._lr_tensor = Tensor(np.asarray(self.get_lr(), dtype=self._dtype.np),
                                 name=f"{name or type(self).__name__.lower()}_learning_rate",
                                 persistable=True)
        if isinstance(self._learning_rate, LRScheduler):
            self._learning_rate._attach(self._lr_tensor)
        self._accumulators: Dict[str, Dict[str, Tensor]] = {}
        self._accumulators_holder: Dict[str, Any] = {}
        self._default_dict: Dict[str, Any] = {"weight_decay": self.regularization,
                                              "grad_clip": self._grad_clip}
        self._param_groups: List[Any] = []
        if self._parameter_list and isinstance(self._parameter_list[0], dict):
            for group in self._parameter_list:
                self._add_param_group(dict(group))
        else:
            for p in self._parameter_list:
                self._check_param(p)
            self._param_groups = self._parameter_list
        self.clear_gradients = self.clear_grad

    # ----------------------------------------------------------------------------- groups
    @staticmethod
    def _check_param(p: Any) -> None:
        if not isinstance(p, Tensor):
            raise TypeError(f"the optimizer's parameters must be Tensors (Parameters), got "
                            f"{type(p).__name__}")

    def _add_param_group(self, param_group: Dict[str, Any]) -> None:
        """Add a dict {'params': [...], 'learning_rate': scale, 'weight_decay': ..., ...}."""
        if "params" not in param_group:
            raise ValueError("params should be set in parameters if parameter groups are "
                             "optimized in different options")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters should be in ordered collections,but received "
                            "set, please use list instead.")
        param_group["params"] = list(params)
        for p in param_group["params"]:
            self._check_param(p)
        for k, v in self._default_dict.items():
            param_group.setdefault(k, v)
        seen = {id(p) for g in self._param_groups for p in g["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        scale = param_group.get("learning_rate", 1.0)
        if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
            raise TypeError("a parameter group's learning_rate is a float that scales the "
                            f"optimizer's learning rate, got {type(scale).__name__}")
        self._param_groups.append(param_group)

    def _groups(self) -> List[Dict[str, Any]]:
        """The parameter groups as dicts (one group of defaults for a plain parameter list)."""
        if self._param_groups and isinstance(self._param_groups[0], dict):
            return self._param_groups
        return [dict(self._default_dict, params=self._param_groups, _plain=True)]

    def _all_params(self) -> List[Tensor]:
        return [p for g in self._groups() for p in g["params"]]

    # ----------------------------------------------------------------------------- lr
    def get_lr(self) -> float:
        """The current learning rate (the scheduler's last_lr when one is used)."""
        if isinstance(self._learning_rate, LRScheduler):
            return self._learning_rate()
        return self._learning_rate

    def set_lr(self, value: float) -> None:
        """Set a float learning rate (not allowed when a scheduler drives it)."""
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"The type of 'value' in optimizer.set_lr must be float, but "
                            f"received {type(value).__name__}.")
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError("optimizer's learning rate can't be LRScheduler when invoke this "
                               "API, because this will lead to conflict.")
        self._learning_rate = float(value)
        write_persistable(self._lr_tensor, np.asarray(value, dtype=self._lr_tensor._value.dtype))

    def set_lr_scheduler(self, scheduler: LRScheduler) -> None:
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(f"The type of 'scheduler' in optimizer.set_lr_schduler must be "
                            f"LRScheduler, but received {type(scheduler).__name__}.")
        self._learning_rate = scheduler
        scheduler._attach(self._lr_tensor)

    def _param_lr(self, param: Tensor, group: Dict[str, Any]) -> Any:
        """The learning rate tensor for `param`: the optimizer's, scaled by its group's factor
        and by the parameter's own ParamAttr learning_rate."""
        lr = self._lr_tensor
        scale = float(group.get("learning_rate", 1.0))
        attr = getattr(param, "optimize_attr", None)
        if isinstance(attr, dict):
            scale *= float(attr.get("learning_rate", 1.0))
        if scale != 1.0:
            lr = ops.scale(lr, scale)
        if lr.dtype != param.dtype:
            lr = ops.cast(lr, param.dtype)
        return lr

    # ----------------------------------------------------------------------------- state
    def _acc_name(self, name: str, param: Tensor) -> str:
        prefix = f"{self._name}_{name}" if self._name is not None else name
        return f"{param.name}_{prefix}_0"

    def _fill(self, name: str, group: Dict[str, Any]) -> float:
        return 0.0

    def _accumulator(self, name: str, param: Tensor, group: Optional[Dict[str, Any]] = None
                     ) -> Tensor:
        """The state tensor `name` of `param`, created (or restored from set_state_dict) on
        first use. Created from numpy directly: a plain value, never an op of a traced step."""
        per_param = self._accumulators.setdefault(name, {})
        acc = per_param.get(param.name)
        if acc is not None:
            return acc
        spec = next(s for s in self._accumulator_specs if s[0] == name)
        fill = self._fill(name, group or self._default_dict) if spec[1] is None else spec[1]
        shape = param.shape if spec[2] is None else spec[2]
        if callable(shape):             # a shape that depends on the optimizer (ASGD's table)
            shape = shape(self, param)
        var_name = self._acc_name(name, param)
        value = np.full(shape, fill, dtype=param._value.dtype if isinstance(param, Tensor)
                        else self._dtype.np)
        if var_name in self._accumulators_holder:
            saved = self._accumulators_holder.pop(var_name)
            if saved.shape != value.shape:
                raise ValueError(f"set_state_dict: {var_name} has shape {list(saved.shape)}, "
                                 f"the optimizer expects {list(value.shape)}")
            value = saved.astype(value.dtype)
        acc = Tensor(value, name=var_name, persistable=True)
        per_param[param.name] = acc
        return acc

    def _create_accumulators(self, params: Sequence[Tensor], group: Dict[str, Any]) -> None:
        for p in params:
            for spec in self._accumulator_specs:
                self._accumulator(spec[0], p, group)

    def state_dict(self) -> Dict[str, Any]:
        """Every state tensor by name, plus "LR_Scheduler" (the scheduler's state) if any."""
        out: Dict[str, Any] = {}
        if not self._accumulators and self._accumulators_holder:
            out.update((k, Tensor(v, name=k)) for k, v in self._accumulators_holder.items())
        for per_param in self._accumulators.values():
            for acc in per_param.values():
                out[acc.name] = acc
        if isinstance(self._learning_rate, LRScheduler):
            out["LR_Scheduler"] = self._learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore what state_dict() returned (state not created yet is restored when it is)."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"set_state_dict expects a dict, got {type(state_dict).__name__}")
        if isinstance(self._learning_rate, LRScheduler):
            if "LR_Scheduler" not in state_dict:
                raise KeyError("set_state_dict: the optimizer uses an LRScheduler but the state "
                               "dict has no 'LR_Scheduler' entry")
            self._learning_rate.set_state_dict(state_dict["LR_Scheduler"])
        # snapshot the values now: the given tensors may change before the state is created
        values = {k: np.array(v._value if isinstance(v, Tensor) else v)
                  for k, v in state_dict.items() if k not in ("LR_Scheduler", "master_weights")}
        updates = []
        for per_param in self._accumulators.values():
            for acc in per_param.values():
                if acc.name not in values:
                    raise KeyError(f"optimizer Tensor {acc.name} not found in the state dict")
                arr = values[acc.name]
                if arr.shape != acc._value.shape:
                    raise ValueError(f"set_state_dict: {acc.name} has shape {list(arr.shape)}, "
                                     f"the optimizer expects {acc.shape}")
                updates.append((acc, arr))
        for acc, arr in updates:
            write_persistable(acc, arr.astype(acc._value.dtype))
        self._accumulators_holder = values

    # ----------------------------------------------------------------------------- stepping
    def _params_grads(self, params: Sequence[Tensor]) -> ParamsGrads:
        out = []
        program = state.current_program()
        for p in params:
            if p.stop_gradient:
                continue
            fed = fed_input(program, p) if program is not None else None
            if fed is not None and fed.needs:
                # its gradient goes to the feed standing for the argument, and an update could
                # not reach the parameter: the step would be lost silently
                raise TypeError(
                    f"optimizer.step() in a to_static function updates the parameter "
                    f"{p.name or ''} that the function takes as the argument {fed.name!r}: a "
                    "traced step cannot update a parameter passed as an argument; read it from "
                    "a Layer passed in, or from a global")
            g = p.grad
            if g is not None:
                out.append((p, g))
        return out

    def _regularizer(self, param: Tensor, group: Dict[str, Any]) -> Optional[WeightDecayRegularizer]:
        """Which coupled weight decay applies to `param` (Paddle's priority): a group's
        weight_decay, else the parameter's ParamAttr regularizer, else the optimizer's."""
        if not group.get("_plain"):
            reg = _as_regularizer(group.get("weight_decay"), type(self).__name__)
            if reg is not None:
                return reg
        own = getattr(param, "regularizer", None)
        return own if own is not None else self.regularization

    def _regularize(self, params_grads: ParamsGrads, group: Dict[str, Any]) -> ParamsGrads:
        out = []
        for p, g in params_grads:
            reg = self._regularizer(p, group)
            if reg is not None:
                term = reg(p, g)
                g = ops.add(g, term if term.dtype == g.dtype else ops.cast(term, g.dtype))
            out.append((p, g))
        return out

    def _apply(self, params_grads: ParamsGrads, group: Dict[str, Any]) -> None:
        clip = group.get("grad_clip", self._grad_clip)
        if clip is not None and params_grads:
            params_grads = clip(params_grads)
        params_grads = self._regularize(params_grads, group)
        self._create_accumulators([p for p, _ in params_grads], group)
        for p, g in params_grads:
            if g.dtype != p.dtype:
                g = ops.cast(g, p.dtype)
            lr = self._param_lr(p, group)
            present = grad_flag(p)
            if present is None:
                self._update(p, g, lr, group)
            else:   # a traced step where p has a gradient on some paths only: skipped elsewhere
                cond(present, functools.partial(self._update, p, g, lr, group))

    def _update(self, param: Tensor, grad: Any, lr: Any, group: Dict[str, Any]) -> None:
        raise NotImplementedError(f"{type(self).__name__} does not define an update; use one of "
                                  "SGD, Momentum, Adam, AdamW, RMSProp, Adagrad")

    def _option(self, group: Dict[str, Any], key: str) -> Any:
        """A hyper-parameter of a group (groups may override the optimizer's defaults)."""
        return group[key] if key in group else self._default_dict[key]

    @no_grad()
    def step(self) -> None:
        """Update every parameter that has a gradient, once."""
        for group in self._groups():
            self._apply(self._params_grads(group["params"]), group)

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Zero (or, with set_to_zero=False, drop) the gradient of every parameter."""
        for p in self._all_params():
            if not p.stop_gradient:
                p.clear_grad(set_to_zero)

    @no_grad()
    def minimize(self, loss: Any, startup_program: Any = None, parameters: Any = None,
                 no_grad_set: Any = None) -> Tuple[list, ParamsGrads]:
        """Update the parameters from their gradients (call loss.backward() first, as in Paddle's
        dynamic mode); returns ([], [(param, grad), ...]). For a loss of a Program being built
        without a preceding backward(), the gradient ops of `loss` are appended first."""
        if not isinstance(loss, (Tensor, Variable)):
            raise TypeError(f"minimize: the loss should be a Tensor, got {type(loss).__name__}")
        if parameters is not None:
            params = [p for p in parameters if isinstance(p, Tensor)]
        else:
            params = self._all_params()
        if no_grad_set:
            skip = {id(p) for p in no_grad_set}
            params = [p for p in params if id(p) not in skip]
        if isinstance(loss, Variable):
            params_grads = self._static_params_grads(loss, params)
        else:
            params_grads = self._params_grads(params)
        self.apply_gradients(params_grads)
        return [], params_grads

    @no_grad()
    def apply_gradients(self, params_grads: ParamsGrads) -> list:
        """Update each parameter from its gradient in the (parameter, gradient) pairs, as
        Paddle's apply_gradients (in a Program being built: append the update ops)."""
        grads = {id(p): (p, g) for p, g in params_grads}
        for group in self._groups():
            mine = [grads.pop(id(p)) for p in group["params"] if id(p) in grads]
            if mine:
                self._apply(mine, group)
        if grads:       # parameters found by append_backward (static mode, parameters=None)
            self._apply(list(grads.values()), dict(self._default_dict, _plain=True))
        return []

    def _static_params_grads(self, loss: Variable, params: List[Tensor]) -> ParamsGrads:
        """(parameter, symbolic gradient) pairs for a loss of a Program being built: those
        backward() already produced in this trace (to_static), else gradient ops appended now
        (Paddle's static minimize)."""
        program = loss.block.program
        traced = [(p, p.grad) for p in params
                  if not p.stop_gradient and wrote_grad(program, p)]
        if traced:
            return traced
        pairs = append_backward(loss, parameter_list=params or None)
        # append_backward names parameters by their graph variables; updates need the tensors
        return [(program.persistables.get(v.name, v), g) for v, g in pairs if g is not None]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(learning_rate={self.get_lr()})"
