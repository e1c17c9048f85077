"""paddle.amp.GradScaler / AmpScaler: loss scaling with Paddle's dynamic update rule.

scale(loss) multiplies by the scale; step / minimize divide the gradients by it, skip the
optimizer step when any is inf or nan, and (dynamic scaling) update the scale: after
`decr_every_n_nan_or_inf` overflowing steps in a row it is multiplied by decr_ratio, after
`incr_every_n_steps` clean steps in a row by incr_ratio; each counter restarts when the other
kind of step comes, and when it fires."""
from __future__ import annotations

import enum
import warnings
from collections import defaultdict
from typing import Any, Dict, Tuple

import numpy as np

from ..autograd import no_grad
from ..runtime.dtype import dtype_name
from ..runtime.tensor import Tensor
from . import auto_cast as _auto_cast


class OptimizerState(enum.Enum):
    INIT = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> Dict[str, OptimizerState]:
    return {"state": OptimizerState.INIT}


class AmpScaler:
    """Paddle's AmpScaler (defaults init_loss_scaling=2**15, incr_every_n_steps=1000,
    decr_every_n_nan_or_inf=2); GradScaler is the same with Paddle's newer defaults."""

    def __init__(self, enable: bool = True, init_loss_scaling: float = 2.0 ** 15,
                 incr_ratio: float = 2.0, decr_ratio: float = 0.5,
                 incr_every_n_steps: int = 1000, decr_every_n_nan_or_inf: int = 2,
                 use_dynamic_loss_scaling: bool = True) -> None:
        if incr_ratio <= 1.0:
            raise ValueError("The incr_ratio must be > 1.0.")
        if decr_ratio >= 1.0:
            raise ValueError("The decr_ratio must be < 1.0.")
        self._enable = bool(enable)
        self._use_dynamic_loss_scaling = bool(use_dynamic_loss_scaling) and self._enable
        self._init_loss_scaling = float(init_loss_scaling)
        self._scale = float(init_loss_scaling)
        self._incr_ratio = float(incr_ratio)
        self._decr_ratio = float(decr_ratio)
        self._incr_every_n_steps = int(incr_every_n_steps)
        self._decr_every_n_nan_or_inf = int(decr_every_n_nan_or_inf)
        self._incr_count = 0
        self._decr_count = 0
        self._found_inf = False
        self._cache_found_inf = False
        self._optimizer_states: Dict[int, Dict[str, OptimizerState]] = defaultdict(_fresh_state)

    # ----------------------------------------------------------------------------- scaling
    def scale(self, var: Any) -> Any:
        """var * the loss scale (var itself when disabled)."""
        if not self._enable:
            return var
        dtype = _auto_cast.last_dtype()
        if dtype == "bfloat16" and self._use_dynamic_loss_scaling:
            # bfloat16 has float32's range: Paddle turns dynamic loss scaling off for it, also
            # when scale() comes after the auto_cast block (Paddle reads the last block's dtype)
            warnings.warn(f"It is not recommended to use dynamic loss scaling for "
                          f"{dtype_name(dtype)}, so GradScaler is disabled.")
            self._enable = False
            self._use_dynamic_loss_scaling = False
            self._init_loss_scaling = 1.0
            return var
        return var * self._scale

    def _unscale(self, optimizer: Any) -> None:
        """Divide every gradient the optimizer will use by the scale, noting inf / nan."""
        if not self._enable:
            return
        found = False
        inv = 1.0 / self._scale
        with no_grad():
            for p in _parameters(optimizer):
                g = p.grad
                if g is None:
                    continue
                value = g._value
                if not np.all(np.isfinite(value)):
                    found = True
                g.set_value((value * np.asarray(inv, dtype=value.dtype)).astype(value.dtype))
        self._found_inf = found

    def unscale_(self, optimizer: Any) -> None:
        """Unscale the optimizer's gradients now (to clip them before step)."""
        if not self._enable:
            return
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        self._unscale(optimizer)
        state["state"] = OptimizerState.UNSCALED

    def minimize(self, optimizer: Any, *args: Any, **kwargs: Any) -> Tuple[Any, Any]:
        """Unscale, step unless a gradient overflowed, and update the scale."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        result: Tuple[Any, Any] = (None, None)
        if self._found_inf:
            self._cache_found_inf = True
        else:
            result = optimizer.minimize(*args, **kwargs)
            self._cache_found_inf = False
        if self._use_dynamic_loss_scaling:
            self._update()
        self._optimizer_states = defaultdict(_fresh_state)
        return result

    def _update(self) -> None:
        """Paddle's dynamic loss-scaling rule (see the module docstring)."""
        if not self._enable:
            return
        if self._cache_found_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                self._scale = self._scale * self._decr_ratio
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                self._scale = self._scale * self._incr_ratio
                self._incr_count = 0

    # ----------------------------------------------------------------------------- settings
    def is_enable(self) -> bool:
        return self._enable

    def is_use_dynamic_loss_scaling(self) -> bool:
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self) -> float:
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling: float) -> None:
        """Set the initial scale, and the current scale to it."""
        self._init_loss_scaling = float(new_init_loss_scaling)
        self._scale = float(new_init_loss_scaling)

    def get_incr_ratio(self) -> float:
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio: float) -> None:
        if new_incr_ratio <= 1.0:
            raise ValueError("The incr_ratio must be > 1.0.")
        self._incr_ratio = float(new_incr_ratio)

    def get_decr_ratio(self) -> float:
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio: float) -> None:
        if new_decr_ratio >= 1.0:
            raise ValueError("The decr_ratio must be < 1.0.")
        self._decr_ratio = float(new_decr_ratio)

    def get_incr_every_n_steps(self) -> int:
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps: int) -> None:
        self._incr_every_n_steps = int(new_incr_every_n_steps)

    def get_decr_every_n_nan_or_inf(self) -> int:
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf: int) -> None:
        self._decr_every_n_nan_or_inf = int(new_decr_every_n_nan_or_inf)

    def get_loss_scaling(self) -> Tensor:
        """The current scale, as a float32 tensor (Paddle's _scale)."""
        return Tensor(np.array([self._scale], dtype=np.float32))

    def state_dict(self) -> Dict[str, Any]:
        """The scaler's state (empty when disabled), as Paddle's keys."""
        if not self._enable:
            return {}
        return {"scale": np.array([self._scale], dtype=np.float32),
                "incr_ratio": self._incr_ratio, "decr_ratio": self._decr_ratio,
                "incr_every_n_steps": self._incr_every_n_steps,
                "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf,
                "incr_count": self._incr_count, "decr_count": self._decr_count,
                "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore a state_dict() (refused when it is empty, i.e. saved while disabled)."""
        if not self._enable:
            return
        if not state_dict:
            raise RuntimeError("The input state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        scale = state_dict["scale"]
        self._scale = float(np.asarray(getattr(scale, "_value", scale)).reshape(-1)[0])
        self._incr_ratio = float(state_dict["incr_ratio"])
        self._decr_ratio = float(state_dict["decr_ratio"])
        self._incr_every_n_steps = int(state_dict["incr_every_n_steps"])
        self._decr_every_n_nan_or_inf = int(state_dict["decr_every_n_nan_or_inf"])
        self._incr_count = int(state_dict["incr_count"])
        self._decr_count = int(state_dict["decr_count"])
        self._use_dynamic_loss_scaling = bool(state_dict["use_dynamic_loss_scaling"])


class GradScaler(AmpScaler):
    """Paddle's GradScaler: defaults init_loss_scaling=2**16, incr_every_n_steps=2000,
    decr_every_n_nan_or_inf=1; use scale(loss).backward(), then step(opt) and update(), or
    minimize(opt, scaled_loss)."""

    def __init__(self, enable: bool = True, init_loss_scaling: float = 2.0 ** 16,
                 incr_ratio: float = 2.0, decr_ratio: float = 0.5,
                 incr_every_n_steps: int = 2000, decr_every_n_nan_or_inf: int = 1,
                 use_dynamic_loss_scaling: bool = True) -> None:
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio, incr_every_n_steps,
                         decr_every_n_nan_or_inf, use_dynamic_loss_scaling)

    def step(self, optimizer: Any) -> None:
        """Unscale (unless unscale_ ran), and step unless a gradient is inf or nan."""
        if not self._enable:
            optimizer.step()
            return
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        if self._found_inf:
            self._cache_found_inf = True
        else:
            optimizer.step()
            self._cache_found_inf = False
        state["state"] = OptimizerState.STEPPED
        if not self._use_dynamic_loss_scaling:
            self._optimizer_states = defaultdict(_fresh_state)

    def update(self) -> None:
        """Update the scale after step() (dynamic loss scaling only)."""
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update()
            self._optimizer_states = defaultdict(_fresh_state)


def _parameters(optimizer: Any) -> Any:
    params = getattr(optimizer, "_parameter_list", None) or []
    for p in params:
        if isinstance(p, dict):
            yield from p["params"]
        else:
            yield p
