"""Helpers shared by test modules (importable as `tests.support`): building a small static
Program around a function and running it."""
import dy2st as paddle


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
