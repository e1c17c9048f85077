"""`static.save_inference_model` / `load_inference_model`: the inference part of a static Program
(from its feeds to its fetches, in test mode) in dy2st's model format, loadable by `jit.load`."""
from __future__ import annotations

import os
from typing import Any, List

from ..format import read_model, save_concrete
from ..format.concrete import ConcreteProgram
from ..format.input_spec import InputSpec
from ..runtime.passes import optimize
from ..runtime.program import Program, Variable, default_main_program
from ..runtime.pytree import flatten


def _as_list(vars_: Any, what: str) -> List[Variable]:
    items = list(vars_) if isinstance(vars_, (list, tuple)) else [vars_]
    for v in items:
        if not isinstance(v, Variable):
            raise TypeError(f"save_inference_model: {what} must be static Variables "
                            f"(from static.data and ops on them), got {type(v).__name__}")
    if not items:
        raise ValueError(f"save_inference_model: no {what}")
    return items


def save_inference_model(path_prefix: str, feed_vars: Any, fetch_vars: Any, executor: Any,
                         **kwargs: Any) -> None:
    """Write the ops that compute `fetch_vars` from `feed_vars` (dropout off, batch_norm on its
    running statistics, no gradient or optimizer ops) and the parameters they read to
    `path_prefix.json` / `.npz`. `program=` picks the Program (default: the main program)."""
    if not isinstance(path_prefix, (str, os.PathLike)) or not os.fspath(path_prefix):
        raise ValueError("save_inference_model needs a non-empty path prefix")
    feeds = _as_list(feed_vars, "feed_vars")
    fetches = _as_list(fetch_vars, "fetch_vars")
    program = kwargs.get("program") or default_main_program()
    program = getattr(program, "_program", program)
    if not isinstance(program, Program):
        raise TypeError(f"save_inference_model: program must be a Program, got "
                        f"{type(program).__name__}")
    g = program.global_block()
    # by name, as Paddle matches them: the variables of the program `program` was cloned from
    # (main.clone(for_test=True)) name its variables too
    if any(getattr(v, "name", None) not in g.vars for v in feeds + fetches):
        missing = next(getattr(v, "name", v) for v in feeds + fetches
                       if getattr(v, "name", None) not in g.vars)
        raise ValueError(f"save_inference_model: {missing} is not a variable of the program")
    feeds = [g.vars[v.name] for v in feeds]
    fetches = [g.vars[v.name] for v in fetches]
    test = program.clone(for_test=True)
    test.feed_names = [v.name for v in feeds]
    test.fetch_names = [v.name for v in fetches]
    optimize(test)
    _, tree = flatten(0 if len(fetches) == 1 else [0] * len(fetches))
    specs = [InputSpec(list(v._shape), v.dtype, v.name) for v in feeds]
    concrete = ConcreteProgram(test, specs, tree, [("var", i) for i in range(len(fetches))])
    save_concrete(concrete, os.fspath(path_prefix), {"function": "inference"})


def load_inference_model(path_prefix: str, executor: Any, **kwargs: Any) -> List[Any]:
    """[program, feed target names, fetch target Variables] of a saved inference model (or of a
    `jit.save`d one): run it with `executor.run(program, feed={name: array},
    fetch_list=fetch_targets)`. `model_filename=` names the file inside the `path_prefix`
    directory, as Paddle's does."""
    path = os.fspath(path_prefix)
    model_filename = kwargs.get("model_filename")
    if model_filename:      # Paddle's (directory, "name.pdmodel") spelling of the same prefix
        stem = os.path.basename(os.fspath(model_filename))
        for suffix in (".pdmodel", ".json"):
            if stem.endswith(suffix):
                stem = stem[:-len(suffix)]
        path = os.path.join(path, stem)
    program = read_model(path).concrete.program
    g = program.global_block()
    return [program, list(program.feed_names), [g.vars[n] for n in program.fetch_names]]
