"""Origins found from generated code: a generated line number indexes its file's origins, frames
of dy2st itself are skipped, and registering a file again or clearing forgets the old maps."""
import pytest

import dy2st as paddle
from dy2st.runtime.origin import Origin, source_maps, user_origin

SOURCE = "def f(cb):\n    return cb()\n"
FILE = "<dy2st test_origin generated>"


@pytest.fixture
def generated():
    """A function compiled under a generated file name (as transform does)."""
    namespace = {}
    exec(compile(SOURCE, FILE, "exec"), namespace)
    yield namespace["f"]
    source_maps._origins.pop(FILE, None)
    source_maps._trees.pop(FILE, None)


def test_a_generated_line_names_its_origin(generated):
    call = Origin("user.py", 10, "g", "y = h(x)")
    source_maps.register(FILE, [None, None, call])
    assert generated(lambda: user_origin(2)) is call
    assert source_maps.lookup(FILE, 2) is call and source_maps.lookup(FILE, 7) is None


def test_registering_a_file_again_replaces_its_origins(generated):
    source_maps.register(FILE, [None, None, Origin("user.py", 10, "g", "old")])
    assert generated(lambda: user_origin(2)).source == "old"
    source_maps.register(FILE, [None, None, Origin("user.py", 20, "g", "new")])
    assert generated(lambda: user_origin(2)).source == "new"


def test_a_line_without_an_origin_falls_back_to_the_calling_frame(generated):
    source_maps.register(FILE, [None, None, None])
    found = generated(lambda: user_origin(2))
    assert found.file == __file__      # the caller of the generated function


def test_clear_forgets_generated_files(generated):
    source_maps.register(FILE, [None, None, Origin("user.py", 10, "g", "x")])
    saved = (dict(source_maps._origins), dict(source_maps._trees))
    try:
        source_maps.clear()
        assert not source_maps.is_generated(FILE)
        assert source_maps.lookup(FILE, 2) is None
        assert generated(lambda: user_origin(2)).file == FILE   # now a file like any other
    finally:
        source_maps._origins.update(saved[0])
        source_maps._trees.update(saved[1])


def test_ops_name_the_users_line():
    @paddle.jit.to_static
    def fn(x):
        y = paddle.tanh(x) + \
            paddle.exp(x)
        return y

    fn(paddle.to_tensor([1.0, 2.0]))
    ops = fn.program.global_block().ops
    origins = {op.type: op.origin for op in ops if op.type in ("tanh", "exp", "add")}
    assert all(type(o) is Origin and o.file == __file__ for o in origins.values())
    # each op names the line of its own call, even inside one statement
    assert origins["tanh"].source == origins["add"].source == "y = paddle.tanh(x) + \\"
    assert origins["exp"].source == "paddle.exp(x)"
    assert origins["exp"].line == origins["tanh"].line + 1
