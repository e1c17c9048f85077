"""convert_call: user functions, methods and Layers called from converted code are converted
too; builtins, the standard library, numpy, dy2st itself, ignored modules and @not_to_static
functions are called as they are."""
from __future__ import annotations

import functools
import inspect
import os
import sys
import types
from typing import Any, Callable

from ..jst import attribute_writes
from ..jst.loop_dicts import dict_method
from ..jst.namespace import set_call_converter
from ..runtime.origin import source_maps
from ..runtime.registry import hooks
from .errors import ConversionError
from .guards import builtin_calls, library_calls, recorder
from .logger import log
from .options import options
from .static_function import StaticFunction
from .transform import convert_function

_SKIP_ROOTS = {"dy2st", "numpy", "gast", "builtins", "functools", "typing", "abc", "collections",
               "math", "itertools", "operator", "copy", "logging", "inspect", "paddle", "pytest"}
# where `os` lives is the standard library (sysconfig.get_paths() says the same, slower)
_STDLIB = os.path.normcase(os.path.dirname(os.__file__))


def _always_skipped(fn: types.FunctionType) -> bool:
    """Never converted, whatever the options say: dy2st, numpy, builtins, the standard library,
    generators and coroutines (remembered per code object: paddle.matmul & co are called often)."""
    code = fn.__code__
    module = fn.__module__ or ""
    known = options.always_skipped.get(id(code))
    if known is not None and known[0] is code and known[1] == module:
        return True
    skipped = module.split(".")[0] in _SKIP_ROOTS or module in sys.builtin_module_names
    if not skipped and code.co_filename.startswith("<frozen "):
        skipped = True      # a frozen standard-library module (os, codecs): no source file
    if not skipped:
        path = os.path.normcase(code.co_filename)
        skipped = (path.startswith(_STDLIB) and "site-packages" not in path
                   and "dist-packages" not in path)
    skipped = skipped or inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn)
    if skipped:
        options.always_skipped[id(code)] = (code, module)
    return skipped


def _skip_function(fn: types.FunctionType) -> bool:
    return _always_skipped(fn) or _skip_function_options(fn)


def _skip_function_options(fn: types.FunctionType) -> bool:
    """Skipped by the user's choice (@not_to_static, ignored modules) or generated code."""
    module = fn.__module__ or ""
    return (getattr(fn, "_dy2st_not_to_static", False) or module in options.ignored_modules
            or module.split(".")[0] in options.ignored_modules
            or source_maps.is_generated(fn.__code__.co_filename))


def skips_conversion(fn: types.FunctionType) -> bool:
    """Whether convert_call calls fn as it is (library code, @not_to_static, ignored modules)."""
    return _skip_function(fn)


def user_generator(fn: types.FunctionType) -> bool:
    """Whether fn is a generator function of the user's own (not converted, so it runs as
    Python inside converted code: what its body changes is the user's side effect)."""
    if not inspect.isgeneratorfunction(fn) or _skip_function_options(fn):
        return False
    code = fn.__code__
    module = fn.__module__ or ""
    if module.split(".")[0] in _SKIP_ROOTS or code.co_filename.startswith("<frozen "):
        return False
    path = os.path.normcase(code.co_filename)
    return not path.startswith(_STDLIB) or "site-packages" in path or "dist-packages" in path


def convert_function_or_self(fn: types.FunctionType) -> Callable:
    try:
        return convert_function(fn)
    except ConversionError as e:
        if "source code is not available" in str(e):
            log.warning("dy2st: calling %s as it is: %s", fn.__qualname__, e)
            return fn
        raise


def convert_call(fn: Any) -> Any:
    """The callable to use instead of `fn` inside converted code."""
    if recorder.watching:       # a trace guards locals of its caller's frame (guards/recorder)
        recorder.see(sys._getframe(1))
    if type(fn) is types.FunctionType:      # the common case, first (FunctionType is final)
        if _skip_function(fn):
            # while tracing: what library code reads of user objects is guarded
            return library_calls.wrap(fn) if recorder.active() else fn
        converted = convert_function_or_self(fn)
        return recorder.note_function(fn, converted) if recorder.active() else converted
    if isinstance(fn, StaticFunction):
        converted = fn.converted_callable()
        if recorder.active() and isinstance(fn._function, types.FunctionType):
            recorder.note_function(fn._function, converted, fn._instance)
        return converted
    if isinstance(fn, (types.BuiltinFunctionType, types.BuiltinMethodType, type)):
        method = dict_method(fn)    # d.get & co on a dict a tensor loop may add keys to
        # while tracing: functions it calls back are converted, what it picks is guarded
        return builtin_calls.wrap(fn, method, convert_call) if recorder.active() else method
    if isinstance(fn, functools.partial):
        inner = convert_call(fn.func)
        return fn if inner is fn.func else functools.partial(inner, *fn.args, **fn.keywords)
    if isinstance(fn, types.FunctionType):
        if _skip_function(fn):
            return fn
        converted = convert_function_or_self(fn)
        return recorder.note_function(fn, converted) if recorder.active() else converted
    if isinstance(fn, types.MethodType):
        func = fn.__func__
        if isinstance(func, StaticFunction):
            if recorder.active():
                recorder.note_call(func._function, {recorder.first_param(func._function):
                                                    fn.__self__})
            return types.MethodType(func.converted_callable(), fn.__self__)
        if not isinstance(func, types.FunctionType) or _skip_function(func):
            return library_calls.wrap(fn) if recorder.active() else fn
        converted = convert_function_or_self(func)
        if converted is func:
            return fn
        if attribute_writes.is_recording():
            _note_self_writes(fn.__self__, converted)
        if recorder.active():
            converted = recorder.note_function(func, converted, fn.__self__)
        return types.MethodType(converted, fn.__self__)
    # lazy: keeps nn out of a first to_static call (loaded on first use)
    from ..nn import Layer
    if isinstance(fn, Layer):
        return fn            # Layer.__call__ runs the converted forward while tracing
    # an instance of a user class with __call__: that function itself, to convert it
    call = getattr(type(fn), "__call__", None)  # noqa: B004
    if isinstance(call, types.FunctionType) and not _skip_function(call):
        converted = convert_function_or_self(call)
        if converted is not call:
            if attribute_writes.is_recording():
                _note_self_writes(fn, converted)
            if recorder.active():
                converted = recorder.note_function(call, converted, fn)
            return types.MethodType(converted, fn)
    # another callable object (operator.attrgetter, an lru_cache'd helper)
    return library_calls.wrap(fn) if recorder.active() else fn


def _note_self_writes(obj: Any, converted: Callable) -> None:
    """Tell the tensor loops being traced which attributes of obj the method sets (a Layer's
    own attributes are its structure: not loop state)."""
    attrs = getattr(converted, "_dy2st_self_writes", ())
    if attrs:
        # lazy: keeps nn out of a first to_static call (loaded on first use)
        from ..nn import Layer
        if not isinstance(obj, Layer):
            attribute_writes.note_method(obj, attrs)


def converted_forward(layer: Any) -> Any:
    """The converted forward of a user Layer, bound to it; None when it needs no conversion
    (a dy2st layer, a forward set on the instance, @not_to_static, no readable source)."""
    if "forward" in layer.__dict__:
        own = layer.__dict__["forward"]
        target = getattr(own, "__func__", own)
        if not isinstance(target, StaticFunction):
            return _library_forward(layer)
        forward = getattr(target.dygraph_function, "__func__", target.dygraph_function)
    else:
        forward = type(layer).forward
        if isinstance(forward, StaticFunction):
            forward = forward._function
    if not isinstance(forward, types.FunctionType) or _skip_function(forward):
        return _library_forward(layer)
    converted = convert_function_or_self(forward)
    if converted is forward:
        return _library_forward(layer)
    if recorder.active():
        recorder.note_layer(layer, False)
        converted = recorder.note_function(forward, converted, layer)
    return types.MethodType(converted, layer)


def _library_forward(layer: Any) -> None:
    """A layer whose forward runs as it is (dy2st's own): what it reads of itself is guarded."""
    if recorder.active():
        recorder.note_layer(layer, True)


# user Layers called while a Program is traced run their converted forward (nn/layer.py)
hooks.layer_forward = converted_forward
# converted code calls `_jst.Call(f)(...)`: the runtime in jst/ gets the converter from here
set_call_converter(convert_call)
