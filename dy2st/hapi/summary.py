"""paddle.summary: runs a network once on random inputs with forward post-hooks on its
sublayers and prints Paddle's table (layer, input shape, output shape, parameter count)."""
from __future__ import annotations

import collections
import numbers
from typing import Any, Dict, List

import numpy as np

from ..autograd import no_grad
from ..format.input_spec import InputSpec
from ..nn import LayerList, Sequential
from ..runtime import ops


def _all_numbers(items: Any) -> bool:
    return all(isinstance(i, numbers.Number) for i in items)


def _is_shape(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and _all_numbers(value)


def _normalise_sizes(input_size: Any) -> Any:
    """Paddle's accepted forms (an int, a shape tuple, an InputSpec, a list of those) as a
    shape tuple or a (nested) list of them; an unknown batch dim (None / -1) becomes 1."""
    if isinstance(input_size, InputSpec):
        input_size = tuple(input_size.shape)
    elif isinstance(input_size, int):
        input_size = (input_size,)
    elif isinstance(input_size, list):
        items = []
        for item in input_size:
            if isinstance(item, int):
                item = (item,)
            if not isinstance(item, (tuple, list, InputSpec)):
                raise TypeError(f"summary: when input_size is a list, each item must be a tuple "
                                f"or an InputSpec, got {type(item).__name__}")
            items.append(tuple(item.shape) if isinstance(item, InputSpec) else item)
        input_size = items

    def check(shape: Any) -> Any:
        if isinstance(shape, (list, tuple)) and all(
                not isinstance(i, (list, tuple)) for i in shape):
            unknown = 0
            out = []
            for d in shape:
                if d is None or d == -1:
                    unknown += 1
                    if unknown > 1:
                        raise ValueError("summary: in input_size only the batch dim can be "
                                         "None or -1")
                    d = 1
                elif isinstance(d, numbers.Number) and d <= 0:
                    raise ValueError(f"summary: expected every input size to be greater than "
                                     f"zero, got {d}")
                out.append(int(d))
            return tuple(out)
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"summary: cannot read an input shape from {shape!r}")
        return [check(s) for s in shape]
    return check(input_size)


def _shape_of(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_shape_of(v) for v in value]
    return list(value.shape) if hasattr(value, "shape") else []


def _layer_key(layer: Any, count: int) -> str:
    try:
        index = int(layer.full_name().split("_")[-1])
    except (ValueError, AttributeError):
        index = count
    return f"{type(layer).__name__}-{index + 1}"


def _random_input(shape: Any, dtype: Any) -> Any:
    """A random tensor of `shape` (or a nested list of them for a nested list of shapes)."""
    if _is_shape(shape):
        dtype = dtype[0] if isinstance(dtype, (list, tuple)) else dtype
        return ops.cast(ops.rand(list(shape)), dtype or "float32")
    dtypes = dtype if isinstance(dtype, (list, tuple)) else [dtype] * len(shape)
    return [_random_input(s, d) for s, d in zip(shape, dtypes)]


def _collect(net: Any, shapes: List[Any], dtypes: List[Any], input: Any) -> "collections.OrderedDict":
    """Per hooked layer (in call order): input/output shapes and parameter counts."""
    rows: "collections.OrderedDict[str, Dict[str, Any]]" = collections.OrderedDict()
    depth = len(net.sublayers())

    def hook(layer: Any, inputs: Any, outputs: Any) -> None:
        row: Dict[str, Any] = {"input_shape": _shape_of(list(inputs)),
                               "output_shape": _shape_of(outputs)}
        params = trainable = 0
        for p in layer._parameters.values():
            if p is None:
                continue
            n = int(np.prod(p.shape))
            params += n
            if getattr(p, "trainable", True) and not p.stop_gradient:
                trainable += n
        row["nb_params"], row["trainable_params"] = params, trainable
        rows[_layer_key(layer, len(rows))] = row

    handles = []
    for layer in net.sublayers(include_self=True):
        if isinstance(layer, (Sequential, LayerList)):
            continue
        if layer is net and depth >= 1:
            continue
        handles.append(layer.register_forward_post_hook(hook))
    try:
        with no_grad():
            if input is not None:
                if isinstance(input, dict):
                    net(**input)
                elif isinstance(input, (list, tuple)):
                    net(*input)
                else:
                    net(input)
            else:
                net(*[_random_input(s, d) for s, d in zip(shapes, dtypes)])
    finally:
        for h in handles:
            h.remove()
    return rows


def _input_megabytes(sizes: Any) -> float:
    if _is_shape(sizes):
        return abs(float(np.prod(sizes)) * 4.0 / 1024 ** 2)
    return sum(_input_megabytes(s) for s in sizes)


def _output_count(shape: Any) -> int:
    if _is_shape(shape):
        return int(np.prod(shape)) if shape else 0
    return sum(_output_count(s) for s in shape)


def format_table(rows: "collections.OrderedDict", shapes: List[Any]) -> str:
    widths = {"layer": 15, "input": 20, "output": 20, "params": 15}
    for key, row in rows.items():
        widths["layer"] = max(widths["layer"], len(key))
        widths["input"] = max(widths["input"], len(str(row["input_shape"])))
        widths["output"] = max(widths["output"], len(str(row["output_shape"])))
        widths["params"] = max(widths["params"], len(str(row["nb_params"])))
    table = max(75, sum(widths.values()) + 5)

    def line(a: str, b: str, c: str, d: str) -> str:
        return (f"{a:^{widths['layer']}} {b:^{widths['input']}} {c:^{widths['output']}} "
                f"{d:^{widths['params']}}")

    total = trainable = outputs = 0
    out = ["-" * table, line("Layer (type)", "Input Shape", "Output Shape", "Param #"),
           "=" * table]
    for key, row in rows.items():
        out.append(line(key, str(row["input_shape"]), str(row["output_shape"]),
                        f"{row['nb_params']:,}"))
        total += row["nb_params"]
        trainable += row["trainable_params"]
        outputs += _output_count(row["output_shape"])
    input_mb = _input_megabytes(shapes)
    output_mb = abs(2.0 * outputs * 4.0 / 1024 ** 2)        # x2 for the gradients
    params_mb = abs(total * 4.0 / 1024 ** 2)
    out += ["=" * table, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
            f"Non-trainable params: {total - trainable:,}", "-" * table,
            f"Input size (MB): {input_mb:0.2f}",
            f"Forward/backward pass size (MB): {output_mb:0.2f}",
            f"Params size (MB): {params_mb:0.2f}",
            f"Estimated Total Size (MB): {input_mb + output_mb + params_mb:0.2f}", "-" * table]
    return "\n".join(out) + "\n"


def summary(net: Any, input_size: Any = None, dtypes: Any = None,
            input: Any = None) -> Dict[str, int]:
    """Prints the network's layer table and returns {'total_params': n,
    'trainable_params': m}. Give input_size (shapes or InputSpecs) or `input` (tensors)."""
    if input_size is None and input is None:
        raise ValueError("summary: input_size and input cannot be None at the same time")
    if input_size is None:
        if isinstance(input, dict):
            input_size = [tuple(v.shape) for v in input.values()]
        elif isinstance(input, (list, tuple)):
            input_size = [tuple(v.shape) for v in input]
        elif hasattr(input, "shape"):
            input_size = tuple(input.shape)
        else:
            raise ValueError("summary: input is not a tensor, list, tuple or dict; give "
                             "input_size")
    sizes = _normalise_sizes(input_size)
    shapes = [sizes] if isinstance(sizes, tuple) else sizes
    if not isinstance(dtypes, (list, tuple)):
        dtypes = [dtypes] * len(shapes)
    if len(dtypes) != len(shapes):
        raise ValueError(f"summary: {len(shapes)} input shapes but {len(dtypes)} dtypes")
    was_training = net.training
    if was_training:
        net.eval()
    try:
        rows = _collect(net, shapes, list(dtypes), input)
    finally:
        if was_training:
            net.train()
    text = format_table(rows, shapes)
    print(text)
    total = sum(r["nb_params"] for r in rows.values())
    trainable = sum(r["trainable_params"] for r in rows.values())
    return {"total_params": total, "trainable_params": trainable}
