"""The check that turns a misspelled keyword option into a TypeError naming the closest valid
keyword (the lists of keywords each entry point takes are in jit/options.py)."""
from __future__ import annotations

import difflib
from typing import Iterable, Mapping


def suggestion(name: str, valid: Iterable[str]) -> str:
    """' (did you mean X?)' for the valid name closest to `name`, or '' when none is close."""
    close = difflib.get_close_matches(name, sorted(valid), n=1, cutoff=0.6)
    if not close:
        # a spelling without its underscores (fullgraph, inputspec) is still the same word
        squashed = {v.replace("_", ""): v for v in valid}
        hit = squashed.get(name.replace("_", "").lower())
        # and a short form of a long name (opset for opset_version) is meant as that name
        prefixed = sorted(v for v in valid if len(name) >= 3 and v.startswith(name.lower()))
        close = [hit] if hit else prefixed[:1]
    return f" (did you mean {close[0]}?)" if close else ""


def check_keywords(who: str, given: Mapping[str, object], accepted: Iterable[str],
                   named: Iterable[str] = ()) -> None:
    """Raise TypeError for the first keyword of `given` that `who` does not take. `named` are the
    parameters `who` spells out in its signature: they are offered as suggestions too."""
    accepted = set(accepted)
    for key in given:
        if key not in accepted:
            valid = accepted | set(named)
            raise TypeError(f"{who}() got an unexpected keyword argument {key!r}"
                            f"{suggestion(key, valid)}; it takes {', '.join(sorted(valid))}")
