"""The minimizer of tools/fuzz.py (`--program-seed N --minimize`): shrinks a failing program's
f while it still fails the same way."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

from dy2st.runtime.time_limit import TIME_LIMIT_AVAILABLE, time_limit


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def _statement_spans(lines: List[str], start: int) -> List[Tuple[int, int]]:
    """(first, end) line ranges of every statement of f's body (a compound one with its block)."""
    spans = []
    for i in range(start, len(lines)):
        text = lines[i]
        if not text.strip():
            continue
        indent = len(_indent(text))
        end = i + 1
        while end < len(lines) and len(_indent(lines[end])) > indent:
            end += 1
        spans.append((i, end))
    return spans


def smaller_forms(lines: List[str], first: int, end: int) -> List[List[str]]:
    """The statement lines[first:end] dropped, made `pass` (its block may need one), or, if it
    is an `if`/`while`/`for` or an `else:`, replaced by its own block."""
    header = lines[first]
    indent = _indent(header)
    forms = [lines[:first] + lines[end:], lines[:first] + [indent + "pass"] + lines[end:]]
    if header.lstrip().startswith(("if ", "while ", "for ", "else:")) and end > first + 1:
        cut = len(_indent(lines[first + 1])) - len(indent)
        forms.append(lines[:first] + [line[cut:] for line in lines[first + 1:end]] + lines[end:])
    return forms


class _TooLong(Exception):
    """A candidate ran past its time (a loop whose step was dropped)."""


def minimize(fuzz: Any, source: str, seed: int, directory: str, save: bool = True,
             seconds: float = 20.0, gradient: bool = True) -> str:
    """Shrink f while the program still fails the same way: drop statements, make them `pass`,
    replace an `if`/`while`/`for` by its block; a candidate that runs past `seconds` (a loop
    that lost its step) does not count as failing."""
    tries = [0]

    def outcome(src: str) -> Optional[str]:
        tries[0] += 1
        name = seed * 1000 + tries[0]   # a new file: converted code is cached per file
        try:
            # where SIGALRM is missing, no limit: a candidate that loops for ever hangs there
            with time_limit(seconds if TIME_LIMIT_AVAILABLE else None, _TooLong):
                _, failure = fuzz.check_source(src, seed, directory, save, name, gradient)
        except _TooLong:
            return None
        except Exception as e:  # noqa: BLE001 - a crash is a failure too
            return f"crash {type(e).__name__}"
        return failure.kind if failure is not None else None

    def fails(src: str) -> bool:
        try:
            compile(src, "<fuzz>", "exec")
        except SyntaxError:
            return False
        return outcome(src) == target

    target = outcome(source)
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def f(")) + 1
    changed = True
    while changed:
        changed = False
        for first, end in reversed(_statement_spans(lines, start)):
            for trial in smaller_forms(lines, first, end):
                if trial != lines and fails("\n".join(trial) + "\n"):
                    lines = trial
                    changed = True
                    break
            if changed:
                break
    return "\n".join(lines) + "\n"
