"""paddle.amp.decorate: for level O2, cast a model's parameters to float16 / bfloat16 (batch norms,
and for float16 layer / instance norms, stay float32, as in Paddle 3.3.1) and give its optimizers
float32 master weights; O1 returns the models and optimizers unchanged."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..nn import (
    BatchNorm,
    BatchNorm1D,
    BatchNorm2D,
    BatchNorm3D,
    InstanceNorm1D,
    InstanceNorm2D,
    InstanceNorm3D,
    Layer,
    LayerNorm,
)
from ..runtime.dtype import DTYPES, dtype_name, dtype_text
from ..runtime.tensor import Tensor
from .auto_cast import check_dtype as check_amp_dtype

# Paddle's need_keep_fp32: batch norms always; layer / instance norms only for float16 (bfloat16
# training casts them too); group norm never
BATCH_NORMS = (BatchNorm, BatchNorm1D, BatchNorm2D, BatchNorm3D)
FP16_KEPT_NORMS = (LayerNorm, InstanceNorm1D, InstanceNorm2D, InstanceNorm3D)
_SAVE_DTYPES = ("float16", "bfloat16", "float32", "float64")


def _as_list(x: Any) -> Tuple[List[Any], bool]:
    if isinstance(x, (list, tuple)):
        return list(x), True
    return [x], False


def _mark_excluded(models: Sequence[Layer], excluded: Sequence[Any]) -> None:
    """Paddle's set_excluded_layers: an excluded instance keeps itself and its sublayers in
    float32, an excluded class only the layers of that class."""
    types = tuple(e for e in excluded if isinstance(e, type))
    for e in excluded:
        if isinstance(e, Layer):
            for layer in [e] + list(e.sublayers()):
                layer._cast_to_low_precision = False
        elif not (isinstance(e, type) and issubclass(e, Layer)):
            raise TypeError("excluded_layers must be either a nn.Layer instance/type or a list "
                            "of nn.Layer instances/types.")
    for m in models:
        for layer in [m] + list(m.sublayers()):
            if types and isinstance(layer, types):
                layer._cast_to_low_precision = False


def _keeps_float32(layer: Layer, dtype: str) -> bool:
    return (not getattr(layer, "_cast_to_low_precision", True)
            or isinstance(layer, BATCH_NORMS)
            or (dtype == "float16" and isinstance(layer, FP16_KEPT_NORMS)))


def cast_model(model: Layer, dtype: str) -> None:
    """Cast the float32 parameters and buffers of `model`'s layers to `dtype`, each layer on its
    own (Paddle's amp_initialize), except the layers _keeps_float32 names."""
    target = DTYPES[dtype].np
    for layer in [model] + list(model.sublayers()):
        if _keeps_float32(layer, dtype):
            continue
        for table in ("_parameters", "_buffers"):
            for t in layer.__dict__[table].values():
                if isinstance(t, Tensor) and t._value.dtype == np.float32:
                    t._value = t._value.astype(target)
                    if t.grad is not None:
                        t.clear_grad(set_to_zero=False)


def use_master_weights(optimizer: Any) -> None:
    """Let `optimizer` update float32 master copies of its low-precision parameters (Paddle's
    multi_precision): each step runs on the master copy, then casts it back into the parameter."""
    if getattr(optimizer, "_master_weights", None) is not None:
        return
    masters: Dict[int, np.ndarray] = {}
    apply = optimizer._apply
    low = {DTYPES[d].np for d in ("float16", "bfloat16") if d in DTYPES}

    def apply_on_masters(params_grads: Any, group: Dict[str, Any]) -> None:
        swapped = [(p, p._value.dtype) for p, _ in params_grads if p._value.dtype in low]
        for p, _ in swapped:
            master = masters.get(id(p))
            p._value = master if master is not None else p._value.astype(np.float32)
        try:
            apply(params_grads, group)
        finally:
            for p, dtype in swapped:
                masters[id(p)] = p._value
                p._value = p._value.astype(dtype)

    optimizer._apply = apply_on_masters
    optimizer._master_weights = masters
    optimizer._multi_precision = True


def save_in_dtype(model: Layer, dtype: str) -> None:
    """Make model.state_dict() return its float tensors in `dtype` (Paddle's save_dtype; the
    model's own tensors are unchanged)."""
    target = DTYPES[dtype].np
    low = {DTYPES[d].np for d in ("float16", "bfloat16", "float32", "float64") if d in DTYPES}
    state_dict = model.state_dict

    def state_dict_in_dtype(*args: Any, **kwargs: Any) -> Any:
        out = state_dict(*args, **kwargs)
        for k, v in out.items():
            if isinstance(v, Tensor) and v._value.dtype in low and v._value.dtype != target:
                out[k] = Tensor(v._value.astype(target))
        return out
    object.__setattr__(model, "state_dict", state_dict_in_dtype)


def decorate(models: Union[Layer, Sequence[Layer]], optimizers: Any = None, level: str = "O1",
             dtype: str = "float16", master_weight: Optional[bool] = None,
             save_dtype: Optional[str] = None, master_grad: bool = False,
             excluded_layers: Any = None) -> Any:
    """Prepare models (and optimizers) for auto_cast at `level` (Paddle's paddle.amp.decorate).

    O2 casts the models' float32 parameters to `dtype` except batch norms (and for float16,
    layer / instance norms) and excluded_layers (instances with their sublayers, or classes); optimizers then keep float32 master weights unless
    master_weight=False. save_dtype makes state_dict() return that dtype. Returns the models,
    or (models, optimizers) when optimizers are given, each as a list if given as one."""
    if level not in ("O1", "O2"):
        raise ValueError("level should be O1 or O2, O1 represent mixed precision, the decorator "
                         "will do nothing. O2 represent Pure fp16/bf16, the decorator will cast "
                         "all parameters of models to FP16/BF16, except BatchNorm, InstanceNorm "
                         "and LayerNorm.")
    name = check_amp_dtype(dtype)
    model_list, models_listed = _as_list(models)
    for m in model_list:
        if not isinstance(m, Layer):
            raise TypeError(f"decorate: models must be Layers (or a list of them), got "
                            f"{type(m).__name__}")
    opt_list, opts_listed = _as_list(optimizers) if optimizers is not None else ([], False)
    if save_dtype is not None and dtype_text(save_dtype) not in _SAVE_DTYPES:
        raise ValueError(f"save_dtype can only be float16, bfloat16, float32 or float64, but "
                         f"your input save_dtype is {save_dtype}.")
    if level == "O2":
        excluded, _ = _as_list(excluded_layers) if excluded_layers is not None else ([], False)
        _mark_excluded(model_list, excluded)
        for m in model_list:
            cast_model(m, name)
        if master_weight is not False:
            for opt in opt_list:
                use_master_weights(opt)
    if save_dtype is not None:
        for m in model_list:
            save_in_dtype(m, dtype_name(save_dtype))
    out_models = model_list if models_listed else model_list[0]
    if optimizers is None:
        return out_models
    return out_models, (opt_list if opts_listed else opt_list[0])


amp_decorate = decorate
