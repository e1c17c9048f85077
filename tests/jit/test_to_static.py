"""to_static API: decorator forms, methods, Layers, code / program / rollback / to_code, shape
arithmetic with unknown dims, set_code_level, functions whose source lives in linecache."""
import linecache
import logging
import re

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


def plain(x):
    if x.sum() > 0:
        return x * 2
    return x


@paddle.jit.to_static
def decorated_bare(x):
    return x + 1


@paddle.jit.to_static(input_spec=[InputSpec([None, 2], "float32")])
def decorated_with_args(x):
    return x * 3


class Counter:
    def __init__(self, k):
        self.k = k

    @paddle.jit.to_static
    def apply(self, x):
        return x * self.k


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, x):
        y = self.fc(x)
        if y.mean() > 0:
            y = y * 2
        return y


def shape_arithmetic(x):
    b = x.shape[0]
    y = paddle.reshape(x, [b * 2, -1])
    z = paddle.zeros([b, 256], "float32") + x
    n = b * 256
    flat = paddle.reshape(x, [n])
    return y, z, flat


def T(a):
    return paddle.to_tensor(np.asarray(a, np.float32))


X = np.array([1.0, -2.0, 3.0], np.float32)


def test_decorator_forms():
    assert isinstance(decorated_bare, paddle.jit.StaticFunction)
    np.testing.assert_allclose(decorated_bare(T(X)).numpy(), X + 1)
    for n in (1, 3):
        np.testing.assert_allclose(decorated_with_args(T(np.ones([n, 2]))).numpy(), np.full([n, 2], 3.0))
    assert decorated_with_args.num_programs == 1
    sf = paddle.jit.to_static(plain)
    assert sf.__name__ == "plain" and sf.dygraph_function is plain


def test_methods_bind_per_instance():
    a, b = Counter(2.0), Counter(5.0)
    np.testing.assert_allclose(a.apply(T(X)).numpy(), X * 2)
    np.testing.assert_allclose(b.apply(T(X)).numpy(), X * 5)
    assert a.apply is a.apply
    assert a.apply is not b.apply
    sf = paddle.jit.to_static(Counter(7.0).apply)
    np.testing.assert_allclose(sf(T(X)).numpy(), X * 7)


def test_layer_forward_is_converted(assert_same):
    paddle.seed(1)
    net = Net()
    x = T(np.ones([4, 3]))
    eager = net(x)
    static_net = paddle.jit.to_static(net)
    assert static_net is net
    assert isinstance(net.forward, paddle.jit.StaticFunction)
    assert_same(eager, net(x))
    assert "cond(" in str(net.forward.program)
    assert "_jst.IfElse(" in net.forward.code
    # rollback gives the eager forward back
    fwd = net.forward.rollback()
    assert not isinstance(net.forward, paddle.jit.StaticFunction)
    assert_same(eager, fwd(x))


def test_code_program_and_concrete_program():
    sf = paddle.jit.to_static(plain)
    assert sf.code.startswith("def plain(x):")
    assert "_jst.IfElse(" in sf.code
    with pytest.raises(RuntimeError):
        sf.program                      # not traced yet
    sf(T(X))
    text = str(sf.program)
    assert text.startswith("program(x: float32[3])")
    assert re.search(r"# test_to_static\.py:\d+", text)
    assert sf.concrete_program.program is sf.program
    assert paddle.jit.to_code(plain) == sf.code
    assert paddle.jit.to_code(sf) == sf.code


def test_get_concrete_program_from_specs():
    sf = paddle.jit.to_static(plain)
    cp = sf.get_concrete_program(InputSpec([None, 3], "float32", "x"))
    assert "float32[-1, 3]" in str(cp.program)
    assert [list(s.shape) for s in cp.inputs] in ([[None, 3]], [[-1, 3]])


def test_get_concrete_program_takes_python_values_as_constants():
    def scaled(x, k):
        return x * k

    sf = paddle.jit.to_static(scaled)
    x = paddle.to_tensor(np.ones([2, 3], "float32"))
    three = sf.get_concrete_program(x, 3.0)
    assert three is sf.get_concrete_program(x, 3.0)          # the same constants: cached
    assert three is not sf.get_concrete_program(x, 4.0)
    assert "3.0" in str(three.program) and len(three.inputs) == 1


def test_to_code_on_layer_and_method():
    assert "_jst.IfElse(" in paddle.jit.to_code(Net())
    with pytest.raises(TypeError):
        paddle.jit.to_code(42)


def test_shape_arithmetic_keeps_unknown_dims():
    sf = paddle.jit.to_static(shape_arithmetic, input_spec=[InputSpec([None, 256], "float32")])
    for n in (1, 4):
        x = np.arange(n * 256, dtype=np.float32).reshape(n, 256)
        y, z, flat = sf(T(x))
        ey, ez, eflat = shape_arithmetic(T(x))
        assert y.shape == ey.shape == [2 * n, 128]
        np.testing.assert_allclose(z.numpy(), ez.numpy())
        np.testing.assert_allclose(flat.numpy(), eflat.numpy())
    assert sf.num_programs == 1
    text = str(sf.program)
    assert not re.search(r"-(?!1\b)\d+", re.sub(r"\{[^}]*\}|t_\d+|#.*", "", text)), text
    for block in sf.program.blocks:
        for var in block.vars.values():
            shape = getattr(var, "_shape", None) or []
            assert all(d == -1 or d >= 0 for d in shape), (var.name, shape)


def test_set_code_level_logs_the_code_after_the_pass_of_that_level(caplog):
    from dy2st.jit import transform
    from dy2st.transformers.pipeline import PASS_NAMES
    caplog.set_level(logging.INFO, logger="dy2st.jit")
    level = PASS_NAMES.index("ifelse") + 1
    transform.cache.clear()
    try:
        paddle.jit.set_code_level(level)
        paddle.jit.to_code(plain)
        transform.cache.clear()
        paddle.jit.set_code_level(100)
        paddle.jit.to_code(plain)
    finally:
        paddle.jit.set_code_level(0)
    msgs = [r.getMessage() for r in caplog.records if r.name == "dy2st.jit"]
    assert any(f"after pass {level} 'ifelse'" in m for m in msgs), msgs
    assert not any("'call'" in m for m in msgs), msgs
    assert sum("after the last pass" in m for m in msgs) == 1, msgs


def test_function_with_source_only_in_linecache(tmp_path):
    # like a notebook cell: the file does not exist, linecache holds the source
    filename = "<ipython-input-7-abc>"
    source = "def cell_fn(x):\n    if x.sum() > 0:\n        return x * 10\n    return x\n"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = {"paddle": paddle}
    exec(compile(source, filename, "exec"), ns)
    sf = paddle.jit.to_static(ns["cell_fn"])
    np.testing.assert_allclose(sf(T(X)).numpy(), X * 10)
    np.testing.assert_allclose(sf(T(-X)).numpy(), -X)
    assert "cond(" in str(sf.program)
