"""The keyword options each entry point accepts (Paddle's own, plus dy2st's), and the check that
turns a misspelled one into a TypeError naming the closest valid keyword."""
from __future__ import annotations

import difflib
from typing import Iterable, Mapping

# to_static(function, input_spec, full_graph, **kwargs): Paddle's `build_strategy` and
# `property` are accepted and have no effect here (there is one executor and no build passes);
# `backend` chooses the executor.
TO_STATIC = frozenset({"build_strategy", "backend", "property"})

# jit.save(layer, path, input_spec, **configs): Paddle's save options. output_spec and
# input_names_after_prune prune the saved program; the others shape Paddle's own file layout and
# have nothing to change in dy2st's format. keep_training is dy2st's.
SAVE = frozenset({"output_spec", "input_names_after_prune", "with_hook", "combine_params",
                  "clip_extra", "skip_forward", "skip_prune_program", "separate_parameters",
                  "keep_training"})

# jit.load(path, **configs): Paddle's file-name options (one model file here) and the backend.
LOAD = frozenset({"model_filename", "params_filename", "backend"})

# onnx.export(layer, path, input_spec, opset_version, **configs): Paddle passes its save options.
ONNX_EXPORT = SAVE


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
