"""Errors raised while converting, tracing or running a converted function, re-raised with the
user's original file, line and source text (never generated code or dy2st internals)."""
from __future__ import annotations

import dis
import linecache
import os
from types import TracebackType
from typing import List, NoReturn, Optional

# ConversionError lives in the runtime (jst raises it too); jit's modules import it from here
from ..runtime.errors import ConversionError, reraise_as  # noqa: F401
from ..runtime.executor import raise_with_op_origin
from ..runtime.origin import Origin, is_internal, source_maps


class SourceUnavailableError(ConversionError):
    """The source of a function cannot be read (typed into a REPL, made by exec, only a .pyc)."""


def failing_line(tb: TracebackType) -> int:
    """The line of the instruction that raised in the innermost frame `tb`. CPython 3.11 fuses
    `STORE_FAST a; LOAD_FAST b` into one instruction in warm code and blames a failing read of
    an unassigned `b` on the store's line; a store cannot fail, so the read's line is meant."""
    if tb.tb_next is not None:
        return tb.tb_lineno
    code = tb.tb_frame.f_code
    found = False
    for ins in dis.get_instructions(code):
        if found:
            line = ins.positions.lineno if ins.opname == "LOAD_FAST" and \
                getattr(ins, "positions", None) is not None else None
            return line or tb.tb_lineno
        if ins.offset == tb.tb_lasti:
            if ins.opname != "STORE_FAST":
                return tb.tb_lineno
            found = True
    return tb.tb_lineno


def user_frames(tb: Optional[TracebackType]) -> List[Origin]:
    frames: List[Origin] = []
    while tb is not None:
        frame, line = tb.tb_frame, failing_line(tb)
        tb = tb.tb_next
        filename = frame.f_code.co_filename
        if source_maps.is_generated(filename):
            origin = source_maps.lookup(filename, line)
            if origin is not None and (not frames or frames[-1] != origin):
                frames.append(origin)
        elif not is_internal(filename) and not filename.startswith("<frozen"):
            text = linecache.getline(filename, line).strip()
            frames.append(Origin(filename, line, frame.f_code.co_name, text))
    return frames


def format_user_code(frames: List[Origin]) -> str:
    lines = ["In user code:"]
    for k, o in enumerate(frames):
        lines.append(f'    File "{o.file}", line {o.line}, in {o.function}')
        lines.append(f"        {o.source}")
        if k == len(frames) - 1:
            lines.append(f"        {'~' * max(len(o.source), 1)} <--- HERE")
    return "\n".join(lines)


def raise_in_user_code(e: BaseException, tb: Optional[TracebackType] = None) -> NoReturn:
    """Re-raise e (same type) with the user's frames; exceptions already mapped pass through."""
    if getattr(e, "_dy2st_mapped", False):
        raise e
    frames = user_frames(tb if tb is not None else e.__traceback__)
    origin = getattr(e, "dy2st_origin", None)
    if origin is not None and (not frames or frames[-1] != origin):
        frames.append(origin)
    if not frames:
        e._dy2st_mapped = True
        raise e
    # an eager op's error names its line in its text too: the block below says it once
    plain = e.__dict__.pop("dy2st_plain", None) if hasattr(e, "__dict__") else None
    if isinstance(e, RecursionError):
        frames = frames[:2] + frames[-1:] if len(frames) > 3 else frames
        plain = (f"{plain or e}: the function recursed past Python's limit while traced; a "
                 "recursion that stops on a tensor value (a tensor `if`, or a test of an unknown "
                 "dim such as a None batch) traces both paths at every level, so it never stops "
                 "there: stop it on a Python value, or write it as a loop")
    message = f"{format_user_code(frames)}\n\n    {type(e).__name__}: {plain or e}"
    try:
        reraise_as(e, message, origin)
    except BaseException as new:  # noqa: BLE001 - mark it, then let it go
        new._dy2st_mapped = True
        raise


def raise_run_error(e: BaseException, compiled: object) -> NoReturn:
    """Re-raise an error of a compiled program's run at the user's line of the failing op."""
    try:
        raise_with_op_origin(e, compiled, e.__traceback__)
    except Exception as mapped:  # noqa: BLE001
        raise_in_user_code(mapped)


def short_location(o: Origin) -> str:
    return f"{os.path.basename(o.file)}:{o.line}"
