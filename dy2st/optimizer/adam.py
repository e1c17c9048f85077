"""Adam and AdamW (paddle.optimizer.Adam / AdamW), with bias correction as Paddle's kernel
applies it: the beta powers start at beta (not 1) and are multiplied by beta after each update,
lr_t = lr * sqrt(1 - beta2_pow) / (1 - beta1_pow) and
param -= lr_t * m / (sqrt(v) + epsilon * sqrt(1 - beta2_pow))."""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..runtime import ops
from ..runtime.persistable import write_persistable
from ..runtime.tensor import Tensor
from .optimizer import Optimizer


def check_betas(beta1: Any, beta2: Any, epsilon: Any) -> None:
    if not isinstance(beta1, Tensor) and not 0 <= beta1 < 1:
        raise ValueError("Invaild value of beta1, expect beta1 in [0,1).")
    if not isinstance(beta2, Tensor) and not 0 <= beta2 < 1:
        raise ValueError("Invaild value of beta2, expect beta2 in [0,1).")
    if not isinstance(epsilon, Tensor) and not 0 <= epsilon:
        raise ValueError("Invaild value of epsilon, expect epsilon >= 0.")


def _one_minus(value: Any) -> Any:
    return 1.0 - value if not isinstance(value, Tensor) else ops.subtract(1.0, value)


def _scalar(value: Any) -> Any:
    """A Python float stays a float; a beta given as a Tensor is read at run time, as 0-d."""
    return ops.reshape(value, []) if isinstance(value, Tensor) else value


class Adam(Optimizer):
    """Adam. `weight_decay` is coupled (added to the gradient as L2 / L1 decay)."""

    _accumulator_specs = (("moment1", 0.0, None), ("moment2", 0.0, None),
                          ("beta1_pow_acc", None, [1]), ("beta2_pow_acc", None, [1]),
                          ("moment2_max", 0.0, None))

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999,
                 epsilon: Any = 1e-08, parameters: Any = None, weight_decay: Any = None,
                 grad_clip: Any = None, lazy_mode: bool = False, multi_precision: bool = False,
                 use_multi_tensor: bool = False, amsgrad: bool = False,
                 name: Optional[str] = None) -> None:
        check_betas(beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._init_adam(beta1, beta2, epsilon, lazy_mode, multi_precision, amsgrad)

    def _init_adam(self, beta1: Any, beta2: Any, epsilon: Any, lazy_mode: bool,
                   multi_precision: bool, amsgrad: bool) -> None:
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        # lazy_mode only changes updates from sparse (row) gradients, which dy2st does not make
        self._lazy_mode = lazy_mode
        self._multi_precision = multi_precision
        self._amsgrad = amsgrad
        self._default_dict.update(beta1=beta1, beta2=beta2, epsilon=epsilon, lazy_mode=lazy_mode)
        if not amsgrad:
            self._accumulator_specs = tuple(s for s in self._accumulator_specs
                                            if s[0] != "moment2_max")

    def _fill(self, name: str, group: dict) -> float:
        # the power starts at the group's beta; a beta given as a Tensor at Paddle's default
        beta = self._option(group, "beta1" if name == "beta1_pow_acc" else "beta2")
        default = 0.9 if name == "beta1_pow_acc" else 0.999
        return default if isinstance(beta, Tensor) else float(beta)

    def _adam_step(self, param: Tensor, grad: Any, lr: Any, group: dict, start: Any) -> None:
        """The Adam update of `param` from the value `start` (param itself, or AdamW's decayed
        param)."""
        beta1 = _scalar(self._option(group, "beta1"))
        beta2 = _scalar(self._option(group, "beta2"))
        eps = _scalar(self._option(group, "epsilon"))
        m = self._accumulator("moment1", param)
        v = self._accumulator("moment2", param)
        b1p_acc = self._accumulator("beta1_pow_acc", param)
        b2p_acc = self._accumulator("beta2_pow_acc", param)
        b1p, b2p = ops.reshape(b1p_acc, []), ops.reshape(b2p_acc, [])
        m_new = ops.add(ops.multiply(beta1, m), ops.multiply(_one_minus(beta1), grad))
        v_new = ops.add(ops.multiply(beta2, v),
                        ops.multiply(_one_minus(beta2), ops.multiply(grad, grad)))
        root = ops.sqrt(ops.subtract(1.0, b2p))
        lr_t = ops.divide(ops.multiply(lr, root), ops.subtract(1.0, b1p))
        second = v_new
        if self._amsgrad:
            v_max = self._accumulator("moment2_max", param)
            second = ops.maximum(v_new, v_max)
            write_persistable(v_max, second)
        denom = ops.add(ops.sqrt(second), ops.multiply(eps, root))
        new_param = ops.subtract(start, ops.multiply(lr_t, ops.divide(m_new, denom)))
        write_persistable(m, m_new)
        write_persistable(v, v_new)
        write_persistable(b1p_acc, ops.multiply(b1p_acc, beta1))
        write_persistable(b2p_acc, ops.multiply(b2p_acc, beta2))
        write_persistable(param, new_param)

    def _update(self, param, grad, lr, group) -> None:
        self._adam_step(param, grad, lr, group, param)


class AdamW(Adam):
    """Adam with decoupled weight decay: param -= lr * coeff * param before the Adam step
    (only for parameters whose name apply_decay_param_fun accepts, when it is given)."""

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999,
                 epsilon: Any = 1e-08, parameters: Any = None, weight_decay: Any = 0.01,
                 lr_ratio: Optional[Callable[[Tensor], float]] = None,
                 apply_decay_param_fun: Optional[Callable[[str], bool]] = None,
                 grad_clip: Any = None, lazy_mode: bool = False, multi_precision: bool = False,
                 amsgrad: bool = False, name: Optional[str] = None) -> None:
        check_betas(beta1, beta2, epsilon)
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float, Tensor)):
            raise TypeError("weight_decay should be int, float or Tensor.")
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError("lr_ratio should be a function of the parameter returning a float")
        # decoupled decay is not a regularizer: the base class gets none
        Optimizer.__init__(self, learning_rate, parameters, None, grad_clip, name)
        self._init_adam(beta1, beta2, epsilon, lazy_mode, multi_precision, amsgrad)
        self._weight_decay = weight_decay if isinstance(weight_decay, Tensor) \
            else float(weight_decay)
        self._default_dict["weight_decay"] = self._weight_decay
        for group in self._param_groups:
            if isinstance(group, dict) and group.get("weight_decay") is None:
                group["weight_decay"] = self._weight_decay
        self._apply_decay_param_fun = apply_decay_param_fun
        self._lr_ratio = lr_ratio

    def _regularizer(self, param, group):
        # a group's weight_decay is AdamW's decay coefficient, never an L2 term on the gradient
        return getattr(param, "regularizer", None)

    def _update(self, param, grad, lr, group) -> None:
        if self._lr_ratio is not None:
            lr = ops.scale(lr, float(self._lr_ratio(param)))
        start = param
        with_decay = self._apply_decay_param_fun is None or self._apply_decay_param_fun(param.name)
        coeff = group.get("weight_decay", self._weight_decay)
        if with_decay and not (isinstance(coeff, float) and coeff == 0.0):
            start = ops.subtract(param, ops.multiply(ops.multiply(lr, _scalar(coeff)), param))
        self._adam_step(param, grad, lr, group, start)
