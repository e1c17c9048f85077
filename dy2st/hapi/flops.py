"""paddle.flops: counts a network's floating-point operations on one random input with
Paddle's per-layer rules (hapi/dynamic_flops): forward post-hooks on the leaf layers."""
from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from .. import nn
from ..autograd import no_grad
from ..nn.layer import Layer
from ..runtime import ops


def _numel(t: Any) -> int:
    return int(np.prod(t.shape)) if len(t.shape) else 1


def count_convNd(m: Any, x: Any, y: Any) -> int:
    """Each output element: in_channels / groups * prod(kernel) multiply-adds, + 1 for a bias."""
    kernel_ops = int(np.prod(m.weight.shape[2:]))
    bias_ops = 1 if getattr(m, "bias", None) is not None else 0
    return abs(int(_numel(y) * (x[0].shape[1] / m._groups * kernel_ops + bias_ops)))


def count_leaky_relu(m: Any, x: Any, y: Any) -> int:
    return _numel(x[0])


def count_bn(m: Any, x: Any, y: Any) -> int:
    """2 per input element (scale and shift) in eval mode, where flops() runs the network."""
    return 2 * _numel(x[0]) if not m.training else 0


def count_linear(m: Any, x: Any, y: Any) -> int:
    return abs(int(m.weight.shape[0] * _numel(y)))


def count_avgpool(m: Any, x: Any, y: Any) -> int:
    return _numel(y)


def count_adap_avgpool(m: Any, x: Any, y: Any) -> int:
    kernel = np.array(x[0].shape[2:]) // np.array(y.shape[2:])
    return abs(int((int(np.prod(kernel)) + 1) * _numel(y)))


def count_zero_ops(m: Any, x: Any, y: Any) -> int:
    return 0


def default_rules() -> Dict[type, Callable[[Any, Any, Any], int]]:
    """Paddle's table: layer type -> counting function (others count zero)."""
    rules: Dict[type, Callable[[Any, Any, Any], int]] = {}
    for name in ("Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
                 "Conv3DTranspose"):
        rules[getattr(nn, name)] = count_convNd
    rules[nn.BatchNorm2D] = count_bn
    rules[nn.BatchNorm] = count_bn
    for name in ("ReLU", "ReLU6", "Dropout"):
        rules[getattr(nn, name)] = count_zero_ops
    rules[nn.LeakyReLU] = count_leaky_relu
    rules[nn.Linear] = count_linear
    for name in ("AvgPool1D", "AvgPool2D", "AvgPool3D"):
        rules[getattr(nn, name)] = count_avgpool
    for name in ("AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D"):
        rules[getattr(nn, name)] = count_adap_avgpool
    return rules


def _first_shape(value: Any) -> List[int]:
    value = value[0] if isinstance(value, (list, tuple)) else value
    return list(value.shape)


def _print_table(rows: List[List[Any]]) -> None:
    header = ["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"]
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[k]) for r in cells) + 2 for k in range(len(header))]
    rule = "+" + "+".join("-" * w for w in widths) + "+"
    print(rule)
    for i, r in enumerate(cells):
        print("|" + "|".join(c.center(w) for c, w in zip(r, widths)) + "|")
        if i == 0:
            print(rule.replace("-", "="))
    print(rule)


def dynamic_flops(model: Any, inputs: Any, custom_ops: Optional[Dict[type, Callable]] = None,
                  print_detail: bool = False) -> int:
    """Runs model(inputs) in eval mode and sums each leaf layer's count."""
    rules = default_rules()
    custom_ops = dict(custom_ops or {})
    counts: Dict[int, Dict[str, Any]] = {}
    handles = []
    seen_types = set()

    def leaf_hook(fn: Optional[Callable]) -> Callable:
        def hook(layer: Any, x: Any, y: Any) -> None:
            entry = counts[id(layer)]
            if fn is not None:
                added = fn(layer, x, y)
                entry["ops"] += int(added) if added is not None else 0
            entry["params"] = sum(_numel(p) for p in layer.parameters())
            entry["in"], entry["out"] = _first_shape(x), _first_shape(y)
        return hook

    leaves = [m for m in model.sublayers(include_self=True) if not list(m.children())]
    for m in leaves:
        m_type = type(m)
        fn = custom_ops.get(m_type) or rules.get(m_type)
        if m_type not in seen_types:
            if m_type in custom_ops:
                print(f"Customize Function has been applied to {m_type}")
            elif m_type in rules:
                print(f"{m_type}'s flops has been counted")
            else:
                print(f"Cannot find suitable count function for {m_type}. Treat it as zero "
                      f"FLOPs.")
            seen_types.add(m_type)
        counts[id(m)] = {"layer": m, "ops": 0, "params": 0}
        # Paddle's custom functions add to `layer.total_ops` / set `layer.total_params`
        m.register_buffer("total_ops", ops.zeros([1], "int64"))
        m.register_buffer("total_params", ops.zeros([1], "int64"))
        handles.append(m.register_forward_post_hook(leaf_hook(fn)))
    training = model.training
    model.eval()
    try:
        with no_grad():
            model(inputs)
    finally:
        for h in handles:
            h.remove()
        for entry in counts.values():
            layer = entry["layer"]
            entry["ops"] += int(np.asarray(layer.total_ops.numpy()).sum())
            layer._buffers.pop("total_ops", None)
            layer._buffers.pop("total_params", None)
        if training:
            model.train()
    ran = [e for e in counts.values() if "in" in e]
    total_ops = sum(e["ops"] for e in ran)
    total_params = sum(e["params"] for e in ran)
    if print_detail:
        _print_table([[e["layer"].full_name(), e["in"], e["out"], e["params"], e["ops"]]
                      for e in ran])
    print(f"Total Flops: {int(total_ops)}     Total Params: {int(total_params)}")
    return int(total_ops)


def flops(net: Any, input_size: List[int], custom_ops: Optional[Dict[type, Callable]] = None,
          print_detail: bool = False) -> int:
    """FLOPs of net on one standard-normal input of shape input_size (Paddle's counting:
    conv, linear, batch norm, average pooling, leaky relu; other layers count zero).
    custom_ops maps a Layer type to `fn(layer, inputs, output) -> int`."""
    if not isinstance(net, Layer):
        warnings.warn("Your model must be an instance of paddle.nn.Layer or "
                      "paddle.static.Program.")
        return -1
    if isinstance(input_size, int):
        input_size = [input_size]
    shape = [int(d) for d in input_size]
    if any(d <= 0 for d in shape):
        raise ValueError(f"flops: every dim of input_size must be > 0, got {list(input_size)}")
    return dynamic_flops(net, ops.randn(shape), custom_ops=custom_ops, print_detail=print_detail)
