"""`dy2st.jit.to_dot`: the Graphviz picture of a converted function's, Layer's or saved model's
Program (ops as nodes, tensors as edges, control flow as clusters), as text or a file."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..format.concrete import ConcreteProgram
from ..runtime.graphviz import program_to_dot, write_graph
from ..runtime.program import Program
from .static_function import StaticFunction, layer_forward


def concrete_of(obj: Any, input_spec: Optional[Sequence[Any]] = None) -> ConcreteProgram:
    """The ConcreteProgram to draw: traced for `input_spec` when given, else the last one traced
    (a to_static function or Layer) or the saved one (a model from jit.load)."""
    # nn (and TranslatedLayer, an nn.Layer) is off the import path of dy2st.jit, as in jit.api
    from ..nn import Layer
    from .translated_layer import TranslatedLayer  # an nn.Layer: nn loads on first use only
    if isinstance(obj, ConcreteProgram):
        return obj
    if isinstance(obj, TranslatedLayer):
        if input_spec is not None:
            raise ValueError("to_dot: a loaded model keeps its saved input specs; do not pass "
                             "input_spec")
        return obj.concrete_program
    sf = obj
    if isinstance(obj, Layer):
        sf = obj.forward if isinstance(obj.forward, StaticFunction) else layer_forward(obj)
    if not isinstance(sf, StaticFunction):
        raise TypeError("to_dot expects a Program, a to_static function or Layer, or a model "
                        f"loaded with jit.load; got {type(obj).__name__}")
    if input_spec is not None:
        return sf.get_concrete_program(*input_spec)
    return sf.concrete_program


def to_dot(obj: Any, path: Optional[str] = None,
           input_spec: Optional[Sequence[Any]] = None) -> str:
    """The Graphviz dot text of obj's Program (see concrete_of). With `path`, also write it:
    `.dot` / `.gv` as text, `.svg` / `.png` / `.pdf` rendered by Graphviz's `dot` program (a
    GraphvizError says how to install it when it is missing)."""
    if isinstance(obj, Program):
        text = program_to_dot(obj)
    else:
        concrete = concrete_of(obj, input_spec)
        title = (getattr(obj, "__name__", None) or getattr(obj, "extra", {}).get("function")
                 or type(obj).__name__)
        text = program_to_dot(concrete.program, title,
                              [s.name or f for s, f in zip(concrete.inputs,
                                                           concrete.program.feed_names)])
    if path is not None:
        write_graph(text, path)
    return text
