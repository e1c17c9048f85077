"""`dy2st dump`: the transformed source of one function or of every function in a file, up to a
given pass, and optionally the traced Program."""
from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import tokenize
import types
from typing import List, Optional

from ..format.input_spec import InputSpec
from ..nn import Layer
from ..runtime.graphviz import GraphvizError, program_to_dot, write_graph
from ..transformers.pipeline import PASS_NAMES
from .static_function import StaticFunction
from .transform import to_source, transform_tree


class DumpError(ValueError):
    """A user error of `dy2st dump` (missing file, syntax error, unknown function)."""


def load_user_module(path: str) -> types.ModuleType:
    if not os.path.isfile(path):
        raise DumpError(f"no such file: {path}")
    try:
        with tokenize.open(path) as f:           # honours a PEP 263 coding declaration
            compile(f.read(), path, "exec")
    except SyntaxError as e:
        where = f"{path}, line {e.lineno}" if e.lineno else path
        raise DumpError(f"{where}: syntax error: {e.msg}") from None
    except UnicodeDecodeError as e:
        raise DumpError(f"{path}: is not valid {e.encoding} text (byte {e.start}); declare the "
                        "file's encoding with a '# -*- coding: NAME -*-' line (PEP 263)") from None
    name = "_dy2st_dump_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - the user's module failed to import
        raise DumpError(f"importing {path} failed: {type(e).__name__}: {e}") from None
    return module


def function_names(module: types.ModuleType, path: str) -> List[str]:
    """Qualified names of the functions and methods defined in the file, in source order."""
    found = []
    for name, obj in vars(module).items():
        if inspect.isfunction(obj) and obj.__code__.co_filename == os.path.abspath(path) or (
                inspect.isfunction(obj) and os.path.samefile(obj.__code__.co_filename, path)):
            found.append((obj.__code__.co_firstlineno, obj.__qualname__))
        elif inspect.isclass(obj) and obj.__module__ == module.__name__:
            for attr, member in vars(obj).items():
                fn = getattr(member, "_function", member)
                if inspect.isfunction(fn):
                    found.append((fn.__code__.co_firstlineno, fn.__qualname__))
    return [q for _, q in sorted(found)]


def resolve_qualname(module: types.ModuleType, qualname: str):
    obj = module
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise DumpError(f"no function {qualname!r} in {module.__file__}")
    obj = getattr(obj, "_function", obj)
    if not inspect.isfunction(obj):
        raise DumpError(f"{qualname!r} is not a function")
    return obj


def dump(target: str, passes: Optional[List[str]] = None, program: bool = False,
         input_specs: Optional[List[InputSpec]] = None, graph: Optional[str] = None,
         init: Optional[dict] = None) -> str:
    """Transformed source (and with program=True the traced Program) of FILE.py[:QUALNAME];
    QUALNAME may name a Layer class (its forward). With `graph`, the Program's Graphviz picture
    is written there too (.dot text, or .svg/.png/.pdf rendered by `dot`). A Layer whose forward
    is traced is built with the keyword arguments `init`."""
    path, _, qualname = target.partition(":")
    if graph is not None and not (program and qualname):
        raise DumpError("--graph draws one Program: give FILE.py:NAME and --program")
    module = load_user_module(path)
    if qualname and is_layer_class(getattr(module, qualname.split(".")[0], None), qualname):
        qualname += ".forward"
    names = [qualname] if qualname else function_names(module, path)
    if not names:
        raise DumpError(f"{path} defines no functions")
    for p in passes or []:
        if p not in PASS_NAMES:
            raise DumpError(f"unknown pass {p!r}; passes are: {', '.join(PASS_NAMES)}")
    out = []
    for q in names:
        fn = resolve_qualname(module, q)
        out.append(f"# ---- {q} ({os.path.basename(path)}:{fn.__code__.co_firstlineno})")
        if passes:
            for p in passes:
                node, _, _ = transform_tree(fn, until=p)
                out.append(f"# after pass {p}")
                out.append(to_source(node))
        else:
            node, _, _ = transform_tree(fn)
            out.append(to_source(node))
        if program:
            out.append(_program_text(module, q, fn, input_specs or [], strict=bool(qualname),
                                     graph=graph, init=init))
    return "\n".join(out) + "\n"


def is_layer_class(obj, qualname: str) -> bool:
    """Whether QUALNAME (its first part is `obj`) names a Layer class rather than a function."""
    from ..nn import Layer  # nn is off the import path of `dy2st dump` until a class is named
    for part in qualname.split(".")[1:]:
        obj = getattr(obj, part, None)
    return isinstance(obj, type) and issubclass(obj, Layer)


def _program_text(module: types.ModuleType, qualname: str, fn, specs: List[InputSpec],
                  strict: bool, graph: Optional[str] = None, init: Optional[dict] = None) -> str:
    """The traced Program of a plain function, or of a Layer's forward (the Layer is built with
    no arguments); other methods are skipped (an error when named on the command line)."""
    if not specs:
        raise DumpError("--program needs --input-spec for every tensor input, e.g. "
                        "--input-spec 'x:float32[None,4]'")
    instance = None
    if "." in qualname:
        instance = layer_of_forward(module, qualname, fn, strict, "--program", init)
        if instance is None:
            return f"# program: skipped ({qualname} is neither a function nor a Layer's forward)"
    sf = StaticFunction(fn, instance=instance)
    concrete = sf.get_concrete_program(*specs)
    if graph is not None:
        names = [s.name or f for s, f in zip(concrete.inputs, concrete.program.feed_names)]
        try:
            write_graph(program_to_dot(concrete.program, qualname, names), graph)
        except (GraphvizError, OSError) as e:
            raise DumpError(str(e)) from None
    return "# program\n" + str(concrete.program)


def layer_of_forward(module: types.ModuleType, qualname: str, fn, strict: bool, option: str,
                     init: Optional[dict] = None):
    """A new instance (in eval mode, built with the keyword arguments `init`, or none) of the
    Layer whose forward is the method `qualname`; None for another method, an error for it
    when `strict`."""
    owner = _resolve_owner(module, qualname)
    if not (isinstance(owner, type) and issubclass(owner, Layer) and fn.__name__ == "forward"):
        if strict:
            raise DumpError(f"{qualname} is a method; {option} works on functions and on "
                            "Layer.forward")
        return None
    kwargs = init or {}
    try:
        instance = owner(**kwargs)
    except Exception as e:  # noqa: BLE001 - the user's constructor
        shown = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
        hint = "" if kwargs else " (give its arguments with --init '{\"name\": value}')"
        raise DumpError(f"cannot build {owner.__name__}({shown}) to trace its forward: "
                        f"{type(e).__name__}: {e}{hint}") from None
    instance.eval()
    return instance


def _resolve_owner(module: types.ModuleType, qualname: str):
    obj = module
    for part in qualname.split(".")[:-1]:
        obj = getattr(obj, part, None)
    return obj
