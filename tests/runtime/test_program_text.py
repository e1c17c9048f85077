"""Golden test pinning `print(program)` for a small program with a parameter, a cond and a while.

The ops are created by code compiled under the fixed file name "model.py", so the locations at
the end of each line do not depend on where this test file lives or how it is edited."""
import linecache
import os

import numpy as np

import dy2st as paddle
from dy2st import static

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "program_text.txt")

MODEL_SOURCE = '''\
def build(paddle, static, w):
    x = static.data("x", [None, 3], "float32")
    h = paddle.matmul(x, w)
    s = h.mean()
    y = static.nn.cond(s > 0, lambda: h * 2.0, lambda: h - 1.0)
    def cond(i, acc):
        return i < 3
    def body(i, acc):
        return i + 1, acc + y.sum()
    i, acc = static.nn.while_loop(cond, body, [paddle.zeros([], "int64"), paddle.zeros([], "float32")])
    return [y, i, acc]
'''


def build_model():
    filename = "model.py"
    linecache.cache[filename] = (len(MODEL_SOURCE), None, MODEL_SOURCE.splitlines(True), filename)
    namespace = {}
    exec(compile(MODEL_SOURCE, filename, "exec"), namespace)
    w = paddle.Parameter(np.ones((3, 2), "float32"), name="w")
    main = static.Program()
    with static.program_guard(main):
        fetch = namespace["build"](paddle, static, w)
    return main, fetch


def test_program_text_matches_golden():
    main, _ = build_model()
    text = str(main)
    with open(GOLDEN) as f:
        expected = f.read()
    assert text == expected.rstrip("\n"), "Program text changed; if intended, regenerate with " \
        "`python tests/runtime/test_program_text.py`"


def test_program_text_layout():
    main, _ = build_model()
    lines = str(main).splitlines()
    assert lines[0] == "program(x: float32[-1, 3]):"
    assert "  param w: float32[3, 2]" in lines
    cond_line = next(l for l in lines if "= cond(" in l)
    assert cond_line.endswith("# model.py:5")
    block_lines = [l for l in lines if l.lstrip().startswith(("true_block", "false_block",
                                                              "cond_block", "body_block"))]
    assert len(block_lines) == 4
    # sub-block ops are indented deeper than the op owning the sub-block
    owner = len(cond_line) - len(cond_line.lstrip())
    inner = next(l for l in lines if "multiply(" in l)
    assert len(inner) - len(inner.lstrip()) > owner


def test_golden_program_runs():
    main, fetch = build_model()
    y, i, acc = static.Executor().run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=fetch)
    np.testing.assert_allclose(y, np.full((2, 2), 6.0))
    assert int(i) == 3 and float(acc) == 72.0


if __name__ == "__main__":
    program, _ = build_model()
    with open(GOLDEN, "w") as f:
        f.write(str(program) + "\n")
    print(program)
