"""`dy2st dump --explain`: the explain report of functions in a file, on example inputs built
from --input-spec (unknown dims become 2; seeded random values)."""
from __future__ import annotations

import os
from typing import Any, List, Optional

import numpy as np

from ...format.input_spec import InputSpec
from ...runtime.dtype import dtype_name
from ...runtime.tensor import Tensor
from ..dump import (
    DumpError,
    function_names,
    is_layer_class,
    layer_of_forward,
    load_user_module,
    resolve_qualname,
)
from .explain import explain

UNKNOWN_DIM = 2


def example_inputs(specs: List[InputSpec], seed: int = 0) -> List[Any]:
    """Tensors that fit the specs: normal floats, small non-negative ints, random bools."""
    rng = np.random.default_rng(seed)
    out = []
    for spec in specs:
        shape = [UNKNOWN_DIM if d is None or d < 0 else int(d) for d in spec.shape]
        dtype = np.dtype(dtype_name(spec.dtype))
        if dtype.kind == "f":
            value = rng.standard_normal(shape).astype(dtype)
        elif dtype.kind == "b":
            value = rng.integers(0, 2, shape).astype(bool)
        else:
            value = rng.integers(0, 4, shape).astype(dtype)
        out.append(Tensor(value))
    return out


def explain_text(target: str, specs: List[InputSpec], init: Optional[dict] = None) -> str:
    """The report of FILE.py[:QUALNAME] (each function of the file when no name is given); a
    Layer class is built with the keyword arguments `init` and its forward is run."""
    if not specs:
        raise DumpError("--explain runs the function: give --input-spec for every tensor "
                        "input, e.g. --input-spec 'x:float32[None,4]'")
    path, _, qualname = target.partition(":")
    module = load_user_module(path)
    if qualname and is_layer_class(getattr(module, qualname.split(".")[0], None), qualname):
        qualname += ".forward"
    names = [qualname] if qualname else function_names(module, path)
    out = []
    for q in names:
        fn = resolve_qualname(module, q)
        if "." in q:
            fn = layer_of_forward(module, q, fn, bool(qualname), "--explain", init)
            if fn is None:
                continue
        out.append(f"# ---- {q} ({os.path.basename(path)})")
        try:
            out.append(str(explain(fn, *example_inputs(specs))))
        except Exception as e:  # noqa: BLE001 - the user's function failed on these inputs
            raise DumpError(f"running {q} on the example inputs failed: {type(e).__name__}: "
                            f"{e}") from None
    return "\n".join(out) + "\n"
