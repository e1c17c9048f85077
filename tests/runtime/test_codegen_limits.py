"""Generated code stays within Python's limits however large the program (issue 16): a long
chain of ops on one user line, deep LayerLists, programs of thousands of ops."""
import io
import tokenize

import numpy as np
import pytest

import dy2st as paddle
from dy2st import static
from dy2st.runtime.executor import MAX_FUSED_OPS, CompiledProgram
from dy2st.runtime.passes import optimize
from tests.support import import_source, randn


def bracket_depth(source: str) -> int:
    """The deepest nesting of (), [] and {} in source."""
    depth = deepest = 0
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
    return deepest


def test_one_user_line_adding_a_constant_250_times(tmp_path):
    module = import_source(tmp_path, "chain_250", "def chain(x):\n    return x" + " + 1.0" * 250 + "\n")
    x = paddle.to_tensor(randn(0, 3, 4))
    sf = paddle.jit.to_static(module.chain)
    np.testing.assert_allclose(sf(x).numpy(), module.chain(x).numpy(), rtol=1e-6)
    assert bracket_depth(sf._last.compiled.source) < 100


class Stack(paddle.nn.Layer):
    def __init__(self, n):
        super().__init__()
        self.layers = paddle.nn.LayerList([paddle.nn.Linear(4, 4) for _ in range(n)])

    def forward(self, x):
        for layer in self.layers: x = paddle.tanh(layer(x))  # noqa: E701 - one line: one origin
        return x


@pytest.mark.parametrize("n", [101, 1500])
def test_layer_list_applied_in_a_one_line_loop(n):
    paddle.seed(3)
    net = Stack(n)
    x = paddle.to_tensor(randn(1, 2, 4))
    eager = net(x).numpy()
    static_net = paddle.jit.to_static(net)
    np.testing.assert_allclose(static_net(x).numpy(), eager, rtol=1e-5, atol=1e-6)
    assert bracket_depth(net.forward._last.compiled.source) < 100


def chain_program(n_ops: int):
    """n_ops elementwise ops built on one line of this file: one origin, all fusable."""
    main = static.Program()
    with static.program_guard(main):
        h = static.data("x", [3], "float32")
        for i in range(n_ops // 2): h = paddle.tanh(h * 0.5 + float(i % 3))  # noqa: E701
    main.fetch_names = [h.name]
    return main, h


def chain_by_hand(x: np.ndarray, n_ops: int) -> np.ndarray:
    for i in range(n_ops // 2):
        x = np.tanh(x * np.float32(0.5) + np.float32(i % 3))
    return x


@pytest.mark.parametrize("passes", [False, True])
def test_a_program_of_thousands_of_ops_on_one_line(passes):
    n_ops = 6000
    main, h = chain_program(n_ops)
    if passes:
        optimize(main)
    compiled = CompiledProgram(main, ["x"], [h.name])
    x = randn(2, 3)
    np.testing.assert_allclose(compiled([x])[0], chain_by_hand(x, n_ops), rtol=1e-5, atol=1e-6)
    # each op nests its inputs at most 3 brackets deep
    assert bracket_depth(compiled.source) <= 3 * MAX_FUSED_OPS + 2
