"""Types and ranges of the attrs ops share by name (axis, shape, dtype, perm, index items, flags),
checked at load time; what only an op's inference can judge is left to validate.py."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from ..runtime.dtype import DTYPES
from ..runtime.program import Block, Operator
from .errors import fail
from .fields import MAX_ELEMENTS

_INT64_MAX = (1 << 63) - 1
_BOOL_ATTRS = ("keepdim", "transpose_x", "transpose_y", "largest", "sorted", "descending",
               "stable", "overwrite", "include_self")
_INDEX_KINDS = {"int": {"k", "v"}, "slice": {"k", "v"}, "none": {"k"}, "ellipsis": {"k"},
                "tensor": {"k", "t"}}


class AttrError(ValueError):
    """An attr value that no op of this dy2st would hold."""


def check_attrs(block: Block, op: Operator, where: str) -> None:
    """Every attr of op: ints fit int64, and the attrs known by name have their type and range."""
    first = block.vars.get(op.inputs[0]) if op.inputs else None
    rank = len(first._shape) if first is not None and first.kind == "dense" else None
    for name, value in op.attrs.items():
        try:
            _check_ints(value)
            check = _BY_NAME.get(name)
            if check is not None:
                check(value, rank, len(op.inputs))
        except AttrError as e:
            raise fail(where, f"attr {name}={_short(value)}: {e}") from None


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_ints(v: Any) -> None:
    if type(v) is int and not -_INT64_MAX - 1 <= v <= _INT64_MAX:
        raise AttrError("is out of the int64 range")
    if isinstance(v, (list, tuple)):
        for x in v:
            _check_ints(x)
    elif isinstance(v, dict):
        for x in v.values():
            _check_ints(x)


def _int(v: Any) -> bool:
    return type(v) is int


def _axis(v: Any, rank: Optional[int], n_inputs: int) -> None:
    if v is None:
        return
    axes = list(v) if isinstance(v, (list, tuple)) else [v]
    if not all(_int(a) for a in axes):
        raise AttrError("expected None, an int or a list of ints")
    # an axis may name a position of the output, which can have one dim more than the input,
    # or one more per axis listed (unsqueeze(x, [0, 1]) of a 0-d x names output dim 1)
    limit = (rank if rank is not None else 64) + max(1, len(axes))
    for a in axes:
        if not -limit <= a < limit:
            raise AttrError(f"axis {a} is out of range for an input of rank {rank}")
    if isinstance(v, (list, tuple)) and rank is not None and len(
            {a + rank if a < 0 else a for a in axes}) != len(axes):
        raise AttrError("repeats an axis")


def _shape(v: Any, rank: Optional[int], n_inputs: int) -> None:
    if not isinstance(v, (list, tuple)) or not all(d is None or (_int(d) and d >= -1) for d in v):
        raise AttrError("expected a list of ints >= -1 (None for a dim given by a tensor)")
    if sum(d is None for d in v) > n_inputs:
        raise AttrError(f"has more tensor dims than the op has inputs ({n_inputs})")
    n = 1
    for d in v:
        if _int(d) and d > 0:
            n *= d
    if n > MAX_ELEMENTS:
        raise AttrError(f"has more than {MAX_ELEMENTS} elements")


def _dtype(v: Any, rank: Optional[int], n_inputs: int) -> None:
    if v is not None and (not isinstance(v, str) or v not in DTYPES):
        raise AttrError(f"expected one of {', '.join(DTYPES)}")


def _bool(v: Any, rank: Optional[int], n_inputs: int) -> None:
    if type(v) is not bool:
        raise AttrError("expected true or false")


def _scalar(v: Any, rank: Optional[int], n_inputs: int) -> None:
    if not isinstance(v, (bool, int, float, complex)):     # complex: fills of complex tensors
        raise AttrError("expected a number or a bool")


def _perm(v: Any, rank: Optional[int], n_inputs: int) -> None:
    if not isinstance(v, (list, tuple)) or sorted(v) != list(range(len(v))) or not all(
            _int(a) for a in v) or (rank is not None and len(v) != rank):
        raise AttrError(f"expected a permutation of range({rank if rank is not None else 'rank'})")


def _items(v: Any, rank: Optional[int], n_inputs: int) -> None:
    if not isinstance(v, list):
        raise AttrError("expected a list of index items")
    ellipses = 0
    for it in v:
        kind = it.get("k") if isinstance(it, dict) else None
        if not isinstance(kind, str) or kind not in _INDEX_KINDS or set(it) != _INDEX_KINDS[kind]:
            raise AttrError(f"malformed index item {_short(it)}")
        ellipses += kind == "ellipsis"
        if kind == "int" and not _int(it["v"]):
            raise AttrError(f"an int index must hold an int, got {_short(it['v'])}")
        if kind == "tensor":
            _tensor_ref(it, n_inputs)
        if kind == "slice":
            bounds = it["v"]
            if not isinstance(bounds, list) or len(bounds) != 3:
                raise AttrError("a slice holds [start, stop, step]")
            for b in bounds:
                if isinstance(b, dict) and set(b) == {"t"}:
                    _tensor_ref(b, n_inputs)
                elif b is not None and not _int(b):
                    raise AttrError(f"a slice bound must be an int, null or a tensor, got {_short(b)}")
            if bounds[2] == 0:
                raise AttrError("slice step cannot be zero")
    if ellipses > 1:
        raise AttrError("an index can only have a single ellipsis")


def _tensor_ref(it: Dict[str, Any], n_inputs: int) -> None:
    if not _int(it["t"]) or not 0 <= it["t"] < n_inputs:
        raise AttrError(f"tensor index {_short(it['t'])} does not name one of the op's inputs")


_BY_NAME: Dict[str, Callable[[Any, Optional[int], int], None]] = {
    "axis": _axis, "axes": _axis, "shape": _shape, "dtype": _dtype, "perm": _perm,
    "items": _items, "value": _scalar, **{name: _bool for name in _BOOL_ATTRS}}
