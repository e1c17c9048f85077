"""The ordered list of passes: the one place that says what runs."""
from __future__ import annotations

from typing import Callable, List, Optional, Tuple

import gast

from . import (assert_, break_continue, call, cast, delete, ifelse, logical, loop, print_,
               return_, setitem, try_)
from .context import PassContext

PASSES: List[Tuple[str, Callable]] = [
    ("setitem", setitem.transform),          # first: `x[i] = v` must read as a write of x
    ("delete", delete.transform),            # `del x` too
    ("return", return_.transform),           # emits `break` inside loops for break_continue
    ("break_continue", break_continue.transform),  # emits `not flag and test` for logical
    ("logical", logical.transform),
    ("loop", loop.transform),                # before ifelse: loop bodies become functions
    ("ifelse", ifelse.transform),            # whose ifs then see the body function's scope
    ("try", try_.transform),                 # after the control-flow passes it guards
    ("print", print_.transform),
    ("assert", assert_.transform),
    ("cast", cast.transform),                # before call, which would wrap int()/len()
    ("call", call.transform),                # last: wraps every call still left as is
]

PASS_NAMES = [name for name, _ in PASSES]


def run_passes(tree: gast.AST, ctx: PassContext, until: Optional[str] = None,
               on_pass: Optional[Callable[[str, gast.AST], None]] = None) -> gast.AST:
    """Apply the passes in order (stopping after `until` when given)."""
    if until is not None and until not in PASS_NAMES:
        raise ValueError(f"unknown pass {until!r}; passes are: {', '.join(PASS_NAMES)}")
    for name, fn in PASSES:
        tree = fn(tree, ctx)
        gast.fix_missing_locations(tree)
        if on_pass is not None:
            on_pass(name, tree)
        if name == until:
            break
    return tree
