"""Python numbers read from a traced tensor (`.item()`, `.tolist()`, `float(t)`, `int(t)`,
`bool(t)`): symbolic stand-ins that act as the number in tensor code and refuse Python logic."""
from __future__ import annotations

from typing import Any, List, Sequence, Tuple

from .dtype import dtype_name
from .program import Variable
from .pytree import flatten, leaves_at, unflatten
from .registry import apply
from .tensor import Tensor

_NUMBERS = (bool, int, float, complex)

_HOW = ("it is only known when the program runs, so Python code cannot use its value here; "
        "with to_static(full_graph=False) this line runs as Python (a graph break), or keep the "
        "value a tensor (paddle functions) to stay in the graph")


class PythonValue(Variable):
    """What `.item()` and friends give inside a trace: eager code has a Python number there,
    a constant to autograd. Arithmetic with numbers stays a PythonValue; with tensors it is a
    tensor, as in eager code. Its value flows into converted `if`/`while` and tensor ops, which
    give eager's result; Python logic that needs the number itself (a dict or Counter key, a set,
    an index, text) raises a TypeError at the user's line (a graph break with full_graph=False)
    instead of computing something else."""

    __slots__ = ()

    def __hash__(self) -> int:
        raise TypeError(f"{_what(self)} is used as a dict, set or Counter key: {_HOW}")

    def __index__(self) -> int:
        raise TypeError(f"{_what(self)} is used as an index or size: {_HOW}")

    def __format__(self, spec: str) -> str:
        raise TypeError(f"{_what(self)} is formatted as text: {_HOW}")

    def text(self) -> str:
        """str() of it in converted code (jst.operators.Str); str() elsewhere (a build-time
        print, an error message) shows the variable, as for any symbolic tensor."""
        raise TypeError(f"{_what(self)} is made text (str): {_HOW}")

    def refuse(self, use: str) -> None:
        """Raise the TypeError of Python logic that needs the number (`use` says how it is
        used): a graph break with full_graph=False, an error at the user's line in one graph."""
        raise TypeError(f"{_what(self)} {use}: {_HOW}")

    def __int__(self) -> int:
        raise TypeError(f"{_what(self)} is used as a Python number (int(), float(), `%d`) "
                        f"outside converted code: {_HOW}")

    __float__ = __int__

    def item(self, *index: Any) -> "PythonValue":
        return self

    def tolist(self) -> "PythonValue":
        return self


class UnknownDim(PythonValue):
    """An unknown (None) dim of `x.shape` while tracing: a Python int in eager code, so text
    made from it and dict keys are refused like any number read from a tensor; as an index or
    size it keeps a symbolic tensor's refusal (and its graph-break reason)."""

    __slots__ = ()

    __index__ = Variable.__index__
    __int__ = Variable.__int__
    __float__ = Variable.__float__


def _what(x: PythonValue) -> str:
    source = x.block.program.number_sources.get(x.name)
    if source is not None:
        return f"a Python number ({source})"
    return (f"a Python number read from a tensor ({x.name}, by .item(), .tolist(), float(), "
            "int() or bool(), or computed from one)")


def number_sample(x: PythonValue) -> Any:
    """A Python number of the type eager code has where x stands (for isinstance and for the
    dtype a number gives when it meets a tensor)."""
    d = x.dtype
    if d == "bool":
        return False
    if d.is_complex:
        return 0j
    return 0.0 if d.is_floating else 0


def _is_number(x: Any) -> bool:
    return isinstance(x, _NUMBERS) or isinstance(x, PythonValue)


def _number_op(name: str):
    def op(self: PythonValue, *other: Any) -> Any:
        if any(type(o) is Variable for o in other):
            # a plain symbolic tensor's own method makes the op, in the user's operand order
            # (Python calls a subclass's reflected method first: `i < steps` with an unknown dim
            # `steps` became greater_than(steps, i), which the counted-loop pass does not see)
            return NotImplemented
        out = getattr(Variable, name)(self, *other)
        # number (op) number is a number; number (op) tensor is a tensor, as in eager code
        if type(out) is Variable and all(_is_number(o) for o in other):
            # a dim with numbers (or dims) stays a dim: `x.shape[0] * 2` is one too
            out.__class__ = PythonValue if any(type(o) is PythonValue for o in other) \
                else type(self)
        return out
    op.__name__ = name
    return op


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__rmod__", "__pow__", "__rpow__", "__neg__", "__pos__", "__abs__", "__lt__",
              "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__and__", "__or__",
              "__invert__"):
    setattr(PythonValue, _name, _number_op(_name))


def number_result(out: Any, inputs: Sequence[Any]) -> Any:
    """out, a PythonValue when the builtin that made it (round, max, min) took only numbers,
    some of them PythonValues: a number, as eager's builtin gives."""
    if type(out) is Variable and all(_is_number(v) for v in inputs) and \
            any(type(v) is PythonValue for v in inputs):
        out.__class__ = PythonValue
    return out


def counted_number(x: Variable, source: str) -> PythonValue:
    """x (a 0-d int64 count the program computes: len() of a list a tensor loop grew) as the
    Python int eager code has, `source` saying what it is in the errors of Python logic."""
    x.__class__ = PythonValue
    x.block.program.number_sources[x.name] = source
    return x


def python_value(x: Variable) -> PythonValue:
    """x (a 0-d Variable) as a Python number read from a tensor: cut from autograd (eager
    gradients never flow through a Python number)."""
    if type(x) is PythonValue:
        return x
    # a new variable either way: the tensor it was read from stays a tensor. Python's float is
    # a double: a number read from a float32 tensor is computed with in float64, as eager code
    # does (`round(float(t), 3)`, `s * 0.1` printed the float32 result's digits)
    wider = _PYTHON_DTYPE.get(dtype_name(x.dtype))
    x = apply("detach" if x.dtype.is_inexact else "assign", [x])
    if wider:
        x = apply("cast", [x], {"dtype": wider})
    x.__class__ = PythonValue
    return x


_PYTHON_DTYPE = {"float16": "float64", "bfloat16": "float64", "float32": "float64",
                 "complex64": "complex128"}


def python_list(x: Variable) -> Any:
    """`x.tolist()` in a trace: nested lists of PythonValues (every dim must be known)."""
    if not x._shape:
        return python_value(x)
    if any(d < 0 for d in x._shape):
        raise TypeError(f"tolist() of {x.name}: its shape {list(x._shape)} is only known when the "
                        f"program runs, so the length of the list is not: {_HOW}")
    if len(x._shape) == 1:
        return [python_value(x[i]) for i in range(x._shape[0])]
    rows: List[Any] = [python_list(x[i]) for i in range(x._shape[0])]
    return rows


def number_leaves(out: Any) -> Tuple[int, ...]:
    """The leaves of a traced result that eager code has as Python numbers."""
    leaves, _ = flatten(out)
    return tuple(k for k, leaf in enumerate(leaves) if isinstance(leaf, PythonValue))


def as_numbers(value: Any, structure: Any, indices: Sequence[int]) -> Any:
    """A program's result (built from `structure`) with the tensors at the leaf `indices`
    (numbers read from tensors and returned, `return x.sum().item()`) made the Python numbers
    eager code returns."""
    leaves = leaves_at(value, structure)
    for k in indices:
        if isinstance(leaves[k], Tensor):
            leaves[k] = leaves[k]._value.item()
    return unflatten(structure, leaves)
