"""paddle.static.amp.decorate: an optimizer whose minimize(loss) makes a static Program train in
mixed precision: the forward ops get auto_cast's casts (rewrite.py), the loss is scaled, the
gradients unscaled and checked, the update is skipped on an overflow, and the loss scaling
follows Paddle's dynamic rule (update_loss_scaling), all as ops of the Program."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ...autograd import no_grad
from ...autograd.static_api import append_backward
from ...runtime import ops
from ...runtime.dtype import dtype_name
from ...runtime.persistable import write_persistable
from ...runtime.program import Program, Variable, program_guard
from ...runtime.tensor import Tensor
from .fp16_lists import AutoMixedPrecisionLists, check_amp_dtype
from .rewrite import rewrite_program

__all__ = ["decorate", "OptimizerWithMixedPrecision"]

_LEVELS = ("O1", "O2", "OD")


class OptimizerWithMixedPrecision:
    """The optimizer returned by `decorate`; unknown attributes are the wrapped optimizer's."""

    def __init__(self, optimizer: Any, amp_lists: Optional[AutoMixedPrecisionLists], level: str,
                 dtype: str, init_loss_scaling: float, use_dynamic_loss_scaling: bool,
                 incr_every_n_steps: int, decr_every_n_nan_or_inf: int, incr_ratio: float,
                 decr_ratio: float, use_amp_guard: bool = False, use_promote: bool = False
                 ) -> None:
        if level not in _LEVELS:
            raise ValueError(f"decorate: level must be one of {', '.join(_LEVELS)}, got {level!r}")
        self._optimizer = optimizer
        self._amp_dtype = check_amp_dtype(dtype)
        self._amp_lists = amp_lists or AutoMixedPrecisionLists(dtype=self._amp_dtype)
        if self._amp_lists.amp_dtype != self._amp_dtype:
            raise ValueError(f"decorate: amp_lists are for {dtype_name(self._amp_lists.amp_dtype)}, the "
                             f"optimizer for {dtype_name(self._amp_dtype)}")
        self._amp_level = level
        self._use_amp_guard = bool(use_amp_guard)
        self._use_promote = bool(use_promote)
        self._use_dynamic_loss_scaling = bool(use_dynamic_loss_scaling)
        self._init_loss_scaling = float(init_loss_scaling)
        self._incr_every_n_steps = int(incr_every_n_steps)
        self._decr_every_n_nan_or_inf = int(decr_every_n_nan_or_inf)
        self._incr_ratio = float(incr_ratio)
        self._decr_ratio = float(decr_ratio)
        # the state the programs read and write back after each run (shared by every program
        # this optimizer minimizes, as Paddle's persistable variables are)
        self._loss_scaling = Tensor(np.array([self._init_loss_scaling], np.float32))
        self._num_good_steps = Tensor(np.zeros([1], np.int32))
        self._num_bad_steps = Tensor(np.zeros([1], np.int32))
        for t, name in ((self._loss_scaling, "loss_scaling"),
                        (self._num_good_steps, "num_good_steps"),
                        (self._num_bad_steps, "num_bad_steps")):
            t.name, t.persistable = name, True
        self._scaled_loss: Optional[Variable] = None
        self._found_inf: Optional[Variable] = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_optimizer"], name)

    # --------------------------------------------------------------------------- public API
    def get_loss_scaling(self) -> Tensor:
        """The loss scaling (a float32 tensor of one value, updated after each run)."""
        return self._loss_scaling

    def get_scaled_loss(self) -> Optional[Variable]:
        """The loss times the loss scaling, of the program minimize built (None before)."""
        return self._scaled_loss

    def amp_init(self, place: Any = None, scope: Any = None, test_program: Any = None,
                 use_fp16_test: bool = False) -> None:
        """Paddle casts the float32 parameters of an O2 program to float16 here. dy2st keeps
        them float32 (the master weights) and casts them in the program: nothing to do."""
        return None

    def backward(self, loss: Variable, startup_program: Any = None,
                 parameter_list: Optional[List[Any]] = None, no_grad_set: Any = None,
                 callbacks: Any = None) -> List[Tuple[Any, Variable]]:
        """Rewrite the program for mixed precision, then append the gradient ops of the scaled
        loss; returns (parameter, scaled gradient) pairs."""
        if not isinstance(loss, Variable):
            raise TypeError("static.amp: minimize / backward need the loss of a static Program "
                            f"(paddle.enable_static()), got {type(loss).__name__}; in dynamic "
                            "mode use paddle.amp.auto_cast and paddle.amp.GradScaler")
        program = loss.block.program
        rewrite_program(program, self._amp_lists, self._amp_level, self._use_promote,
                        self._use_amp_guard)
        with program_guard(program):
            scaled = ops.multiply(ops.cast(loss, "float32"), self._loss_scaling)
        self._scaled_loss = scaled
        pairs = append_backward(scaled, parameter_list, no_grad_set)
        return [(program.persistables.get(v.name, v), g) for v, g in pairs]

    def apply_gradients(self, params_grads: List[Tuple[Any, Variable]]) -> List[Tuple[Any, Any]]:
        """Unscale the gradients, update the parameters unless one is inf or nan, update the
        loss scaling; returns the (parameter, unscaled gradient) pairs."""
        if not params_grads:
            return []
        program = params_grads[0][1].block.program
        with program_guard(program), no_grad():
            unscaled = [(p, ops.divide(ops.cast(g, "float32"), self._loss_scaling))
                        for p, g in params_grads]
            finite = [ops.all(ops.isfinite(g)) for _, g in unscaled]
            found_inf = ops.logical_not(finite[0] if len(finite) == 1 else
                                        ops.all(ops.stack(finite)))
            self._found_inf = found_inf
            before = dict(program.persistable_writes)
            self._optimizer.apply_gradients(unscaled)
            _skip_writes_when(program, before, found_inf)
            if self._use_dynamic_loss_scaling:
                self._update_loss_scaling(found_inf)
        return unscaled

    def minimize(self, loss: Variable, startup_program: Any = None,
                 parameter_list: Optional[List[Any]] = None, no_grad_set: Any = None
                 ) -> Tuple[List[Any], List[Tuple[Any, Any]]]:
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        return [], self.apply_gradients(params_grads)

    # --------------------------------------------------------------------------- internals
    def _update_loss_scaling(self, found_inf: Variable) -> None:
        """Paddle's update_loss_scaling: an overflowing step counts bad, a clean one good (each
        resets the other count); the scaling is multiplied by decr_ratio (at least 1) after
        decr_every_n_nan_or_inf bad steps, by incr_ratio (unless that overflows) after
        incr_every_n_steps good ones, and that count restarts."""
        scale, good, bad = self._loss_scaling, self._num_good_steps, self._num_bad_steps
        zero = ops.zeros_like(good)
        bad_now = ops.where(found_inf, bad + 1, zero)
        good_now = ops.where(found_inf, zero, good + 1)
        decr = ops.logical_and(found_inf, ops.equal(bad_now, self._decr_every_n_nan_or_inf))
        incr = ops.logical_and(ops.logical_not(found_inf),
                               ops.equal(good_now, self._incr_every_n_steps))
        lowered = ops.maximum(scale * self._decr_ratio, ops.ones_like(scale))
        raised = scale * self._incr_ratio
        raised = ops.where(ops.isfinite(raised), raised, scale)
        write_persistable(scale, ops.where(decr, lowered, ops.where(incr, raised, scale)))
        write_persistable(bad, ops.where(decr, zero, bad_now))
        write_persistable(good, ops.where(incr, zero, good_now))


def _skip_writes_when(program: Program, before: Dict[str, str], found_inf: Variable) -> None:
    """Every persistable the optimizer's update writes keeps its value when found_inf."""
    for original, new_name in list(program.persistable_writes.items()):
        if before.get(original) == new_name:
            continue
        old = program.find_var(before.get(original, original))
        new = program.find_var(new_name)
        write_persistable(program.write_targets[original], ops.where(found_inf, old, new))


# the two signatures of Paddle's decorate (function_overload.py): the float16-only one and the
# common one, told apart by keyword names, else by a float third argument
_FP16_ONLY = ("optimizer", "amp_lists", "init_loss_scaling", "incr_every_n_steps",
              "decr_every_n_nan_or_inf", "incr_ratio", "decr_ratio", "use_dynamic_loss_scaling",
              "use_pure_fp16", "use_fp16_guard", "use_bf16", "use_promote")
_COMMON = ("optimizer", "amp_lists", "level", "dtype", "master_weight", "master_grad",
           "init_loss_scaling", "incr_every_n_steps", "decr_every_n_nan_or_inf", "incr_ratio",
           "decr_ratio", "use_dynamic_loss_scaling", "use_amp_guard", "use_promote")
_FP16_ONLY_DEFAULTS = dict(amp_lists=None, init_loss_scaling=2.0 ** 15, incr_every_n_steps=1000,
                           decr_every_n_nan_or_inf=2, incr_ratio=2.0, decr_ratio=0.8,
                           use_dynamic_loss_scaling=True, use_pure_fp16=False,
                           use_fp16_guard=None, use_bf16=False, use_promote=False)
_COMMON_DEFAULTS = dict(amp_lists=None, level="O1", dtype="float16", master_weight=None,
                        master_grad=False, init_loss_scaling=2.0 ** 16, incr_every_n_steps=2000,
                        decr_every_n_nan_or_inf=1, incr_ratio=2.0, decr_ratio=0.5,
                        use_dynamic_loss_scaling=None, use_amp_guard=False, use_promote=False)


def _bind(names: Tuple[str, ...], defaults: Dict[str, Any], args: Tuple[Any, ...],
          kwargs: Dict[str, Any]) -> Dict[str, Any]:
    if len(args) > len(names):
        raise TypeError(f"decorate() takes at most {len(names)} arguments ({len(args)} given)")
    bound = dict(defaults, **dict(zip(names, args)))
    for k, v in kwargs.items():
        if k in names[:len(args)]:
            raise TypeError(f"decorate() got multiple values for argument {k!r}")
        bound[k] = v
    if "optimizer" not in bound:
        raise TypeError("decorate() missing 1 required positional argument: 'optimizer'")
    return bound


def decorate(*args: Any, **kwargs: Any) -> OptimizerWithMixedPrecision:
    """paddle.static.amp.decorate(optimizer, amp_lists=None, level='O1', dtype='float16',
    master_weight=None, master_grad=False, init_loss_scaling=2**16, incr_every_n_steps=2000,
    decr_every_n_nan_or_inf=1, incr_ratio=2.0, decr_ratio=0.5, use_dynamic_loss_scaling=None,
    use_amp_guard=False, use_promote=False), or Paddle's older float16 signature
    (optimizer, amp_lists=None, init_loss_scaling=2**15, incr_every_n_steps=1000,
    decr_every_n_nan_or_inf=2, incr_ratio=2.0, decr_ratio=0.8, use_dynamic_loss_scaling=True,
    use_pure_fp16=False, use_fp16_guard=None, use_bf16=False, use_promote=False), chosen as
    Paddle chooses: by the keyword names, else by a float third argument."""
    fits = [names for names in (_FP16_ONLY, _COMMON) if all(k in names for k in kwargs)]
    if not fits:
        raise TypeError(f"decorate() got unexpected keyword arguments {sorted(kwargs)}")
    old = fits == [_FP16_ONLY] or (len(fits) == 2 and len(args) >= 3 and isinstance(args[2], float))
    if old:
        a = _bind(_FP16_ONLY, _FP16_ONLY_DEFAULTS, args, kwargs)
        pure = bool(a["use_pure_fp16"])
        guard = pure if a["use_fp16_guard"] is None else bool(a["use_fp16_guard"])
        level, dtype, dynamic = ("O2" if pure else "O1"), ("bfloat16" if a["use_bf16"] else
                                                           "float16"), a["use_dynamic_loss_scaling"]
    else:
        a = _bind(_COMMON, _COMMON_DEFAULTS, args, kwargs)
        level, dtype, guard = a["level"], check_amp_dtype(a["dtype"]), bool(a["use_amp_guard"])
        dynamic = a["use_dynamic_loss_scaling"]
        if dynamic is None:         # as Paddle: dynamic for float16, not for bfloat16
            dynamic = dtype == "float16"
    return OptimizerWithMixedPrecision(
        a["optimizer"], a["amp_lists"], level, dtype, a["init_loss_scaling"], bool(dynamic),
        a["incr_every_n_steps"], a["decr_every_n_nan_or_inf"], a["incr_ratio"], a["decr_ratio"],
        use_amp_guard=guard, use_promote=a["use_promote"])
