"""jit switches and entry points: enable_to_static, set_verbosity / set_code_level, to_code,
save and load."""
from __future__ import annotations

import types
from typing import Any, Callable, Optional, Sequence

from ..autograd.mode import enable_grad
from ..format.input_spec import InputSpec
from ..format.npy_member import DEFAULT_MAX_COMPRESSION_RATIO
from ..runtime.pytree import flatten, unflatten
from ..runtime.state import exporting
from . import logger
from .carried_state import CarriedStateError
from .export_prune import prune_inputs, prune_outputs
from .grown_state import refuse_grown_lists
from .keywords import check_keywords
from .layer_hooks import has_forward_hooks, with_forward_hooks
from .load import load as _load
from .options import LOAD_KEYWORDS, SAVE_KEYWORDS, options
from .static_function import StaticFunction, layer_forward, normalize_specs
from .transform import converted_source


def enable_to_static(enable: bool) -> None:
    """False makes every to_static function run its original eager code."""
    if not isinstance(enable, bool):
        raise TypeError(f"enable_to_static expects a bool, got {type(enable).__name__}")
    options.enabled = enable


def set_verbosity(level: Optional[int] = 0, also_to_stdout: bool = False) -> None:
    """Log what to_static does (re-traces, graph breaks, conversions) through the `dy2st.jit`
    logger, shown on stderr: 0 is quiet, 1 and more log at INFO, 3 and more at DEBUG.
    `also_to_stdout` copies the records to stdout. None goes back to the environment variable
    TRANSLATOR_VERBOSITY, which is read when no level was set (as Paddle does)."""
    logger.set_level("verbosity", level, also_to_stdout)


def set_code_level(level: Optional[int] = logger.LOG_ALL_PASSES, also_to_stdout: bool = False) -> None:
    """Log the converted code of each function as it is converted, on stderr: level N (1 to the
    number of passes) shows the code after the N-th pass, 100 (the default) the code after the
    last; 0 turns it off. None goes back to TRANSLATOR_CODE_LEVEL (read when no level was set)."""
    logger.set_level("code_level", level, also_to_stdout)


def to_code(function: Callable) -> str:
    """The transformed source of a function, method, Layer or StaticFunction."""
    # lazy: keeps nn out of a first to_static call (loaded on first use)
    from ..nn import Layer
    target = function
    if isinstance(target, Layer):
        target = type(target).forward
    if isinstance(target, StaticFunction):
        return target.code
    target = getattr(target, "__func__", target)
    if not isinstance(target, types.FunctionType):
        raise TypeError(f"to_code expects a function, got {type(function).__name__}")
    return converted_source(target)


def _static_function_of(obj: Any) -> StaticFunction:
    # lazy: keeps nn out of a first to_static call (loaded on first use)
    from ..nn import Layer
    if isinstance(obj, StaticFunction):
        return obj
    if isinstance(obj, Layer):
        return layer_forward(obj)
    if isinstance(obj, types.MethodType):
        return StaticFunction(obj.__func__, instance=obj.__self__)
    if isinstance(obj, types.FunctionType):
        return StaticFunction(obj)
    raise TypeError(f"jit.save expects a Layer, a function or a StaticFunction, got {type(obj).__name__}")


def save(layer: Any, path: str, input_spec: Optional[Sequence[Any]] = None, **configs: Any) -> None:
    """Export the whole graph (control flow included) and its parameters to path.json / .npz.

    A Layer is traced in eval mode, on a copy of its layer tree: the Layer itself (its own
    and its sublayers' `training` flags, its attributes) is left as it was. Pass
    `keep_training=True` to export it in the mode it is in. `output_spec` (tensors returned by
    the last call) keeps only those outputs; `input_names_after_prune` keeps only the inputs of
    those names (InputSpec, Tensor or argument names)."""
    # lazy: the model format's writer loads on the first save, not with a first to_static call
    from ..format import save_concrete

    # imported here: a TranslatedLayer is an nn.Layer, and nn is off the path of `import dy2st.jit`
    from .translated_layer import TranslatedLayer
    check_keywords("jit.save", configs, SAVE_KEYWORDS, ("layer", "path", "input_spec"))
    if not isinstance(path, str) or not path:
        raise ValueError("jit.save needs a non-empty path prefix")
    if isinstance(layer, TranslatedLayer):
        # a loaded (perhaps fine-tuned) model: its program, with the parameters' values now
        save_concrete(layer.concrete_program, path, {**layer.extra, "function": "forward"})
        return
    sf, concrete = trace_for_export(layer, input_spec, "jit.save", **configs)
    prune_for_export(sf, concrete, input_spec, configs)
    save_concrete(concrete, path, {"function": sf.__name__})


def prune_for_export(sf: StaticFunction, concrete: Any, input_spec: Optional[Sequence[Any]],
                     configs: dict) -> None:
    """Apply the save options that cut the traced program: `output_spec` (tensors returned by
    the last call) and `input_names_after_prune`."""
    output_spec = configs.get("output_spec")
    if output_spec is not None:
        prune_outputs(concrete, sf._last, list(output_spec))
    pruned_names = configs.get("input_names_after_prune")
    if pruned_names is not None:
        tensor_names = [getattr(s, "name", None) for s in (input_spec or [])]
        prune_inputs(concrete, list(pruned_names),
                     tensor_names if len(tensor_names) == len(concrete.inputs) else None)


def trace_for_export(layer: Any, input_spec: Optional[Sequence[Any]], who: str,
                     **configs: Any) -> Any:
    """(StaticFunction, ConcreteProgram) of a Layer or function traced for export (jit.save,
    onnx.export): with `input_spec`, the to_static spec, or the last call's inputs; Layers in
    eval mode unless `keep_training=True`."""
    # lazy: keeps nn out of a first to_static call (loaded on first use)
    from ..nn import Layer
    sf = _static_function_of(layer)
    relaxed = None
    # lazy: the graph-break machinery loads on the first break or export
    from .graph_break import refuse_save
    refuse_save(sf)             # known graph breaks: nothing is traced or written
    if input_spec is not None:
        specs = normalize_specs(input_spec)
    elif sf._input_spec:
        specs = list(sf._input_spec)
    elif sf.last_input_spec:
        specs = _call_specs(sf._last.concrete)
        numbers = sf._last.numbers      # guarded numbers fed as inputs are no arguments
        if numbers is not None and numbers[1]:
            specs = specs[:len(specs) - len(numbers[1])]
        relaxed = _any_batch(specs)
    else:
        raise ValueError(f"{who}: cannot tell the inputs of {sf.__name__}: give input_spec "
                         "(a list of dy2st.static.InputSpec or example tensors) or call the "
                         "converted function once before saving")
    owner = layer if isinstance(layer, Layer) else sf._instance
    if isinstance(owner, Layer):
        refuse_grown_lists(owner)   # lists kept between calls: no fixed program carries them
        # Traced on a copy of the layer tree (sharing parameters and buffers): the caller's
        # Layer, which another thread may be training, never changes, even for a moment.
        twin = _mode_copy(owner, None if configs.get("keep_training", False) else False)
        sf_twin = StaticFunction(sf._function, sf._input_spec, sf._full_graph, instance=twin)
        if has_forward_hooks(twin):
            # Layer.__call__ runs the layer's own hooks around forward: the export does too
            sf_twin.around = with_forward_hooks
    else:
        sf_twin = sf
    last = sf._last     # the user's last call (output_spec's tensors), not the export's trace
    try:
        # Traced with gradients on, whatever the caller's mode, so that the user's own no_grad
        # blocks (and set_grad_enabled(False), @no_grad() helpers) leave their `detach` ops in
        # the file: a loaded model fine-tuned later stops gradients where eager code does. The
        # trace appends no gradient ops (only a traced backward() would).
        with enable_grad(), exporting():
            concrete = _trace_any_batch(sf_twin, relaxed) if relaxed is not None else None
            if concrete is None:
                concrete = sf_twin.get_concrete_program(*specs)
    except CarriedStateError:
        raise                   # no graph break: state the saved program cannot hold
    except Exception as e:  # noqa: BLE001 - a break found by this trace is named as one
        if not sf._full_graph:
            refuse_save(sf, e)
        raise
    finally:
        sf._last = last
    return sf, concrete


def _any_batch(specs: list) -> list:
    """The specs with their first dim unknown (a model saved from a call, as Paddle's, takes
    other batch sizes)."""
    leaves, tree = flatten(specs, is_leaf=lambda v: isinstance(v, InputSpec))
    return list(unflatten(tree, [InputSpec([None] + list(s.shape[1:]), s.dtype, s.name)
                                 if isinstance(s, InputSpec) and len(s.shape) else s
                                 for s in leaves]))


def _trace_any_batch(sf: StaticFunction, specs: list) -> Any:
    """The program traced with an unknown batch dim, or None where the code needs the batch
    size while it is traced (then the call's own shapes are saved)."""
    trial = StaticFunction(sf._function, None, True, instance=sf._instance)
    try:
        return trial.get_concrete_program(*specs)
    except Exception:  # noqa: BLE001 - any failure falls back to the known shapes
        return None


def _call_specs(concrete: Any) -> list:
    """The InputSpecs of a traced call, in the call's structure (a list argument stays a list
    of specs, Python values stay as they were)."""
    specs = [InputSpec(s.shape, s.dtype, s.name) for s in concrete.inputs]
    if concrete.input_structure is None:
        return specs
    _, tree, leaves = concrete.input_structure
    return list(unflatten(tree, [specs[v] if kind == "var" else v for kind, v in leaves]))


def explain(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Run fn once (more while new graph breaks appear) in full_graph=False mode and report
    graph_count, op_count and its breaks (file, line, source, reason); print() shows a table."""
    # lazy: the graph-break machinery loads on the first break or explain
    from .graph_break import explain as _explain
    return _explain(fn, *args, **kwargs)


def _mode_copy(root: Any, training: Optional[bool]) -> Any:
    """A copy of root's layer tree sharing its tensors, every layer's `training` set to
    `training` (kept when None); forwards bound to a layer are bound to its copy."""
    import collections
    import copy

    # lazy: keeps nn out of a first to_static call (loaded on first use)
    from ..nn import Layer
    copies: dict = {}

    def copy_layer(layer: Any) -> Any:
        if id(layer) in copies:
            return copies[id(layer)]
        twin = copy.copy(layer)
        copies[id(layer)] = twin
        d = twin.__dict__
        if training is not None:
            d["training"] = training
        for table in ("_parameters", "_buffers"):
            if isinstance(d.get(table), dict):
                d[table] = collections.OrderedDict(d[table])
        if isinstance(d.get("_sub_layers"), dict):
            d["_sub_layers"] = collections.OrderedDict(
                (k, copy_layer(v) if isinstance(v, Layer) else v) for k, v in d["_sub_layers"].items())
        for name, value in list(d.items()):
            if type(value) in (list, dict, set):     # forward may write into them
                d[name] = copy.copy(value)
        own = d.get("forward")
        if isinstance(own, StaticFunction) and own._instance is layer:
            d["forward"] = StaticFunction(own._function, own._input_spec, own._full_graph, twin)
        elif isinstance(own, types.MethodType) and own.__self__ is layer:
            d["forward"] = types.MethodType(own.__func__, twin)
        return twin
    return copy_layer(root)


def load(path: str, max_compression_ratio: Optional[float] = DEFAULT_MAX_COMPRESSION_RATIO,
         max_loop_iterations: Optional[int] = None, **configs: Any) -> Any:
    """A saved model as a callable TranslatedLayer (no user source needed). Paddle's
    `model_filename` / `params_filename` are accepted (a dy2st model is one prefix).
    For untrusted files: `max_compression_ratio` bounds how far a compressed parameter may
    inflate (None: no bound; docs/format.md), `max_loop_iterations` the turns of each while loop
    per call (None, the default: unbounded; past it the call raises LoopLimitError naming the
    loop's op and line)."""
    check_keywords("jit.load", configs, LOAD_KEYWORDS,
                   ("path", "max_compression_ratio", "max_loop_iterations"))
    return _load(path, max_compression_ratio=max_compression_ratio,
                 max_loop_iterations=max_loop_iterations, **configs)


# Paddle code imports the decorator from here too (`from paddle.jit.api import to_static`).
from .static_function import to_static  # noqa: E402,F401
