"""Helpers shared by test modules (importable as `tests.support`): seeded data, building a
small static Program around a function and running it, checking user-facing errors."""
import numpy as np

import dy2st as paddle


def randn(seed, *shape, shift=0.0, scale=1.0, dtype="float32"):
    """Seeded standard-normal data, scaled and shifted, as a numpy array of dtype."""
    return (np.random.default_rng(seed).standard_normal(shape) * scale + shift).astype(dtype)


def tensor(v, dtype="float32"):
    """An eager tensor of v (a number or nested list) in dtype."""
    return paddle.to_tensor(np.asarray(v, dtype=dtype))


def seeded(cls, *args):
    """A factory of cls(*args) whose parameters are the same on every call (seed 7)."""
    def make():
        paddle.seed(7)
        return cls(*args)
    return make


def run_static(fn, *arrays, shapes=None):
    """fn applied to static.data inputs (shapes may hold None dims), run by the Executor."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xs = [paddle.static.data(f"x{i}", shapes[i] if shapes else list(a.shape), str(a.dtype))
              for i, a in enumerate(arrays)]
        out = fn(*xs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    res = paddle.static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(arrays)},
                                       fetch_list=outs)
    return res if isinstance(out, (list, tuple)) else res[0]


def same_code(a: str, b: str) -> bool:
    """Two sources print alike once parsed (ast.unparse spells a few things differently across
    Python versions, e.g. `lambda:` / `lambda :` on 3.9)."""
    import ast
    return ast.unparse(ast.parse(a)) == ast.unparse(ast.parse(b))


def code_text(source: str) -> str:
    """Generated code in the spelling of Python 3.10+, for substring checks in tests."""
    import re
    return re.sub(r"lambda :", "lambda:", source)


def source_line(path: str, snippet: str) -> int:
    """The one line of file `path` that holds `snippet` outside a string quoting it."""
    lines = open(path).read().splitlines()
    hits = [i + 1 for i, line in enumerate(lines) if snippet in line and f'"{snippet}' not in line
            and f"'{snippet}" not in line]
    assert len(hits) == 1, (snippet, hits)
    return hits[0]


def check_user_error(exc: BaseException, path: str, snippet: str) -> None:
    """The conformance rule: the message names the file, `line N` and quotes the line."""
    import os
    msg = str(exc) + "\n".join(str(n) for n in getattr(exc, "__notes__", ()))
    assert os.path.basename(path) in msg, msg
    assert f"line {source_line(path, snippet)}" in msg, msg
    assert snippet in msg, msg


def expect_user_error(path: str, target, args, etype, snippet: str, input_spec=None) -> None:
    """Converting and calling `target` raises `etype` reported at the line of `snippet`."""
    import pytest
    sf = paddle.jit.to_static(target, input_spec=input_spec, full_graph=True)
    with pytest.raises(etype) as info:
        sf(*args)
    check_user_error(info.value, path, snippet)


def import_source(directory, name: str, source: str):
    """Module `name` made from `source` written to a file in `directory` (to_static reads a
    function's source from its file), imported without touching sys.path or sys.modules."""
    import importlib.util
    import os
    path = os.path.join(str(directory), f"{name}.py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
