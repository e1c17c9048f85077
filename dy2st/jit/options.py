"""The process-wide switches of to_static: on/off (`enable_to_static`), ignored modules and
@not_to_static functions. Everything in jit reads them here, without the call converter. Also
the keyword options each entry point accepts (Paddle's own, plus dy2st's)."""
from __future__ import annotations

import types
from typing import Any, Callable, Dict, Iterable, Set, Tuple


class ConvertOptions:
    """Process-wide conversion switches (reset with `reset()`)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.enabled = True
        self.ignored_modules: Set[str] = set()
        # id(code) -> (code, its function's module): functions convert_call never converts
        self.always_skipped: Dict[int, Tuple[types.CodeType, str]] = {}


options = ConvertOptions()


def not_to_static(func: Callable = None) -> Callable:
    """Decorator: run `func` as it is even when called from converted code."""
    if func is None:
        return not_to_static
    func._dy2st_not_to_static = True
    return func


def ignore_module(modules: Iterable[Any]) -> None:
    """Functions from these modules are called as they are from converted code."""
    for m in modules:
        options.ignored_modules.add(m if isinstance(m, str) else m.__name__)


# to_static(function, input_spec, full_graph, backend, **kwargs): Paddle's `build_strategy` and
# `property` are accepted and have no effect here (there are no build passes to configure).
TO_STATIC_KEYWORDS = frozenset({"build_strategy", "property"})

# jit.save(layer, path, input_spec, **configs): Paddle's save options. output_spec and
# input_names_after_prune prune the saved program; the others shape Paddle's own file layout and
# have nothing to change in dy2st's format. keep_training is dy2st's.
SAVE_KEYWORDS = frozenset({"output_spec", "input_names_after_prune", "with_hook",
                           "combine_params", "clip_extra", "skip_forward", "skip_prune_program",
                           "separate_parameters", "keep_training"})

# jit.load(path, **configs): Paddle's file-name options (one model file here) and the backend.
LOAD_KEYWORDS = frozenset({"model_filename", "params_filename", "backend"})

# onnx.export(layer, path, input_spec, opset_version, **configs): Paddle passes its save options.
ONNX_EXPORT_KEYWORDS = SAVE_KEYWORDS
