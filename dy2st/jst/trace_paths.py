"""What tracing one path of a branch or loop body shares: the user's `try` blocks (a tensor
condition inside one is refused), copies of the carried containers, and errors kept for the path
that reaches them (a user's `raise`, a name without a value), named at the user's lines."""
from __future__ import annotations

import ast
import threading
from typing import Any, Callable, Optional, Sequence

from ..runtime import state
from ..runtime.errors import ConversionError, reraise_as
from ..runtime.origin import source_maps
from ..runtime.program import Variable
from ..runtime.side_effects import raise_when_run


def is_symbolic(x: Any) -> bool:
    """Whether x is a static Variable (its value is only known when the program runs)."""
    return isinstance(x, Variable)


class _TryDepth(threading.local):
    def __init__(self) -> None:
        self.lines: list = []


_try_depth = _TryDepth()


class TryBlock:
    """Marks a user `try` statement (line) while its body runs."""

    def __init__(self, line: int) -> None:
        self.line = line

    def __enter__(self) -> "TryBlock":
        _try_depth.lines.append(self.line)
        return self

    def __exit__(self, *exc: Any) -> None:
        _try_depth.lines.pop()


def refuse_inside_try(what: str) -> None:
    if _try_depth.lines:
        raise ConversionError(
            f"a tensor-dependent {what} inside the `try` statement at line {_try_depth.lines[-1]} "
            "is not supported: its errors happen when the program runs, where Python's `except` "
            "cannot catch them; move the try/except out of the converted code or make the "
            "condition a Python value")


def copy_containers(values: Any, memo: Optional[dict] = None) -> Any:
    """A copy of nested lists / dicts / sets / tuples whose leaves are shared (branches may mutate);
    tensor-array handles are copied too, since `arr.append(v)` rebinds the handle it is called on.
    A container held in two places (`e = d`) is one copy, so a change through either is seen
    by both, as in eager code."""
    memo = {} if memo is None else memo
    if id(values) in memo:
        return memo[id(values)]
    if isinstance(values, Variable) and values.kind == "array":
        copy: Any = Variable(values.block, values.name, values._shape, values.dtype,
                             kind="array", elem=values.elem)
    elif type(values) is list:
        copy = []
        memo[id(values)] = copy
        copy.extend(copy_containers(v, memo) for v in values)
    elif type(values) is dict:
        copy = {}
        memo[id(values)] = copy
        copy.update((k, copy_containers(v, memo)) for k, v in values.items())
    elif type(values) is set:
        # its items are hashable (numbers, strings, tuples): a shallow copy; without it an add
        # in one branch was seen by the other (a silent wrong len())
        copy = set(values)
    elif type(values) is tuple:
        copy = tuple(copy_containers(v, memo) for v in values)
    else:
        return values
    memo[id(values)] = copy
    return copy


def trace_branch(branch: Callable) -> Optional[BaseException]:
    """Trace one branch; a `raise` statement of the user's own (not an error of the traced code)
    is returned, so that it can happen when the program runs through that branch."""
    try:
        branch()
    except Exception as e:  # noqa: BLE001 - only the user's own raise is kept for later
        if _raise_statement_origin(e) is not None or fails_on_its_path(e):
            return e
        raise
    return None


def fails_on_its_path(e: BaseException) -> bool:
    """Whether e, raised while tracing, fails only the paths that reach its line: a name
    without a value on that path, or a global that does not exist."""
    if getattr(e, "dy2st_undefined", False) and _innermost_user_origin(e) is not None:
        return True
    # (a plain NameError: a global that does not exist; an UnboundLocalError: a local of the
    # user's read before the line that assigns it; a KeyError: a dict key that a tensor loop
    # adds, read on the turn before it does)
    return isinstance(e, (NameError, KeyError)) and _raised_in_user_code(e)


def raise_when_reached(exc: BaseException) -> None:
    """An op of the current block raising exc when the program runs through it, blamed on the
    user's line that raised it."""
    raise_when_run(exc)
    state.current_block().ops[-1].origin = \
        _raise_statement_origin(exc) or _innermost_user_origin(exc)


def _innermost_user_origin(e: BaseException):
    """The origin of the innermost user line in e's traceback, else None."""
    tb = e.__traceback__
    found = None
    while tb is not None:
        origin = source_maps.lookup(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        if origin is not None:
            found = origin
        tb = tb.tb_next
    return found


def _raised_in_user_code(e: BaseException) -> bool:
    """Whether e was raised by a line of the user's converted code itself (not by a call)."""
    tb = e.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return source_maps.lookup(tb.tb_frame.f_code.co_filename, tb.tb_lineno) is not None


def _raise_statement_origin(e: BaseException):
    """The origin of the user's `raise` statement that raised e directly, else None."""
    tb = e.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return None
    origin = source_maps.lookup(last.tb_frame.f_code.co_filename, last.tb_lineno)
    return origin if origin is not None and origin.source.lstrip().startswith("raise") else None


def with_lines(e: BaseException, names: Sequence[str], user_fn: Callable) -> None:
    """Re-raise e naming every line that sets the variable it is about (both branches, or
    before and inside the loop)."""
    text = str(e)
    name = next((n for n in names if f"'{n}'" in text), None)
    code = getattr(user_fn, "__code__", None)
    if name is None or code is None or "; it is set at" in text:
        raise e
    lines = assignment_origins(code.co_filename, name)
    if len(lines) < 2:
        raise e
    where = ", ".join(f"line {o.line} (`{o.source}`)" for o in lines)
    reraise_as(e, f"{text}; it is set at {where}")


def assignment_origins(filename: str, name: str) -> list:
    """User origins of the converted code's assignments to `name` (in source order)."""
    tree = source_maps.tree(filename)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets) and not (
                isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
                and node.value.func.attr == "UndefinedVar"):
            o = source_maps.lookup(filename, node.lineno)
            if o is not None and o not in found:
                found.append(o)
    return sorted(found, key=lambda o: o.line)
