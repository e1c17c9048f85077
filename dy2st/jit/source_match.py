"""Whether a def or lambda found in the text linecache holds for a pseudo-file ("<string>",
"<ipython-input-3-…>") is the source of a given code object.

A pseudo-file name may be shared by unrelated code: every exec() of a string is "<string>", and
Python 3.13 puts the text of `python -c "..."` into linecache under that name (pytest-xdist's
workers start so), where a function exec'd from another string then finds the wrong line."""
from __future__ import annotations

import ast
import types
from typing import FrozenSet, Optional, Tuple


def is_pseudo_file(filename: str) -> bool:
    """A name in angle brackets: source that only linecache may hold, under a name that need not
    be unique."""
    return filename.startswith("<") and filename.endswith(">")


def _inner_code(node: ast.AST) -> Optional[types.CodeType]:
    """The code object of the def or lambda `node`, compiled on its own (None if it cannot be,
    e.g. a `nonlocal` whose binding is outside it)."""
    tree: ast.AST
    if isinstance(node, ast.Lambda):
        tree, mode = ast.Expression(body=node), "eval"
    else:
        tree, mode = ast.Module(body=[node], type_ignores=[]), "exec"
    try:
        outer = compile(ast.fix_missing_locations(tree), "<check>", mode, dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    inner = [c for c in outer.co_consts if isinstance(c, types.CodeType)]
    return inner[0] if len(inner) == 1 else None


def _signature(code: types.CodeType) -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """(names the code uses, its constants but nested code), which compiling the function on its
    own keeps: a closure's free variable becomes a global name there, so all names are pooled."""
    names = set(code.co_names) | set(code.co_varnames) | set(code.co_freevars) | set(
        code.co_cellvars)
    names.discard("__class__")          # the cell super() reads exists inside a class only
    consts = frozenset(repr(c) for c in code.co_consts
                       if c is not None and not isinstance(c, types.CodeType))
    return frozenset(names), consts


def _same_names(real: FrozenSet[str], alone: FrozenSet[str]) -> bool:
    # inside a class `__x` is mangled to `_Cls__x`; compiled alone it stays `__x`
    unmatched = real - alone
    return all(any(r.startswith("_") and r.endswith(a) for a in alone if a.startswith("__"))
               for r in unmatched) and len(alone - real) <= len(unmatched)


def is_source_of(node: ast.AST, code: types.CodeType) -> bool:
    """Whether the def or lambda `node` compiles to code with `code`'s names and constants (a
    def that cannot be compiled alone is given the benefit of the doubt)."""
    alone = _inner_code(node)
    if alone is None:
        return True
    real_names, real_consts = _signature(code)
    alone_names, alone_consts = _signature(alone)
    return real_consts == alone_consts and _same_names(real_names, alone_names)
